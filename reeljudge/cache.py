"""The judge cache: one JSON file per request key, written atomically.

Every judge request is keyed by a hash of everything that shapes the reply. An entry is written to
a temporary file in the same folder and moved into place with ``os.replace``, so concurrent
processes (promptfoo runs several assertion processes at once) and a writer killed mid-write can
never leave a half-written entry under a real key: readers see the old state or the new one.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Mapping, get_args

from reeljudge.atomic import TEMP_PREFIX, write_json
from reeljudge.errors import BadInputError, JudgeError
from reeljudge.options import load_one, option

CACHE_FORMAT = 1
DEFAULT_CACHE_DIR = ".reeljudge/cache"
#: the cache's folder of downloaded and decoded media (URLs, data: URIs, file:// vars promptfoo loaded), content-addressed
DOWNLOADS = "downloads"
_TMP_PREFIX = TEMP_PREFIX
#: readwrite: read and write; off: neither; replay: read only, a miss fails; plan: like readwrite, but
#: a judge request that misses is recorded for the Batch API instead of sent (``reeljudge.batch``)
CacheMode = Literal["readwrite", "off", "replay", "plan"]
MODES: tuple[str, ...] = get_args(CacheMode)
_WRITING_MODES = ("readwrite", "plan")


def request_key(payload: Mapping[str, Any]) -> str:
    """The sha256 of the canonical JSON of a request description."""
    blob = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CacheStats:
    """What a cache folder holds."""

    entries: int
    bytes: int
    by_kind: dict[str, int]
    orphaned_temp_files: int
    unreadable: int
    download_files: int = 0  # in ``DOWNLOADS``: media kept for judging, not judge replies
    download_bytes: int = 0


class JudgeCache:
    """A folder of cached judge replies, in mode ``readwrite``, ``off``, ``replay`` or ``plan`` (see ``MODES``)."""

    def __init__(self, root: str | os.PathLike[str], mode: str = "readwrite") -> None:
        if mode not in MODES:
            raise ValueError(f"cache mode must be one of {', '.join(MODES)}; got {mode!r}")
        self.root = Path(root)
        self.mode = mode

    def path_for(self, key: str) -> Path:
        """Where the entry for ``key`` lives."""
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored entry for ``key``, or None (always None in mode ``off``)."""
        if self.mode == "off":
            return None
        try:
            with open(self.path_for(key), "rb") as fh:
                entry = json.loads(fh.read())
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or entry.get("format") != CACHE_FORMAT or entry.get("key") != key:
            return None
        return entry

    def require(self, key: str, what: str) -> dict[str, Any] | None:
        """Like ``get``, but in ``replay`` mode a miss is a JudgeError saying how to record it."""
        entry = self.get(key)
        if entry is None and self.mode == "replay":
            raise JudgeError(
                f"cache mode is 'replay' and no cached reply exists for this {what} (key {key[:16]}…) "
                f"in {self.root.name}/; run once with credentials and cache mode 'readwrite' to record it",
                kind="cache_miss",
            )
        return entry

    def put(self, key: str, kind: str, value: Mapping[str, Any], *, sync: bool = True) -> None:
        """Store ``value`` under ``key`` atomically (a no-op unless mode is ``readwrite`` or ``plan``);
        ``sync=False`` for a writer that syncs many entries at once (``atomic.sync_all``)."""
        if self.mode not in _WRITING_MODES:
            return
        entry = {"format": CACHE_FORMAT, "key": key, "kind": kind, "created": time.time(), **value}
        write_json(self.path_for(key), entry, sync=sync, sort_keys=True)

    def is_cached(self, key: str) -> bool:
        """Whether an entry for ``key`` can be read (always False in mode ``off``)."""
        return self.get(key) is not None

    @staticmethod
    def record_key(kind: str, identity: Mapping[str, Any]) -> str:
        """The key of the record of ``kind`` for ``identity`` (e.g. an upload per content hash)."""
        return request_key({"kind": kind, **identity})

    def get_record(self, kind: str, identity: Mapping[str, Any]) -> dict[str, Any] | None:
        """The stored record of ``kind`` for ``identity``, or None."""
        return self.get(self.record_key(kind, identity))

    def put_record(self, kind: str, identity: Mapping[str, Any], value: Mapping[str, Any], *, stored_kind: str | None = None,
                   sync: bool = True) -> None:
        """Store a record of ``kind`` for ``identity`` (``stored_kind``: a different kind label for the entry;
        ``sync=False`` for a record whose loss costs only its recomputation)."""
        self.put(self.record_key(kind, identity), stored_kind or kind, value, sync=sync)

    def forget(self, key: str) -> None:
        """Remove the entry for ``key`` (readwrite and plan modes only)."""
        if self.mode in _WRITING_MODES:
            self.path_for(key).unlink(missing_ok=True)

    def entries(self, kind: str) -> list[dict[str, Any]]:
        """Every readable entry of ``kind``, oldest first (for exports and reports)."""
        found = []
        for path in self.root.glob("*/*.json") if self.root.is_dir() else []:
            try:
                entry = json.loads(path.read_bytes())
            except (OSError, ValueError):
                continue
            if isinstance(entry, dict) and entry.get("kind") == kind and entry.get("format") == CACHE_FORMAT:
                found.append(entry)
        return sorted(found, key=lambda e: e.get("created", 0))

    def stats(self) -> CacheStats:
        """Count entries, bytes, entries per kind, orphaned temp files and unreadable files."""
        entries = size = orphans = unreadable = 0
        by_kind: dict[str, int] = {}
        if self.root.is_dir():
            for path in self.root.glob("*/*"):
                if path.name.startswith(_TMP_PREFIX):
                    orphans += 1
                    continue
                if path.suffix != ".json":
                    continue
                size += path.stat().st_size
                try:
                    kind = json.loads(path.read_bytes()).get("kind", "?")
                except (OSError, ValueError, AttributeError):
                    unreadable += 1
                    continue
                entries += 1
                by_kind[kind] = by_kind.get(kind, 0) + 1
        return CacheStats(entries, size, by_kind, orphans, unreadable, *self.download_usage())

    def download_usage(self) -> tuple[int, int]:
        """How many files, and bytes, the downloads folder holds."""
        sizes = [p.stat().st_size for p in downloads_dir(self.root).rglob("*") if p.is_file()]
        return len(sizes), sum(sizes)

    def clear(self, downloads: bool = False) -> int:
        """Delete every entry and temp file (and, with ``downloads``, the downloaded and decoded media);
        returns how many entries were removed."""
        removed = self.stats().entries
        import shutil  # here: only clearing needs it

        if self.root.is_dir():
            for sub in self.root.iterdir():
                if sub.is_dir() and len(sub.name) == 2:
                    shutil.rmtree(sub, ignore_errors=True)
        if downloads:
            shutil.rmtree(downloads_dir(self.root), ignore_errors=True)
        return removed


def downloads_dir(root: str | os.PathLike[str]) -> Path:
    """The folder of downloaded and decoded media in the cache at ``root``."""
    return Path(root) / DOWNLOADS


#: the environment variables that choose the judge cache, declared once (by the two options below)
CACHE_MODE_ENV = "REELJUDGE_CACHE"
CACHE_DIR_ENV = "REELJUDGE_CACHE_DIR"


def cache_mode_option(key: str | None = None) -> Any:
    """The cache mode option (``REELJUDGE_CACHE``), for every options class that chooses a cache."""
    return option("readwrite", env=CACHE_MODE_ENV, key=key,
                  doc="readwrite, off, replay (never call; a miss fails), or plan "
                      "(a miss is recorded for the Batch API and fails as queued for batch)")


def cache_dir_option() -> Any:
    """The cache folder option (``REELJUDGE_CACHE_DIR``), for every options class that chooses a cache."""
    return option(DEFAULT_CACHE_DIR, env=CACHE_DIR_ENV, doc="where judge replies are cached")


@dataclass(frozen=True)
class CacheEnvironment:
    """The cache the environment chooses for callers given no settings (read by the options loader)."""

    mode: CacheMode = cache_mode_option()
    cache_dir: str = cache_dir_option()


def cache_environment() -> CacheEnvironment:
    """``REELJUDGE_CACHE`` and ``REELJUDGE_CACHE_DIR`` over the defaults; BadInputError naming the variable when bad."""
    return load_one({}, CacheEnvironment, owner="the judge cache")


def default_cache_dir() -> str:
    """The cache folder in force: ``REELJUDGE_CACHE_DIR``, else ``.reeljudge/cache`` (the one default)."""
    return cache_environment().cache_dir


def cache_folder(given: str | None, option_name: str) -> str:
    """The cache folder a command works on: ``given`` (its option ``option_name``), else ``default_cache_dir()``;
    BadInputError naming where the path came from when it is not a folder (one not made yet is an empty cache)."""
    root = given or default_cache_dir()
    if os.path.exists(root) and not os.path.isdir(root):
        raise BadInputError(f"{option_name if given else CACHE_DIR_ENV} {root}: not a folder (the judge cache is a folder)")
    return root


def open_cache(cache_dir: str, mode: str) -> JudgeCache:
    """The cache at ``cache_dir`` (relative paths are taken from the working directory)."""
    return JudgeCache(Path(cache_dir), mode)


def environment_cache() -> JudgeCache:
    """The cache the environment chooses for callers given none: ``REELJUDGE_CACHE_DIR`` in mode
    ``REELJUDGE_CACHE`` (else readwrite); BadInputError naming the variable when its value is not one the cache knows."""
    chosen = cache_environment()
    return open_cache(chosen.cache_dir, chosen.mode)
