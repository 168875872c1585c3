"""Veo provider: text-to-video through google-genai, cached so that a re-run never regenerates.

One call: look up (model, prompt, generation settings) in the reeljudge cache; on a hit whose clip
is still on disk with the recorded sha256, serve it without importing google-genai. Otherwise start
a Veo operation, wait for it, fetch the video (``operation.VeoOperations``), store it
content-addressed in the output folder, record it in the cache and answer with promptfoo's
``video`` object, built by the clip provider's ``serve_clip``.

An operation that is started but not finished (deadline, polling failures) is remembered in the
cache, so the next run resumes polling it instead of paying for a second video.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from reeljudge.atomic import atomic_path, move
from reeljudge.cache import JudgeCache, open_cache
from reeljudge.errors import BadInputError, JudgeError, MediaError, ReelJudgeError
from reeljudge.gemini.pricing import estimate_video_cost
from reeljudge.gemini.settings import JudgeSettings, require_credentials
from reeljudge.media.refs import portable_path, sha256_file
from reeljudge.promptfoo.context import provider_config
from reeljudge.providers.clips import ClipProviderOptions, serve_clip
from reeljudge.providers.veo.settings import DEFAULT_MODEL, VeoSettings, load

__all__ = ["DEFAULT_MODEL", "VeoGenerator", "call_api"]

CACHE_KIND = "veo"
PENDING_KIND = "veo-pending"
EXTENSIONS = {"video/mp4": ".mp4", "video/webm": ".webm", "video/quicktime": ".mov"}


@dataclass
class Outcome:
    """A video that exists on disk, with how it was obtained."""

    path: Path
    sha256: str
    operation: str
    cache_hit: bool
    cost_usd: float | None
    billed_seconds: float | None
    polls: int = 0
    resumed: bool = False
    regenerated: str | None = None
    served: dict[str, Any] | None = None


class VeoGenerator:
    """Generates (or finds in the cache) one clip per prompt under one set of settings."""

    def __init__(self, veo: VeoSettings, transport: JudgeSettings, *, cache: JudgeCache | None = None) -> None:
        self.veo = veo
        self.transport = transport
        self.cache = cache if cache is not None else open_cache(transport.cache_dir, transport.cache_mode)
        self._client: Any = None

    def identity(self, prompt: str) -> dict[str, Any]:
        """What identifies a generation in the cache: prompt and the settings that shape the video."""
        return {"prompt": prompt, "settings": self.veo.generation_fingerprint()}

    def respond(self, prompt: str) -> dict[str, Any]:
        """promptfoo's response for ``prompt``: output, video object, metadata; ReelJudgeError on failure."""
        started = time.monotonic()
        if not prompt.strip():
            raise BadInputError("the prompt is empty: nothing to generate")
        outcome = self.obtain(prompt)
        return self._response(outcome, (time.monotonic() - started) * 1000)

    def obtain(self, prompt: str) -> Outcome:
        """The clip for ``prompt``: from the cache when its file is intact, else generated now."""
        entry = self.cache.get_record(CACHE_KIND, self.identity(prompt))
        if entry is None and self.cache.mode == "replay":
            raise JudgeError("cache mode is 'replay' and no generated clip is cached for this prompt; run once with "
                             "credentials and cache mode 'readwrite' to record it", kind="cache_miss")
        regenerated: str | None = None
        pending: str | None = None
        if entry is not None and entry.get("kind") == PENDING_KIND:
            pending = str(entry.get("operation") or "") or None
            if self.cache.mode == "replay":
                raise JudgeError(f"cache mode is 'replay' and only an unfinished operation ({pending}) is cached for this "
                                 "prompt; run once in 'readwrite' mode with credentials to finish it", kind="cache_miss")
        elif entry is not None:
            hit, problem = _cached_clip(entry, Path(self.veo.output_dir))
            if hit is not None:
                return Outcome(hit, entry["sha256"], str(entry.get("operation", "")), True, 0.0, entry.get("billed_seconds"))
            regenerated = f"cached clip {problem}; generated again"
            if self.cache.mode == "replay":
                raise JudgeError(f"cached clip {problem}, and cache mode 'replay' forbids generating it again", kind="cache_miss")
        require_credentials(self.transport, "generating a Veo clip")
        outcome = self._generate(prompt, pending)
        outcome.regenerated = regenerated
        return outcome

    def _operations(self) -> Any:
        """The wire operations (imports google-genai through the judge client's settings on first use)."""
        from reeljudge.gemini.client import JudgeClient
        from reeljudge.providers.veo.operation import VeoOperations

        def genai() -> Any:
            if self._client is None:
                self._client = JudgeClient(self.transport, cache=self.cache).genai()
            return self._client

        return VeoOperations(self.veo, self.transport, genai)

    def _generate(self, prompt: str, pending: str | None) -> Outcome:
        """Start (or resume) an operation, wait for it, fetch and store its video, record it in the cache."""
        from google.genai import types

        from reeljudge.providers.veo.operation import OperationGone, the_video
        from reeljudge.retry import deadline_in

        ops = self._operations()
        deadline = deadline_in(self.veo.deadline_s)
        operation: Any = None
        resumed, polls = False, 0
        if pending:
            try:
                resume = types.GenerateVideosOperation(name=pending)  # type: ignore[call-arg]  # a field of its base Operation
                operation, polls = ops.wait(resume, deadline, resuming=True)
                resumed = True
            except OperationGone:
                operation = None
        if operation is None:
            operation = ops.start(prompt)
            self._remember_pending(prompt, operation.name)
            operation, polls = ops.wait(operation, deadline)
        try:
            video = the_video(operation)
        except JudgeError:
            # finished for good: a re-run may try again
            self.cache.forget(self.cache.record_key(CACHE_KIND, self.identity(prompt)))
            raise
        path, sha = self._fetch(ops, video, operation.name)
        try:
            served = self._serve(path)
        except MediaError as error:
            path.unlink(missing_ok=True)
            raise JudgeError(f"operation {operation.name} returned a file that is not a playable video: {error.message}",
                             kind="download_failed") from None
        seconds = float(self.veo.duration_seconds or round(served["metadata"]["clip"]["duration"]))
        cost = estimate_video_cost(self.veo.model, seconds, self.veo.resolution)
        self.cache.put_record(CACHE_KIND, self.identity(prompt), {
            "model": self.veo.model, "prompt": prompt, "settings": self.veo.generation_fingerprint(),
            "clip": portable_path(path), "sha256": sha, "bytes": path.stat().st_size, "operation": operation.name,
            "backend": self.transport.resolved_backend, "billed_seconds": seconds, "cost_usd": cost,
        })
        return Outcome(path, sha, operation.name, False, cost, seconds, polls, resumed, served=served)

    def _remember_pending(self, prompt: str, name: str | None) -> None:
        """Record a started operation so that a later run resumes it instead of paying again."""
        if name:
            self.cache.put_record(CACHE_KIND, self.identity(prompt), {
                "model": self.veo.model, "prompt": prompt, "operation": name, "backend": self.transport.resolved_backend,
            }, stored_kind=PENDING_KIND)

    def _fetch(self, ops: Any, video: Any, operation: str) -> tuple[Path, str]:
        """The video written content-addressed to the output folder, and its sha256."""
        folder = Path(self.veo.output_dir)
        staging = folder / f".incoming-{hashlib.sha256(operation.encode()).hexdigest()[:12]}.part"
        with atomic_path(staging) as tmp:
            if getattr(video, "video_bytes", None):
                tmp.write_bytes(video.video_bytes)
            else:
                ops.download(video, tmp, operation)
            if tmp.stat().st_size == 0:
                raise JudgeError(f"downloading the video of operation {operation} gave 0 bytes", kind="download_failed")
        sha = sha256_file(staging)
        target = folder / f"{sha[:16]}{EXTENSIONS.get(getattr(video, 'mime_type', None) or '', '.mp4')}"
        move(staging, target)
        return target, sha

    def _serve(self, path: Path) -> dict[str, Any]:
        """The clip provider's response for a local clip (video object in promptfoo's media store)."""
        return serve_clip(str(path.resolve()), ClipProviderOptions(delivery=self.veo.delivery))

    def _response(self, outcome: Outcome, latency_ms: float) -> dict[str, Any]:
        """promptfoo's provider response for a clip that exists."""
        served = outcome.served or self._serve(outcome.path)
        video = {**served["video"], "model": self.veo.model}
        metadata: dict[str, Any] = {
            **served["metadata"],
            "model": self.veo.model,
            "backend": self.transport.resolved_backend,
            "operation": outcome.operation,
            "cache_hit": outcome.cache_hit,
            "latency_ms": round(latency_ms, 1),
            "cost_usd_estimate": outcome.cost_usd,
            "billed_seconds": outcome.billed_seconds,
            "polls": outcome.polls,
            "sha256": outcome.sha256,
            "settings": self.veo.generation_fingerprint(),
        }
        if outcome.resumed:
            metadata["resumed_operation"] = True
        if outcome.regenerated:
            metadata["regenerated"] = outcome.regenerated
        response: dict[str, Any] = {"output": portable_path(outcome.path), "video": video, "metadata": metadata,
                                    "cached": outcome.cache_hit, "latencyMs": round(latency_ms)}
        if outcome.cost_usd is not None:
            response["cost"] = outcome.cost_usd
        return response


def _cached_clip(entry: Mapping[str, Any], output_dir: Path) -> tuple[Path | None, str]:
    """The cached clip's path when it exists with the recorded sha256 (where recorded, else under its
    content-addressed name in ``output_dir``), else None and what is wrong."""
    recorded = str(entry.get("clip") or "")
    if not recorded or not entry.get("sha256"):
        return None, "entry records no clip"
    path = Path(recorded)
    if not path.is_absolute():
        path = Path.cwd() / path
    if not path.is_file():
        path = output_dir / path.name
    if not path.is_file():
        return None, f"{recorded} is missing"
    try:
        actual = sha256_file(path)
    except MediaError:
        return None, f"{recorded} cannot be read"
    if actual != entry["sha256"]:
        return None, f"{recorded} has changed (sha256 {actual[:12]}…, recorded {str(entry['sha256'])[:12]}…)"
    return path, ""


def call_api(prompt: str, options: Mapping[str, Any] | None, context: Mapping[str, Any] | None) -> dict[str, Any]:
    """promptfoo provider entry: one Veo clip for the rendered prompt, or ``{"error": ...}`` saying why not."""
    try:
        veo, transport = load(provider_config(options))
        return VeoGenerator(veo, transport).respond(str(prompt or ""))
    except ReelJudgeError as error:
        return {"error": f"veo provider: {error.message}"}
