"""The offline filmability judge in bulk: a narrations file judged in parallel processes, to JSONL.

``judge_narrations_file("narrations.yaml", "filmability.jsonl")`` reads narrations with their search terms
(or makes terms with an offline generator), judges each through the same call as the
``filmability`` assertion with ``judge: local`` (:func:`reeljudge.filmability.judge.judge`: the
offline judge, its cache, our scoring table; the verdict's own reason), and appends one record per
narration. The embedding model loads once in each worker process, not once per narration. Re-running with the same output skips
narrations already
judged with the same terms, threshold and offline-judge version.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from reeljudge.errors import ReelJudgeError
from reeljudge.filmability.bulk_rows import NarrationRow, read_rows
from reeljudge.filmability.local_version import LOCAL_JUDGE_VERSION, SOURCES_SHA256
from reeljudge.filmability.options import FilmabilityOptions, load
from reeljudge.gemini.settings import JudgeSettings
from reeljudge.library.engines import LocalEngine, WorkerDied
from reeljudge.library.jsonl import OpenResults, open_results
from reeljudge.library.run import Job, RunStats, run_items

RECORD_KIND = "filmability"
BACKEND = "minilm"  # the offline judge's embedding backend (LocalJudgeOptions.backend)
JUDGE_VERSION = f"{LOCAL_JUDGE_VERSION}-{SOURCES_SHA256}"


@dataclass(frozen=True)
class BulkContext:
    """What each worker needs once per run: the judge's options (``judge: local``) and settings."""

    options: FilmabilityOptions
    settings: JudgeSettings
    details: bool = False


def bulk_options(config: Mapping[str, Any] | None = None) -> tuple[FilmabilityOptions, JudgeSettings]:
    """The filmability options and settings for a bulk run: the assertion's loader, the offline judge,
    no stock-footage searches (findability off: a bulk run stays offline)."""
    return load({**(config or {}), "judge": "local", "findability": "off"})


def row_key(row: NarrationRow, ctx: BulkContext) -> str:
    """The key a judged narration is recorded (and skipped) under: narration, terms, threshold, minimum
    relevance, judge version."""
    payload = [row.narration, list(row.terms), ctx.options.threshold, ctx.options.min_relevance, JUDGE_VERSION]
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode()).hexdigest()[:32]


def warm_up() -> None:
    """Load the embedding model, the norms and the lemmatiser in this worker process (once), by one judgement."""
    from reeljudge.filmability.judge_local import judge_terms_locally

    judge_terms_locally("Servers hum in the data center", ["server room"])


def judge_row(row: NarrationRow, ctx: BulkContext) -> dict[str, Any]:
    """Judge one narration's terms exactly as the assertion does with the offline judge; its JSONL record."""
    from reeljudge.filmability.embeddings import get_embedder
    from reeljudge.filmability.judge import judge

    started = time.perf_counter()
    verdict = judge(row.narration, list(row.terms), ctx.options, ctx.settings)
    b = verdict.breakdown
    record = base_record(row, ctx)
    record.update(
        status="ok",
        score=verdict.score,
        passed=verdict.passed,
        points=verdict.table.points,
        level=verdict.table.level,
        capped=verdict.table.capped,
        breakdown={"relevance": b.relevance, "filmability": b.filmability, "variety": b.variety},
        unfilmable_terms=verdict.unfilmable_terms,
        reason=verdict.reason(),
        judge_reason=b.reason,
        criterion_reasons=dict(b.criterion_reasons),
        cache_hit=bool(verdict.record.get("cache_hit")),
        timings={"judge_s": round(time.perf_counter() - started, 4)},
        worker_pid=os.getpid(),
        model_instance=f"{os.getpid()}:{id(get_embedder(BACKEND)):x}",
    )
    if ctx.details:
        record["details"] = verdict.record.get("local_details", {})
    return record


def base_record(row: NarrationRow, ctx: BulkContext) -> dict[str, Any]:
    """The fields every record of a narration carries."""
    return {
        "kind": RECORD_KIND, "ref": row.ref, "id": row.id, "narration": row.narration, "terms": list(row.terms),
        "terms_source": row.terms_source, "key": row_key(row, ctx), "threshold": ctx.options.threshold,
        "judge_version": JUDGE_VERSION,
    }


def error_record(row: NarrationRow, ctx: BulkContext, kind: str, message: str) -> dict[str, Any]:
    """The record of a narration that could not be judged."""
    record = base_record(row, ctx)
    if row.problem is not None:  # no usable terms: keyed by the row, not by terms it does not have
        record["key"] = "error-" + hashlib.sha256(json.dumps([row.ref, row.narration, row.problem]).encode()).hexdigest()[:26]
    record.update(status="error", error={"kind": kind, "message": message})
    return record


def judge_narrations_file(
    source: str | Path,
    output: str | Path,
    *,
    generator: str | None = None,
    config: Mapping[str, Any] | None = None,
    engine: Any = None,
    details: bool = False,
    retry_errors: bool = False,
    progress: bool = False,
) -> tuple[list[dict[str, Any]], RunStats]:
    """Judge every narration of ``source`` into the JSONL ``output``; its latest records and the run's counts.

    ``config`` takes the filmability assertion's options and settings (``threshold``, ``cache``…).
    """
    options, settings = bulk_options(config)
    rows = read_rows(source, generator=generator, options=options)
    with open_results(output) as out:
        stats = judge_rows(rows, out, engine or LocalEngine(), options=options, settings=settings,
                           details=details, retry_errors=retry_errors, progress=progress)
        return latest_records(out.records, rows), stats


def judge_rows(
    rows: Sequence[NarrationRow], out: OpenResults, engine: Any, *, options: FilmabilityOptions, settings: JudgeSettings,
    details: bool = False, retry_errors: bool = False, progress: bool = True,
) -> RunStats:
    """Judge ``rows`` on ``engine`` into ``out``; rows without usable terms are recorded as errors."""
    ctx = BulkContext(options, settings, details)
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
        crash_record=lambda row,
        exc: error_record(row, ctx, "worker_died" if isinstance(exc, WorkerDied) else "internal_error",
                          f"{type(exc).__name__}: {exc}"),
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


def latest_records(records: Sequence[dict[str, Any]], rows: Sequence[NarrationRow]) -> list[dict[str, Any]]:
    """The latest filmability record of each row of this run (by reference, this judge version), in the rows' order."""
    refs = {row.ref for row in rows}
    latest = {r["ref"]: r for r in records if r.get("kind") == RECORD_KIND and r.get("ref") in refs and r.get("judge_version")
              == JUDGE_VERSION}
    return [latest[row.ref] for row in rows if row.ref in latest]


__all__ = ["BulkContext", "bulk_options", "judge_narrations_file", "judge_row", "judge_rows", "latest_records", "read_rows"]
