"""One clip of a library run: fetch it if remote, hash it, probe it, and return its JSONL record.

Runs inside a worker process (local pool or Dask). A clip whose key — its content hash, the probe
options' hash, the probes' code version and its prompt — is already in the output is skipped
after hashing, before decoding. Every failure becomes an error record naming the clip and what
went wrong; nothing here raises for a bad clip.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reeljudge.errors import MediaError, ReelJudgeError
from reeljudge.library.manifest import ClipItem
from reeljudge.options import flat_values
from reeljudge.package_data import package_path
from reeljudge.probes.options import ProbeOptions
from reeljudge.retry import RetryPolicy

RECORD_KIND = "probes"
_PROBES_DIR = package_path("probes")


def options_hash(options: ProbeOptions) -> str:
    """A stable fingerprint of every probe option by its config key (canonical JSON; how options are grouped in
    Python does not change it)."""
    text = json.dumps(flat_values(options), sort_keys=True, separators=(",", ":"), default=list)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def probes_code_hash() -> str:
    """A fingerprint of the probes' code, so results from changed probes are never taken as done."""
    digest = hashlib.sha256()
    for path in sorted(_PROBES_DIR.glob("*.py")):
        if path.name != "assertion.py":
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def result_key(sha256: str, opts_hash: str, code_hash: str, prompt: str) -> str:
    """The key a probed clip is recorded (and skipped) under."""
    return hashlib.sha256(json.dumps([sha256, opts_hash, code_hash, prompt]).encode()).hexdigest()[:32]


def error_key(ref: str, opts_hash: str, code_hash: str, prompt: str) -> str:
    """The key a clip that could not be probed is recorded under (by reference: it may have no content)."""
    return "error-" + hashlib.sha256(json.dumps([ref, opts_hash, code_hash, prompt]).encode()).hexdigest()[:26]


@dataclass(frozen=True)
class ProbeContext:
    """What every worker needs once per run: the options, their fingerprints and the keys already done."""

    options: ProbeOptions
    options_hash: str
    code_hash: str
    cache_dir: str
    done: frozenset[str] = frozenset()
    download_policy: RetryPolicy | None = None  # None: the downloads' default policy


def make_context(options: ProbeOptions, cache_dir: str, done: frozenset[str] = frozenset()) -> ProbeContext:
    """The run's context for ``options``."""
    return ProbeContext(options, options_hash(options), probes_code_hash(), cache_dir, done)


def base_record(item: ClipItem, ctx: ProbeContext) -> dict[str, Any]:
    """The fields every record of this clip carries."""
    return {"kind": RECORD_KIND, "ref": item.ref, "prompt": item.prompt, "options_hash": ctx.options_hash,
            "probes_code": ctx.code_hash}


def error_record(item: ClipItem, ctx: ProbeContext, kind: str, message: str, **extra: Any) -> dict[str, Any]:
    """The record of a clip that could not be probed."""
    record = base_record(item, ctx)
    record.update(status="error", key=error_key(item.ref, ctx.options_hash, ctx.code_hash, item.prompt),
                  error={"kind": kind, "message": message})
    record.update(extra)
    return record


def probe_item(item: ClipItem, ctx: ProbeContext) -> dict[str, Any]:
    """Fetch, hash and probe one clip; its result record, an error record, or a ``skipped`` marker."""
    started = time.perf_counter()
    timings: dict[str, float] = {}
    sha: str | None = None
    try:
        path, sha = _local_copy(item, ctx, timings)
        key = result_key(sha, ctx.options_hash, ctx.code_hash, item.prompt)
        if key in ctx.done:
            return {"status": "skipped", "key": key, "ref": item.ref}
        t0 = time.perf_counter()
        record = _probe(path, item, ctx)
        timings["probe_s"] = time.perf_counter() - t0
    except ReelJudgeError as error:
        message = error.message.replace(item.location, item.ref)
        timings["total_s"] = time.perf_counter() - started
        return error_record(item, ctx, error.kind, message, sha256=sha, timings=_rounded(timings), worker_pid=os.getpid())
    timings["total_s"] = time.perf_counter() - started
    record.update(sha256=sha, key=key, timings=_rounded(timings), worker_pid=os.getpid())
    return record


def _local_copy(item: ClipItem, ctx: ProbeContext, timings: dict[str, float]) -> tuple[Path, str]:
    """The clip as a checked local file and its sha256, opened by the media resolver's carriers (a URL is
    downloaded into ``ctx.cache_dir`` under the one download policy, or the run's own when it sets one)."""
    from reeljudge.cache import JudgeCache
    from reeljudge.media.carriers import Where, carrier_of, open_reference

    t0 = time.perf_counter()
    where = Where(cache_dir=Path(ctx.cache_dir), memo=JudgeCache(ctx.cache_dir, "off"), policy=ctx.download_policy)
    opened = open_reference(item.location, ("video",), where)  # memo off: every clip is hashed, as before
    if opened.media.ref.path is None:
        raise MediaError(f"{item.location}: only local files and http(s) URLs are probed (gs:// needs a Google Cloud "
                         "client; download it first)")
    timings["fetch_s" if carrier_of(item.location) == "url" else "hash_s"] = time.perf_counter() - t0
    return opened.media.ref.path, opened.media.sha256


def _probe(path: Path, item: ClipItem, ctx: ProbeContext) -> dict[str, Any]:
    """Decode once, run every selected probe, and lay the verdict out as a record (its pass and faults as
    the assertion reads them: ``ProbesVerdict``)."""
    from reeljudge.probes import probe_clip
    from reeljudge.probes.report import plain

    verdict = probe_clip(path, ctx.options, item.prompt)
    record = base_record(item, ctx)
    record.update(
        status="ok",
        passed=verdict.passed,
        faults=[r.name for r in verdict.failed],
        probes={r.name: {"passed": r.passed, "score": r.score, "gating": r.gating, "reason": r.reason, "details": r.details}
                for r in verdict.results},
        clip_info=verdict.info.as_metadata() if verdict.info is not None else {},  # (probe_clip always sets it)
    )
    text = json.dumps(plain(record))  # any NumPy scalar left (clip metadata) as its plain value
    # the clip's local path (a machine path, or a download cache file) is named by its reference,
    # and the copies of that path in clip metadata go: the record's ``ref`` names the clip once
    return _drop_paths(json.loads(text.replace(json.dumps(str(path))[1:-1], json.dumps(item.ref)[1:-1])), item.ref, path.name)


def _drop_paths(value: Any, ref: str, file_name: str) -> Any:
    """``value`` without the ``path``/``file`` entries that merely repeat the clip's reference or the
    name of the local copy probed (a download's cache name would differ between runs)."""
    if isinstance(value, dict):
        return {k: _drop_paths(v, ref, file_name) for k, v in value.items()
                if not ((k == "path" and v == ref) or (k == "file" and v == file_name))}
    if isinstance(value, list):
        return [_drop_paths(v, ref, file_name) for v in value]
    return value


def _rounded(timings: dict[str, float]) -> dict[str, float]:
    """Timings to the millisecond."""
    return {k: round(v, 4) for k, v in timings.items()}
