"""The resumable bulk loop shared by ``reeljudge probes`` and ``reeljudge filmability bulk``.

Items whose key is already in the output are skipped before they are sent to a worker (when the
key can be known up front) or by the worker (when it needs the content hash); every other item's
record is appended to the JSONL output as soon as it comes back, once per key: a record whose key
is already written (the same content under two names, a job run twice) is not written again.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from reeljudge.library.engines import WorkerFn
from reeljudge.library.jsonl import OpenResults


@dataclass
class RunStats:
    """What one run did."""

    items: int = 0
    sent: int = 0  # items sent to a worker
    written: int = 0
    done_before: int = 0  # items whose key was already in the output (found up front or by a worker)
    errors: int = 0  # error records written by this run
    duplicates: list[tuple[str, str]] = field(default_factory=list)  # (ref, ref already written with the same key)
    elapsed_s: float = 0.0
    engine: str = ""

    @property
    def rate(self) -> float:
        """Items sent to workers per second of the run."""
        return self.sent / self.elapsed_s if self.elapsed_s > 0 else 0.0


@dataclass(frozen=True)
class Job:
    """How to run one kind of item: the worker function and how to name, key and fail an item."""

    fn: WorkerFn
    ref: Callable[[Any], str]  # an item's reference, for records and messages
    upfront_keys: Callable[[Any], Sequence[str]]  # keys that mark an item done before any work
    crash_record: Callable[[Any, BaseException], dict[str, Any]]  # the record of an item whose worker failed
    make_context: Callable[[frozenset[str]], Any]  # the shared worker context, given the keys already done
    unit: str = "item"
    init: Callable[[], None] | None = None  # warm-up run once in each worker process


def run_items(items: Sequence[Any], job: Job, out: OpenResults, engine: Any, *, progress: bool = True) -> RunStats:
    """Run every item not yet done through ``engine``, appending one record per new key to ``out``."""
    started = time.perf_counter()
    stats = RunStats(items=len(items), engine=engine.describe())
    written: dict[str, str] = {r["key"]: str(r.get("ref", "")) for r in out.records if isinstance(r.get("key"), str)}
    todo: list[Any] = []
    queued: dict[str, str] = {}  # upfront key -> the reference of the item queued under it
    for item in items:
        keys = job.upfront_keys(item)
        if any(k in written for k in keys):
            stats.done_before += 1
        elif any(k in queued for k in keys):  # the same work under another name: done once
            stats.duplicates.append((job.ref(item), next(queued[k] for k in keys if k in queued)))
        else:
            todo.append(item)
            queued.update((k, job.ref(item)) for k in keys)
    stats.sent = len(todo)
    bar = _progress(len(items), stats.done_before, job.unit, progress)
    try:
        if todo:
            for index, outcome in engine.run(job.fn, todo, job.make_context(frozenset(written)), job.init):
                item = todo[index]
                record = outcome if isinstance(outcome, dict) else job.crash_record(item, outcome)
                _take(record, job.ref(item), out, written, stats)
                bar.update(1)
                bar.set_postfix(errors=stats.errors, refresh=False)
    finally:
        bar.close()
        stats.elapsed_s = time.perf_counter() - started
    return stats


def _take(record: dict[str, Any], ref: str, out: OpenResults, written: dict[str, str], stats: RunStats) -> None:
    """Append a worker's record unless its key is already written; count what happened."""
    key = record.get("key")
    if record.get("status") == "skipped":
        stats.done_before += 1
        return
    if key in written:
        stats.duplicates.append((ref, written[key]))
        return
    out.append(record)
    written[str(key)] = ref
    stats.written += 1
    stats.errors += record.get("status") == "error"


def _progress(total: int, initial: int, unit: str, enabled: bool) -> Any:
    """A tqdm progress bar on stderr (a silent stand-in when disabled)."""
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit=unit, disable=not enabled, file=sys.stderr, dynamic_ncols=True, smoothing=0.1)
