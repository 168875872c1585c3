"""Append-only JSONL results that survive a kill: one ``write`` + ``fsync`` per line, a lock per file.

A run opens its output with :func:`open_results`, which takes an exclusive lock (a second run on
the same file is refused, not interleaved), cuts off a torn last line left by a killed writer, and
returns the records already there, so the caller can skip what is done. Each record is then
written as one complete line with a single ``os.write`` on an ``O_APPEND`` descriptor followed by
``fsync``: after a crash the file holds whole lines plus at most one torn tail, never a line twice.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from reeljudge.atomic import atomic_path
from reeljudge.errors import BadInputError


@dataclass
class OpenResults:
    """An output file opened for appending, with what it already held."""

    path: Path
    records: list[dict[str, Any]]
    repaired_bytes: int = 0  # size of a torn last line that was cut off
    skipped_lines: list[int] = field(default_factory=list)  # 1-based numbers of unreadable lines kept as they were
    _fd: int = -1

    def append(self, record: dict[str, Any]) -> None:
        """Write one record as one line, durably (fsync) and in one write call; it joins ``records``."""
        data = (json.dumps(record, ensure_ascii=False, sort_keys=True, allow_nan=False) + "\n").encode("utf-8")
        written = os.write(self._fd, data)
        while written < len(data):  # regular files take the whole buffer; be safe on odd filesystems
            written += os.write(self._fd, data[written:])
        os.fsync(self._fd)
        self.records.append(record)

    def rewrite(self, keep: Callable[[dict[str, Any]], bool]) -> int:
        """Atomically replace the file with only the records ``keep`` accepts; returns how many were dropped."""
        kept = [r for r in self.records if keep(r)]
        with atomic_path(self.path) as tmp, open(tmp, "w", encoding="utf-8") as out:
            for record in kept:
                out.write(json.dumps(record, ensure_ascii=False, sort_keys=True, allow_nan=False) + "\n")
        os.close(self._fd)
        self._fd = _open_locked(self.path)
        dropped = len(self.records) - len(kept)
        self.records = kept
        return dropped

    def close(self) -> None:
        """Release the lock and close the file."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> "OpenResults":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _open_locked(path: Path) -> int:
    """An O_APPEND descriptor on ``path`` holding an exclusive lock; BadInputError if another run holds it."""
    import fcntl

    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise BadInputError(f"{path}: another run is writing to this output file (it is locked); "
                            "wait for it or pick another -o") from None
    return fd


def open_results(path: str | os.PathLike[str]) -> OpenResults:
    """Open (or create) a JSONL output for appending: locked, torn tail cut off, existing records read."""
    path = Path(path)
    if path.is_dir():
        raise BadInputError(f"{path}: output must be a file, not a folder")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = _open_locked(path)
    try:
        raw = path.read_bytes()
        cut = 0
        if raw and not raw.endswith(b"\n"):
            keep = raw.rfind(b"\n") + 1
            cut = len(raw) - keep
            os.truncate(path, keep)
            os.fsync(fd)
            raw = raw[:keep]
        records, bad = _parse(raw.splitlines())
    except BaseException:
        os.close(fd)
        raise
    return OpenResults(path=path, records=records, repaired_bytes=cut, skipped_lines=bad, _fd=fd)


def _parse(lines: Iterable[bytes]) -> tuple[list[dict[str, Any]], list[int]]:
    """The JSON objects among ``lines`` and the 1-based numbers of lines that are not one."""
    records: list[dict[str, Any]] = []
    bad: list[int] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError:
            bad.append(number)
            continue
        if isinstance(value, dict):
            records.append(value)
        else:
            bad.append(number)
    return records, bad


def read_results(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The complete records of a JSONL output (a torn last line is ignored, not repaired)."""
    raw = Path(path).read_bytes()
    if raw and not raw.endswith(b"\n"):
        raw = raw[: raw.rfind(b"\n") + 1]
    return _parse(raw.splitlines())[0]
