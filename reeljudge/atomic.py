"""Atomic file writes: the one way reeljudge puts a file in place.

A file is written to a temporary name in its target folder, flushed to disk, and moved over the
target with ``os.replace``; readers (other processes, a later run after a crash) see the old file
or the new one, never a torn one.
"""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

TEMP_PREFIX = ".tmp-"


@contextmanager
def atomic_path(target: str | os.PathLike[str], *, suffix: str = "", sync: bool = True) -> Iterator[Path]:
    """A temporary path beside ``target``; when the block ends without error the file there
    is synced (unless ``sync`` is False) and moved onto ``target``, else it is removed.

    ``sync=False`` still never leaves a torn file after a crashed process; only a power loss may
    lose the latest writes. For state that can be rebuilt, or that the caller syncs in bulk
    (``sync_all``) before relying on it."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    import tempfile  # here: tempfile imports shutil and random, which a cache hit (a read) never needs

    handle, name = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=suffix, dir=target.parent)
    os.close(handle)
    tmp = Path(name)
    moved = False
    try:
        yield tmp
        if sync:
            with open(tmp, "rb+") as fh:
                os.fsync(fh.fileno())
        os.replace(tmp, target)
        moved = True
    finally:
        if not moved:
            tmp.unlink(missing_ok=True)


def write_bytes(target: str | os.PathLike[str], data: bytes, *, sync: bool = True) -> None:
    """Put ``data`` at ``target`` atomically (``sync``: see ``atomic_path``)."""
    with atomic_path(target, sync=sync) as tmp:
        tmp.write_bytes(data)


def write_json(target: str | os.PathLike[str], value: Any, *, sync: bool = True, **dump_args: Any) -> None:
    """Put ``value`` as JSON (UTF-8) at ``target`` atomically (``sync``: see ``atomic_path``)."""
    write_bytes(target, json.dumps(value, ensure_ascii=False, **dump_args).encode("utf-8"), sync=sync)


def sync_all() -> None:
    """Flush every file written so far to disk (one ``sync`` for many ``sync=False`` writes)."""
    os.sync()


def move(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
    """Move a finished file (already synced, e.g. by ``atomic_path``) onto ``target`` in the same folder."""
    os.replace(source, target)
