"""Reading a promptfoo results file (``promptfoo eval -o results.json``, 0.121 and newer) into cells.

A *cell* is one graded (test, prompt, provider) row. Each cell gets a stable key made of the
provider (label, else id), the prompt (label, else its raw template), the test description and
its vars, so the same test can be found again in another run. A cell whose judge did not judge
(a reeljudge failure result or any result with ``metadata.judged: false``, an assertion that
crashed, a provider error) is marked ``judged = False`` with the reason; such a cell is never
read as a pass or a score.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

from reeljudge.errors import BadInputError
from reeljudge.promptfoo.identity import IDENTITY_KEY
from reeljudge.promptfoo.results import BREAKDOWN_KEY
from reeljudge.promptfoo.results_file import provider_label

#: promptfoo's ResultFailureReason.ERROR: the provider or the eval itself failed
_FAILURE_ERROR = 2
_NOT_JUDGED = re.compile(r"did not judge \(([\w-]+)\)")
#: promptfoo assertion types graded by an LLM (their verdicts vary from run to run)
_MODEL_GRADED = frozenset({"llm-rubric", "g-eval", "factuality", "answer-relevance", "context-faithfulness",
                           "context-recall", "context-relevance", "select-best", "search-rubric", "video-rubric"})
_CRASH_MARKERS = ("Traceback (most recent call last)", "Python code execution failed", "Error running Python")


class CannotCompare(BadInputError):
    """Input that cannot be compared or calibrated as given (the CLI exits 2 with this message)."""

    kind = "cannot_compare"


@dataclass(frozen=True)
class Cell:
    """One graded (test, prompt, provider) row of a results file."""

    key: tuple[str, str, str, str]  # provider, prompt, description, canonical vars
    description: str
    provider: str
    prompt: str
    success: bool
    score: float | None
    named: dict[str, float]
    judged: bool
    reason: str  # the grading reason (or why it was not judged)
    metric_reasons: dict[str, str] = field(default_factory=dict)  # namedScore -> its component's reason
    tags: tuple[str, ...] = ()
    family: str | None = None
    vars: dict[str, Any] = field(default_factory=dict)
    clip_sha256: str | None = None  # the clip the provider served or made (response.metadata.clip.sha256)
    judges: tuple[str, ...] = ()  # who judged: each recorded judge identity as canonical JSON (see judge_identities)
    deterministic: bool = True  # every answer offline or replayed (a verdict flip is then a fact, not judging noise)

    @property
    def label(self) -> str:
        """A short readable name: the description (or vars) and, when set, the provider."""
        return f"{self.description} [{self.provider}]" if self.provider else self.description


@dataclass(frozen=True)
class ResultsFile:
    """The cells of one results file and what identifies the run."""

    path: str
    cells: list[Cell]
    promptfoo_version: str | None
    description: str | None
    eval_id: str | None

    @property
    def judged_count(self) -> int:
        return sum(1 for c in self.cells if c.judged)


def read_results(path: str | Path) -> ResultsFile:
    """Parse a promptfoo results JSON file; BadInputError naming the file and the problem."""
    from reeljudge.promptfoo.results_file import read_results_document

    return parse_results(read_results_document(path), str(path))


def parse_results(data: Any, name: str = "results") -> ResultsFile:
    """The cells of already-parsed results JSON (the shape ``promptfoo eval -o`` writes)."""
    rows = _result_rows(data, name)
    cells = [_cell(row, i, name) for i, row in enumerate(rows)]
    if not cells:
        raise CannotCompare(f"{name}: the results file holds no test results")
    meta = data.get("metadata") if isinstance(data.get("metadata"), Mapping) else {}
    config = data.get("config") if isinstance(data.get("config"), Mapping) else {}
    return ResultsFile(
        path=name,
        cells=cells,
        promptfoo_version=meta.get("promptfooVersion"),
        description=config.get("description"),
        eval_id=data.get("evalId"),
    )


def _result_rows(data: Any, name: str) -> list[Mapping[str, Any]]:
    """``results.results`` of a results file, or a CannotCompare saying what the file is instead."""
    if not isinstance(data, Mapping):
        raise CannotCompare(f"{name}: not a promptfoo results file (top level is a {type(data).__name__}, not an object)")
    inner = data.get("results")
    rows = inner.get("results") if isinstance(inner, Mapping) else None
    if not isinstance(rows, list):
        keys = ", ".join(sorted(map(str, data))[:8]) or "none"
        raise CannotCompare(f"{name}: not a promptfoo results file (no results.results list; top-level keys: {keys})")
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping) or "success" not in row or not ({"testCase", "vars"} & set(row)):
            raise CannotCompare(f"{name}: results.results[{i}] is not a promptfoo test result (no success/testCase/vars)")
    return rows


def _cell(row: Mapping[str, Any], index: int, name: str) -> Cell:
    """One row as a Cell (vars from the row, else from its test case)."""
    test = row.get("testCase") if isinstance(row.get("testCase"), dict) else {}
    vars_ = row.get("vars") if isinstance(row.get("vars"), dict) else test.get("vars") or {}
    provider = provider_label(row.get("provider"))
    prompt = row.get("prompt") if isinstance(row.get("prompt"), dict) else {}
    prompt_name = str(prompt.get("label") or prompt.get("raw") or row.get("promptIdx", ""))
    description = str(test.get("description") or _short_vars(vars_) or f"test #{row.get('testIdx', index)}")
    grading = row.get("gradingResult") if isinstance(row.get("gradingResult"), dict) else {}
    nodes = list(_grading_nodes(grading))
    unjudged = _not_judged_reason(row, nodes)
    judging = _judging(nodes)
    named = {k: float(v) for k, v in (row.get("namedScores") or {}).items() if _is_number(v)}
    score = float(row["score"]) if _is_number(row.get("score")) else None
    metadata = test.get("metadata") if isinstance(test.get("metadata"), dict) else {}
    return Cell(
        key=(provider, prompt_name, description, json.dumps(vars_, sort_keys=True, default=str)),
        description=description,
        provider=provider,
        prompt=prompt_name,
        success=bool(row.get("success")) and unjudged is None,
        score=score,
        named=named,
        judged=unjudged is None,
        reason=unjudged or _reason(grading) or str(row.get("error") or ""),
        metric_reasons=dict(_metric_reasons(nodes)),
        tags=_tags(metadata),
        family=str(metadata["family"]) if metadata.get("family") is not None else None,
        vars=dict(vars_),
        clip_sha256=_clip_sha256(row),
        judges=judging[0],
        deterministic=judging[1],
    )


def judge_identities(grading: Mapping[str, Any]) -> tuple[str, ...]:
    """Each distinct ``metadata.judge_identity`` of a grading result (canonical JSON, without the
    per-answer ``deterministic`` flag), sorted."""
    return _judging(list(_grading_nodes(grading)))[0]


def _judging(nodes: list[Mapping[str, Any]]) -> tuple[tuple[str, ...], bool]:
    """Who judged (``judge_identities``) and whether every answer was offline or from the cache.
    Without a recorded identity: deterministic unless a promptfoo model-graded assertion graded it."""
    found, deterministic, recorded = set(), True, False
    for node in nodes:
        meta = node.get("metadata")
        identity = meta.get(IDENTITY_KEY) if isinstance(meta, dict) else None
        if isinstance(identity, dict):
            recorded = True
            deterministic = deterministic and bool(identity.get("deterministic"))
            found.add(json.dumps({k: v for k, v in identity.items() if k != "deterministic"}, sort_keys=True))
    if not recorded:
        types = {str(n["assertion"].get("type", "")) for n in nodes if isinstance(n.get("assertion"), dict)}
        deterministic = not any(t in _MODEL_GRADED or t.startswith("model-graded") for t in types)
    return tuple(sorted(found)), deterministic


def _reason(grading: Mapping[str, Any]) -> str:
    """The grading reason; for promptfoo's generic "All assertions passed", its assertions' own reasons."""
    reason = str(grading.get("reason") or "")
    if reason and reason != "All assertions passed":
        return reason
    parts = [str(c.get("reason")) for c in grading.get("componentResults") or [] if isinstance(c, dict) and c.get("reason")]
    return "; ".join(parts) or reason


def _clip_sha256(row: Mapping[str, Any]) -> str | None:
    response = row.get("response") if isinstance(row.get("response"), dict) else {}
    meta = response.get("metadata") if isinstance(response.get("metadata"), dict) else {}
    clip = meta.get("clip") if isinstance(meta.get("clip"), dict) else {}
    return str(clip["sha256"]) if clip.get("sha256") else None


def _not_judged_reason(row: Mapping[str, Any], nodes: list[Mapping[str, Any]]) -> str | None:
    """Why this row was not judged (None when every assertion judged); ``nodes``: its grading nodes."""
    for node in nodes:
        reason = str(node.get("reason") or "")
        meta = node.get("metadata") if isinstance(node.get("metadata"), dict) else {}
        if meta.get("error_kind") or meta.get("judged") is False or _NOT_JUDGED.search(reason):
            return reason or f"did not judge ({meta.get('error_kind') or 'not fully judged'})"
        if node.get("pass") is False and any(marker in reason for marker in _CRASH_MARKERS):
            return f"assertion crashed: {reason.strip().splitlines()[-1] if reason.strip() else reason}"
    if row.get("failureReason") == _FAILURE_ERROR or (row.get("error") and not nodes):
        return f"error: {str(row.get('error') or 'promptfoo reported an error')[:500]}"
    return None


def _grading_nodes(node: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """A grading result and all its nested componentResults."""
    if not node:
        return
    yield node
    for child in node.get("componentResults") or []:
        if isinstance(child, dict):
            yield from _grading_nodes(child)


def _metric_reasons(nodes: list[Mapping[str, Any]]) -> Iterator[tuple[str, str]]:
    """(metric, reason) of each component that names a metric and of each named part of a judge's
    ``metadata.breakdown``, innermost last (so it wins)."""
    for node in nodes:
        assertion = node.get("assertion") if isinstance(node.get("assertion"), dict) else {}
        metric = assertion.get("metric")
        if metric and node.get("reason"):
            yield str(metric), str(node["reason"])
        meta = node.get("metadata") if isinstance(node.get("metadata"), dict) else {}
        breakdown = meta.get(BREAKDOWN_KEY)
        if isinstance(breakdown, dict):
            yield from ((str(part), f"{part}: {reason}") for part, reason in breakdown.items())


def _short_vars(vars_: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={str(v)[:40]}" for k, v in list(vars_.items())[:2])


def _tags(metadata: Mapping[str, Any]) -> tuple[str, ...]:
    raw = metadata.get("tags", metadata.get("tag"))
    if raw is None:
        return ()
    if isinstance(raw, str):
        return tuple(t.strip() for t in raw.split(";") if t.strip())
    return tuple(str(t) for t in raw)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value
