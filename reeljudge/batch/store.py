"""The batch folder inside the judge cache: planned requests and submissions, one small JSON file each.

Layout under ``<cache_dir>/batch/``:

- ``planned/<k2>/<key>.json`` — one planned request per judge cache key (``plan.py`` writes it; it
  stays until its reply is in the cache, so an item that failed is still there to send again);
- ``jobs/<id>.json`` — one submission: model, source (inline or file), the Batch API job name, its
  state, whether it was collected; ``jobs/<id>.keys`` — its cache keys, one a line, in request order.

Everything is read and written one file at a time (never a list of every request in memory), and
written atomically, so a command killed at any point leaves files that the next command can read.
This folder is work in progress, not a cache: do not commit it with a replay cache.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from pathlib import Path
from typing import Any, Iterable, Iterator

from reeljudge.atomic import TEMP_PREFIX, atomic_path, write_json

STORE_FORMAT = 1
FINAL_STATES = frozenset({"JOB_STATE_SUCCEEDED", "JOB_STATE_FAILED", "JOB_STATE_CANCELLED", "JOB_STATE_EXPIRED",
                          "JOB_STATE_PARTIALLY_SUCCEEDED"})


class BatchStore:
    """The plan store and submission records of one judge cache folder."""

    def __init__(self, cache_dir: str | os.PathLike[str]) -> None:
        self.root = Path(cache_dir) / "batch"
        self.planned_dir = self.root / "planned"
        self.jobs_dir = self.root / "jobs"

    # planned requests
    def planned_path(self, key: str) -> Path:
        """Where the planned request for ``key`` lives."""
        return self.planned_dir / key[:2] / f"{key}.json"

    def read_planned(self, key: str) -> dict[str, Any] | None:
        """The planned request for ``key``, or None (also for a file that cannot be read)."""
        return _read(self.planned_path(key))

    def write_planned(self, record: dict[str, Any]) -> None:
        """Store (or replace) a planned request, atomically (not synced: a lost plan is planned again by the next eval)."""
        write_json(self.planned_path(record["key"]), {"format": STORE_FORMAT, **record}, sync=False, sort_keys=True)

    def remove_planned(self, key: str) -> None:
        """Forget a planned request (its reply is in the cache)."""
        self.planned_path(key).unlink(missing_ok=True)

    def planned_keys(self) -> Iterator[str]:
        """Every planned key, streamed from the folder (no list of all of them is built)."""
        if not self.planned_dir.is_dir():
            return
        with os.scandir(self.planned_dir) as shards:
            for shard in shards:
                if not shard.is_dir():
                    continue
                with os.scandir(shard.path) as files:
                    for entry in files:
                        if entry.name.endswith(".json") and not entry.name.startswith(TEMP_PREFIX):
                            yield entry.name[: -len(".json")]

    def planned(self) -> Iterator[dict[str, Any]]:
        """Every readable planned request, one at a time."""
        for key in self.planned_keys():
            record = self.read_planned(key)
            if record is not None:
                yield record

    # submissions
    def new_submission(self, model: str, source: str, keys: Iterable[str]) -> dict[str, Any]:
        """A new submission record (state ``creating``) with its keys written first."""
        sid = time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + "-" + secrets.token_hex(3)
        count = 0
        with atomic_path(self.jobs_dir / f"{sid}.keys") as tmp, open(tmp, "w", encoding="ascii") as fh:
            for key in keys:
                fh.write(key + "\n")
                count += 1
        record = {"id": sid, "model": model, "source": source, "count": count, "display_name": f"reeljudge-{sid}",
                  "job": None, "input_file": None, "state": "creating", "collected": False, "created": time.time()}
        self.write_submission(record)
        return record

    def write_submission(self, record: dict[str, Any]) -> None:
        """Store a submission record, atomically."""
        write_json(self.jobs_dir / f"{record['id']}.json", {"format": STORE_FORMAT, **record}, sort_keys=True, indent=1)

    def read_submission(self, sid: str) -> dict[str, Any] | None:
        """The submission ``sid`` (its id, or its job name ``batches/…``), or None."""
        record = _read(self.jobs_dir / f"{sid}.json")
        if record is not None:
            return record
        return next((s for s in self.submissions() if s.get("job") == sid), None)

    def submissions(self) -> list[dict[str, Any]]:
        """Every submission record, oldest first."""
        if not self.jobs_dir.is_dir():
            return []
        found = (_read(p) for p in sorted(self.jobs_dir.glob("*.json")) if not p.name.startswith(TEMP_PREFIX))
        return [r for r in found if r is not None]

    def keys_of(self, sid: str) -> Iterator[str]:
        """The cache keys of submission ``sid``, in request order, streamed."""
        path = self.jobs_dir / f"{sid}.keys"
        if not path.exists():
            return
        with open(path, encoding="ascii") as fh:
            for line in fh:
                if line.strip():
                    yield line.strip()

    def open_submission_ids(self) -> set[str]:
        """Submissions whose items are still out: not yet collected (a failed create counts as out too)."""
        return {s["id"] for s in self.submissions() if not s.get("collected")}


def released(record: dict[str, Any], sid: str, reason: str) -> dict[str, Any]:
    """A planned record taken back from submission ``sid`` with the reason, ready to send again
    (the last five failures are kept; ``last_submission`` lets a repeated collect see it was handled)."""
    failures = [*(record.get("failures") or []), {"submission": sid, "reason": reason, "at": time.time()}][-5:]
    return {**record, "submission": None, "last_submission": sid, "failures": failures}


def _read(path: Path) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as fh:
            value = json.loads(fh.read())
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) and value.get("format") == STORE_FORMAT else None
