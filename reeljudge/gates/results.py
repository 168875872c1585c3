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
from reeljudge.identity import canonical_identity, is_deterministic, recorded_identity
from reeljudge.promptfoo.results import BREAKDOWN_KEY
from reeljudge.promptfoo.results_file import Grading, ResultRow, RunFacts, read_results_document, result_rows

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
    return parse_results(read_results_document(path), str(path))


def parse_results(data: Any, name: str = "results") -> ResultsFile:
    """The cells of already-parsed results JSON (what a results file is: ``results_file.document_rows``)."""
    cells = [_cell(row, i) for i, row in enumerate(result_rows(data, name))]
    if not cells:
        raise CannotCompare(f"{name}: the results file holds no test results")
    run = RunFacts.of(data)
    return ResultsFile(path=name, cells=cells, promptfoo_version=run.promptfoo_version, description=run.description,
                       eval_id=run.eval_id)


def _cell(row: ResultRow, index: int) -> Cell:
    """One row as a Cell (vars from the row, else from its test case)."""
    prompt_name = row.prompt_label or str(row.prompt_index)
    test_index = row.test_index if row.test_index is not None else index
    description = str(row.description or _short_vars(row.vars) or f"test #{test_index}")
    nodes = row.gradings()
    unjudged = _not_judged_reason(row, nodes)
    judging = _judging(nodes)
    named = {k: float(v) for k, v in row.named_scores.items() if _is_number(v)}
    score = float(row.score) if _is_number(row.score) else None
    metadata = row.test_metadata
    return Cell(
        key=(row.provider, prompt_name, description, json.dumps(dict(row.vars), sort_keys=True, default=str)),
        description=description,
        provider=row.provider,
        prompt=prompt_name,
        success=row.success and unjudged is None,
        score=score,
        named=named,
        judged=unjudged is None,
        reason=unjudged or (_reason(row.grading) if row.grading else "") or row.error,
        metric_reasons=dict(_metric_reasons(nodes)),
        tags=_tags(metadata),
        family=str(metadata["family"]) if metadata.get("family") is not None else None,
        vars=dict(row.vars),
        clip_sha256=_clip_sha256(row),
        judges=judging[0],
        deterministic=judging[1],
    )


def judge_identities(grading: Mapping[str, Any]) -> tuple[str, ...]:
    """Each distinct ``metadata.judge_identity`` of a grading result (canonical JSON, without the
    per-answer ``deterministic`` flag), sorted."""
    found = Grading.of(grading)
    return _judging(list(found.nodes()) if found else [])[0]


def _judging(nodes: list[Grading]) -> tuple[tuple[str, ...], bool]:
    """Who judged (``judge_identities``) and whether every answer was offline or from the cache.
    Without a recorded identity: deterministic unless a promptfoo model-graded assertion graded it."""
    found, deterministic, recorded = set(), True, False
    for node in nodes:
        identity = recorded_identity(node.metadata)
        if identity is not None:
            recorded = True
            deterministic = deterministic and is_deterministic(identity)
            found.add(canonical_identity(identity))
    if not recorded:
        types = {n.assertion_type for n in nodes}
        deterministic = not any(t in _MODEL_GRADED or t.startswith("model-graded") for t in types)
    return tuple(sorted(found)), deterministic


def _reason(grading: Grading) -> str:
    """The grading reason; for promptfoo's generic "All assertions passed", its assertions' own reasons."""
    if grading.reason and grading.reason != "All assertions passed":
        return grading.reason
    return "; ".join(c.reason for c in grading.components if c.reason) or grading.reason


def _clip_sha256(row: ResultRow) -> str | None:
    clip = row.response_metadata.get("clip")
    return str(clip["sha256"]) if isinstance(clip, dict) and clip.get("sha256") else None


def _not_judged_reason(row: ResultRow, nodes: list[Grading]) -> str | None:
    """Why this row was not judged (None when every assertion judged); ``nodes``: its grading nodes."""
    for node in nodes:
        reason, meta = node.reason, node.metadata
        if meta.get("error_kind") or meta.get("judged") is False or _NOT_JUDGED.search(reason):
            return reason or f"did not judge ({meta.get('error_kind') or 'not fully judged'})"
        if node.passed is False and any(marker in reason for marker in _CRASH_MARKERS):
            return f"assertion crashed: {reason.strip().splitlines()[-1] if reason.strip() else reason}"
    if row.failed_with_error or (row.error and not nodes):
        return f"error: {(row.error or 'promptfoo reported an error')[:500]}"
    return None


def _metric_reasons(nodes: list[Grading]) -> Iterator[tuple[str, str]]:
    """(metric, reason) of each component that names a metric and of each named part of a judge's
    ``metadata.breakdown``, innermost last (so it wins)."""
    for node in nodes:
        if node.metric and node.reason:
            yield node.metric, node.reason
        breakdown = node.metadata.get(BREAKDOWN_KEY)
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
