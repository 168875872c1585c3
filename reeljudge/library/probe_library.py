"""The probes over a clip library: the Python face of ``reeljudge probes``.

``probe_library_file("clips/", "probes.jsonl")`` probes every clip of a folder or manifest in a
local process pool (or on the engine given), appends one JSONL record per clip, skips clips
already recorded, and returns the summary and the run's counts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from reeljudge.library.engines import LocalEngine, WorkerDied
from reeljudge.library.jsonl import OpenResults, open_results
from reeljudge.library.manifest import BadEntry, ClipItem, read_library
from reeljudge.library.probe_job import ProbeContext, error_key, error_record, make_context, probe_item
from reeljudge.library.run import Job, RunStats, run_items
from reeljudge.library.summary import LibrarySummary, summarise
from reeljudge.probes.options import ProbeOptions
from reeljudge.retry import RetryPolicy


def probe_library_file(
    source: str | Path,
    output: str | Path,
    *,
    options: ProbeOptions | None = None,
    engine: Any = None,
    cache_dir: str | None = None,
    progress: bool = False,
    download_policy: RetryPolicy | None = None,
) -> tuple[LibrarySummary, RunStats]:
    """Probe the clips ``source`` names (folder, clip or manifest) into the JSONL ``output``."""
    from reeljudge.cache import default_cache_dir, downloads_dir

    items, bad, _ = read_library(source)
    with open_results(output) as out:
        return probe_library(
            items, bad, options or ProbeOptions(), out, engine or LocalEngine(),
            cache_dir=cache_dir or str(downloads_dir(default_cache_dir())), progress=progress,
            download_policy=download_policy,
        )


def probe_library(
    items: Sequence[ClipItem],
    bad: Sequence[BadEntry],
    options: ProbeOptions,
    out: OpenResults,
    engine: Any,
    *,
    cache_dir: str,
    retry_errors: bool = False,
    progress: bool = True,
    download_policy: RetryPolicy | None = None,
) -> tuple[LibrarySummary, RunStats]:
    """Probe ``items`` on ``engine`` into ``out``; bad manifest entries are recorded as errors."""
    base = make_context(options, cache_dir)
    if retry_errors:
        out.rewrite(lambda r: not (r.get("status") == "error" and r.get("options_hash") == base.options_hash))
    _record_bad_entries(bad, base, out)

    def context(done: frozenset[str]) -> ProbeContext:
        return ProbeContext(options, base.options_hash, base.code_hash, cache_dir, done, download_policy)

    job = Job(
        fn=probe_item,
        ref=lambda item: item.ref,
        upfront_keys=lambda item: [error_key(item.ref, base.options_hash, base.code_hash, item.prompt)],
        crash_record=lambda item, exc: _crash_record(item, exc, base),
        make_context=context,
        unit="clip",
    )
    stats = run_items(items, job, out, engine, progress=progress)
    refs = {item.ref for item in items} | {entry.ref for entry in bad}
    return summarise(out.records, refs, options.probes, base.options_hash, base.code_hash), stats


def _record_bad_entries(bad: Sequence[BadEntry], ctx: ProbeContext, out: OpenResults) -> None:
    """An error record for each manifest entry that names no clip (once: skipped when already there)."""
    written = {r.get("key") for r in out.records}
    for entry in bad:
        record = error_record(ClipItem(ref=entry.ref, location="", origin=entry.origin), ctx, "bad_input",
                              f"{entry.origin}: {entry.message}")
        if record["key"] not in written:
            out.append(record)


def _crash_record(item: ClipItem, error: BaseException, ctx: ProbeContext) -> dict[str, Any]:
    """The error record of a clip whose worker died or raised something unexpected."""
    if isinstance(error, WorkerDied):
        return error_record(item, ctx, "worker_died", str(error))
    return error_record(item, ctx, "internal_error", f"{type(error).__name__}: {error}".replace(item.location, item.ref))
