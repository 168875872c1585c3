"""The offline filmability judge in bulk: a narrations file judged in parallel processes, to JSONL.

``judge_file("narrations.yaml", "filmability.jsonl")`` reads narrations with their search terms
(or makes terms with an offline generator), judges each with the same local judge and scoring
table as the ``filmability`` assertion (:func:`~reeljudge.filmability.local_judge.judge_terms_locally`,
:func:`~reeljudge.filmability.score_table.score_breakdown`), and appends one record per narration.
The embedding model loads once in each worker process, not once per narration. Re-running with
the same output skips narrations already judged with the same terms, options and judge code.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from reeljudge.errors import BadInputError, ReelJudgeError
from reeljudge.filmability.assertion import FilmabilityOptions
from reeljudge.filmability.bulk_rows import NarrationRow, read_rows
from reeljudge.library.engines import LocalEngine, WorkerDied
from reeljudge.library.jsonl import OpenResults, open_results
from reeljudge.library.run import Job, RunStats, run_items

RECORD_KIND = "filmability"
BACKEND = "minilm"  # the local judge's default embedding backend (LocalJudgeOptions.backend)
_PACKAGE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class BulkContext:
    """What each worker needs once per run."""

    options: FilmabilityOptions
    judge_code: str
    details: bool = False


def judge_code_hash() -> str:
    """A fingerprint of the filmability package's code and data: a changed judge is never taken as done."""
    digest = hashlib.sha256()
    files = sorted(_PACKAGE.glob("*.py")) + sorted(p for p in (_PACKAGE / "data").rglob("*") if p.is_file())
    for path in files:
        if path.name not in ("bulk.py", "bulk_rows.py", "bulk_cli.py"):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def row_key(row: NarrationRow, ctx: BulkContext) -> str:
    """The key a judged narration is recorded (and skipped) under: narration, terms, threshold, judge code."""
    payload = [row.narration, list(row.terms), ctx.options.threshold, ctx.judge_code]
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode()).hexdigest()[:32]


def warm_up() -> None:
    """Load the embedding model and the concreteness norms in this worker process (once)."""
    from reeljudge.filmability.embeddings import get_embedder
    from reeljudge.filmability.lexicon import term_concreteness

    get_embedder(BACKEND)
    term_concreteness("server room")


def judge_row(row: NarrationRow, ctx: BulkContext) -> dict[str, Any]:
    """Judge one narration's terms with the local judge and our scoring table; its JSONL record."""
    from reeljudge.filmability.embeddings import get_embedder
    from reeljudge.filmability.local_judge import judge_terms_locally
    from reeljudge.filmability.score_table import score_breakdown

    started = time.perf_counter()
    local = judge_terms_locally(row.narration, list(row.terms))
    b = local.breakdown
    rubric = score_breakdown(b)
    record = base_record(row, ctx)
    record.update(
        status="ok",
        score=rubric.score,
        passed=rubric.score >= ctx.options.threshold,
        points=rubric.points,
        level=rubric.level,
        capped=rubric.capped,
        breakdown={"relevance": b.relevance, "filmability": b.filmability, "variety": b.variety},
        unfilmable_terms=[t for t in b.unfilmable_terms if t],
        reason=b.reason,
        criterion_reasons=dict(b.criterion_reasons),
        timings={"judge_s": round(time.perf_counter() - started, 4)},
        worker_pid=os.getpid(),
        model_instance=f"{os.getpid()}:{id(get_embedder(BACKEND)):x}",
    )
    if ctx.details:
        record["details"] = local.details
    return record


def base_record(row: NarrationRow, ctx: BulkContext) -> dict[str, Any]:
    """The fields every record of a narration carries."""
    return {
        "kind": RECORD_KIND, "ref": row.ref, "id": row.id, "narration": row.narration, "terms": list(row.terms),
        "terms_source": row.terms_source, "key": row_key(row, ctx), "threshold": ctx.options.threshold, "judge_code": ctx.judge_code,
    }


def error_record(row: NarrationRow, ctx: BulkContext, kind: str, message: str) -> dict[str, Any]:
    """The record of a narration that could not be judged."""
    record = base_record(row, ctx)
    if row.problem is not None:  # no usable terms: keyed by the row, not by terms it does not have
        record["key"] = "error-" + hashlib.sha256(json.dumps([row.ref, row.narration, row.problem]).encode()).hexdigest()[:26]
    record.update(status="error", error={"kind": kind, "message": message})
    return record


def judge_file(
    source: str | Path,
    output: str | Path,
    *,
    generator: str | None = None,
    options: FilmabilityOptions | None = None,
    engine: Any = None,
    details: bool = False,
    retry_errors: bool = False,
    progress: bool = False,
) -> tuple[list[dict[str, Any]], RunStats]:
    """Judge every narration of ``source`` into the JSONL ``output``; its latest records and the run's counts."""
    options = options or FilmabilityOptions()
    rows = read_rows(source, generator=generator, options=options)
    with open_results(output) as out:
        stats = judge_rows(rows, out, engine or LocalEngine(), options=options, details=details, retry_errors=retry_errors, progress=progress)
        return latest_records(out.records, rows, judge_code_hash()), stats


def judge_rows(
    rows: Sequence[NarrationRow], out: OpenResults, engine: Any, *, options: FilmabilityOptions,
    details: bool = False, retry_errors: bool = False, progress: bool = True,
) -> RunStats:
    """Judge ``rows`` on ``engine`` into ``out``; rows without usable terms are recorded as errors."""
    ctx = BulkContext(options, judge_code_hash(), details)
    if retry_errors:
        out.rewrite(lambda r: not (r.get("kind") == RECORD_KIND and r.get("status") == "error"))
    written = {r.get("key") for r in out.records}
    for row in rows:
        if row.problem is not None:
            record = error_record(row, ctx, "bad_input", row.problem)
            if record["key"] not in written:
                out.append(record)
                written.add(record["key"])
    job = Job(
        fn=_judge_or_fail,
        ref=lambda row: row.ref,
        upfront_keys=lambda row: [row_key(row, ctx)],
        crash_record=lambda row, exc: error_record(row, ctx, "worker_died" if isinstance(exc, WorkerDied) else "internal_error", f"{type(exc).__name__}: {exc}"),
        make_context=lambda done: ctx,
        unit="narration",
        init=warm_up,
    )
    return run_items([r for r in rows if r.problem is None], job, out, engine, progress=progress)


def _judge_or_fail(row: NarrationRow, ctx: BulkContext) -> dict[str, Any]:
    """``judge_row``, or an error record naming what stopped the judge (e.g. the model is not installed)."""
    try:
        return judge_row(row, ctx)
    except ReelJudgeError as error:
        return error_record(row, ctx, error.kind, error.message)


def latest_records(records: Sequence[dict[str, Any]], rows: Sequence[NarrationRow], judge_code: str) -> list[dict[str, Any]]:
    """The latest filmability record of each row of this run (by reference), in the rows' order."""
    refs = {row.ref for row in rows}
    latest = {r["ref"]: r for r in records if r.get("kind") == RECORD_KIND and r.get("ref") in refs and r.get("judge_code") == judge_code}
    return [latest[row.ref] for row in rows if row.ref in latest]


__all__ = ["BadInputError", "BulkContext", "judge_file", "judge_row", "judge_rows", "latest_records", "read_rows"]
