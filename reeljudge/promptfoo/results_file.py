"""The one reader of promptfoo's results files (``promptfoo eval -o results.json``), for the gates,
``ab import`` and the Gecko reports and pairs: the file, and each of its rows as a typed ``ResultRow``
(a graded test × prompt × provider) with its ``Grading`` tree, so promptfoo's row shape (``testCase``,
``gradingResult``, ``componentResults`` …) is known here only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterator, Mapping

from reeljudge.errors import BadInputError

#: promptfoo's ResultFailureReason.ERROR: the provider or the eval itself failed
FAILURE_ERROR = 2
_EMPTY: Mapping[str, Any] = MappingProxyType({})


def _mapping(value: Any) -> Mapping[str, Any]:
    """``value`` when it is a mapping, else an empty one."""
    return value if isinstance(value, Mapping) else _EMPTY


@dataclass(frozen=True)
class Grading:
    """One grading result in a row: the test's own (``gradingResult``) or an assertion's inside it
    (``componentResults``, nested to any depth)."""

    raw: Mapping[str, Any]
    passed: Any  # ``pass`` as written (True, False, or absent: None)
    reason: str
    metadata: Mapping[str, Any]
    assertion_type: str  # the assertion's ``type`` ("" when the result names none)
    metric: str | None  # the assertion's ``metric``, when it names one
    components: tuple[Grading, ...]

    @classmethod
    def of(cls, node: Any) -> Grading | None:
        """A grading result as written, or None when ``node`` is empty or not a mapping."""
        if not isinstance(node, Mapping) or not node:
            return None
        assertion = _mapping(node.get("assertion"))
        parts = node.get("componentResults")
        parts = parts if isinstance(parts, list) else []
        metric = assertion.get("metric")
        return cls(raw=node, passed=node.get("pass"), reason=str(node.get("reason") or ""),
                   metadata=_mapping(node.get("metadata")), assertion_type=str(assertion.get("type", "")),
                   metric=str(metric) if metric else None,
                   components=tuple(g for g in map(cls.of, parts) if g is not None))

    def nodes(self) -> Iterator[Grading]:
        """This result and every component nested in it, outermost first."""
        yield self
        for part in self.components:
            yield from part.nodes()


@dataclass(frozen=True)
class ResultRow:
    """One row of a results file (or of an ``afterAll`` hook's results): a graded test × prompt × provider."""

    raw: Mapping[str, Any]
    description: str | None  # the test's description, when it has one
    vars: Mapping[str, Any]  # the row's vars, else its test case's
    test_metadata: Mapping[str, Any]  # the test case's ``metadata:``
    test_index: Any  # ``testIdx`` (None when absent)
    provider: str  # the provider's label, else its id
    prompt_label: str  # the prompt's label, else its raw template ("" when none)
    prompt_raw: str
    prompt_index: Any  # ``promptIdx`` ("" when absent)
    success: bool
    score: Any  # as written (a reader checks it is a number)
    named_scores: Mapping[str, Any]
    error: str  # the row's error ("" when none)
    failed_with_error: bool  # promptfoo's failure reason is ERROR: the provider or the eval failed
    response: Mapping[str, Any]  # the provider response (``output``, ``metadata``, ``error`` …)
    grading: Grading | None

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> ResultRow:
        """The typed view of one result row."""
        test = _mapping(row.get("testCase"))
        prompt = _mapping(row.get("prompt"))
        description = test.get("description")
        return cls(
            raw=row, description=None if description is None else str(description),
            vars=row["vars"] if isinstance(row.get("vars"), Mapping) else _mapping(test.get("vars")),
            test_metadata=_mapping(test.get("metadata")), test_index=row.get("testIdx"),
            provider=provider_label(row.get("provider")),
            prompt_label=str(prompt.get("label") or prompt.get("raw") or ""), prompt_raw=str(prompt.get("raw") or ""),
            prompt_index=row.get("promptIdx", ""), success=bool(row.get("success")), score=row.get("score"),
            named_scores=_mapping(row.get("namedScores")), error=str(row.get("error") or ""),
            failed_with_error=row.get("failureReason") == FAILURE_ERROR, response=_mapping(row.get("response")),
            grading=Grading.of(row.get("gradingResult")),
        )

    @property
    def response_metadata(self) -> Mapping[str, Any]:
        """The provider response's ``metadata`` (empty when none)."""
        return _mapping(self.response.get("metadata"))

    def gradings(self) -> list[Grading]:
        """The row's grading result and every component in it, outermost first (empty when not graded)."""
        return list(self.grading.nodes()) if self.grading else []


@dataclass(frozen=True)
class RunFacts:
    """What identifies a run in its results file: promptfoo's version, the config's description, the eval id."""

    promptfoo_version: str | None
    description: str | None
    eval_id: str | None

    @classmethod
    def of(cls, document: Mapping[str, Any]) -> RunFacts:
        """The facts of a parsed results document (None for each one it does not record)."""
        return cls(promptfoo_version=_mapping(document.get("metadata")).get("promptfooVersion"),
                   description=_mapping(document.get("config")).get("description"), eval_id=document.get("evalId"))


def hook_rows(context: Mapping[str, Any]) -> list[ResultRow]:
    """The result rows an ``afterAll`` extension hook receives (its context's ``results``)."""
    return [ResultRow.of(row) for row in context.get("results") or [] if isinstance(row, Mapping)]


def is_test_result(row: Any) -> bool:
    """Whether ``row`` is shaped like one of promptfoo's test results (a success flag, a test case or vars)."""
    return isinstance(row, Mapping) and "success" in row and bool({"testCase", "vars"} & set(row))


def document_rows(document: Any, name: str) -> list[Mapping[str, Any]]:
    """The rows of a parsed results document, or BadInputError naming ``name`` and what the document is
    instead. The one rule of what a promptfoo results file is, for every reader: an object whose
    ``results.results`` is a list of test results, as ``promptfoo eval -o x.json`` and ``promptfoo export``
    write it (and as promptfoo reads its own files back). A bare ``results`` list is refused: promptfoo
    writes none (it is the shape of an ``afterAll`` hook's context, see ``hook_rows``)."""
    if not isinstance(document, Mapping):
        raise BadInputError(f"{name}: not a promptfoo results file (the top level is a {type(document).__name__}, "
                            "not an object)")
    results = document.get("results")
    if isinstance(results, list):
        raise BadInputError(f"{name}: not a promptfoo results file (results is a bare list; promptfoo eval -o "
                            "writes the rows at results.results)")
    rows = results.get("results") if isinstance(results, Mapping) else None
    if not isinstance(rows, list):
        keys = ", ".join(sorted(map(str, document))[:8]) or "none"
        raise BadInputError(f"{name}: not a promptfoo results file (no results.results list; top-level keys: {keys})")
    for i, row in enumerate(rows):
        if not is_test_result(row):
            raise BadInputError(f"{name}: results.results[{i}] is not a promptfoo test result (no success/testCase/vars)")
    return rows


def read_results_document(path: str | Path) -> dict[str, Any]:
    """A whole promptfoo results file (``promptfoo eval -o results.json``: ``results.results`` plus
    ``config``, ``metadata``, ``evalId``); BadInputError naming the file when it is unreadable,
    truncated or not promptfoo's (``document_rows``)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as error:
        raise BadInputError(f"{p}: cannot read ({error.strerror or error})") from None
    except UnicodeDecodeError as error:
        raise BadInputError(f"{p}: cannot read (not UTF-8 text: {error.reason})") from None
    try:
        data = json.loads(text)
    except ValueError as error:
        raise BadInputError(f"{p}: not valid JSON (truncated?): {error}") from None
    document_rows(data, str(p))
    return data


def read_results_file(path: str | Path) -> list[ResultRow]:
    """The per-test rows of a promptfoo results file (see ``read_results_document``)."""
    return result_rows(read_results_document(path))


def result_rows(document: Mapping[str, Any], name: str = "results") -> list[ResultRow]:
    """The rows of a results document (BadInputError naming ``name`` when it is not promptfoo's)."""
    return [ResultRow.of(r) for r in document_rows(document, name)]


def provider_label(provider: Any) -> str:
    """The name of a result row's ``provider`` (its label, else its id; a bare string as it is)."""
    if isinstance(provider, Mapping):
        return str(provider.get("label") or provider.get("id") or "")
    return str(provider or "")
