"""Veo provider: text-to-video through google-genai, cached so that a re-run never regenerates.

One call: look up (model, prompt, generation settings) in the reeljudge cache; on a hit whose clip
is still on disk with the recorded sha256, serve it without importing google-genai. Otherwise start
a Veo operation, poll it under a total deadline, fetch the video (Files API download on the
Developer API, inline bytes on Vertex), store it content-addressed in the output folder, record it in
the cache and answer with promptfoo's ``video`` object, built by the clip provider's ``serve_clip``.

google-genai 3.4 refuses ``models.generate_videos`` on the Developer API (its README: only Vertex
supports video generation), while the service itself still takes ``:predictLongRunning`` there. On
that backend the start request goes through the SDK's own transport (same key, base URL, API version
and error types); polling and download use the public ``operations.get`` and ``files.download``.

An operation that is started but not finished (deadline, polling failures) is remembered in the
cache, so the next run resumes polling it instead of paying for a second video.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, Callable, Mapping

from reeljudge.cache import JudgeCache, open_cache, request_key
from reeljudge.providers.clips import serve_clip
from reeljudge.errors import BadInputError, JudgeError, MediaError, ReelJudgeError
from reeljudge.gemini.client import classify_error
from reeljudge.media.refs import sha256_file
from reeljudge.gemini.pricing import estimate_video_cost
from reeljudge.gemini.settings import JudgeSettings, credentials_hint, has_gemini_credentials, load_settings

DEFAULT_MODEL = "veo-3.0-fast-generate-001"
DEFAULT_OUTPUT_DIR = ".reeljudge/videos"
CACHE_KIND = "veo"
PENDING_KIND = "veo-pending"
EXTENSIONS = {"video/mp4": ".mp4", "video/webm": ".webm", "video/quicktime": ".mov"}


@dataclass(frozen=True)
class VeoSettings:
    """What to generate (model and Veo parameters) and how to wait for it and where to put it."""

    model: str = DEFAULT_MODEL
    aspect_ratio: str | None = None
    duration_seconds: int | None = None
    resolution: str | None = None
    negative_prompt: str | None = None
    seed: int | None = None
    number_of_videos: int = 1
    person_generation: str | None = None
    generate_audio: bool | None = None
    enhance_prompt: bool | None = None
    poll_interval_s: float = 10.0
    deadline_s: float = 600.0
    output_dir: str = DEFAULT_OUTPUT_DIR
    delivery: str = "store"

    def generation_fingerprint(self) -> dict[str, Any]:
        """The settings that shape the video, for the cache key (not waiting, storage or delivery)."""
        skip = {"poll_interval_s", "deadline_s", "output_dir", "delivery"}
        return {k: v for k, v in asdict(self).items() if k not in skip}

    def parameters(self) -> dict[str, Any]:
        """The Veo request ``parameters`` (wire names), only those that are set."""
        wire = {
            "sampleCount": self.number_of_videos,
            "aspectRatio": self.aspect_ratio,
            "durationSeconds": self.duration_seconds,
            "resolution": self.resolution,
            "negativePrompt": self.negative_prompt,
            "seed": self.seed,
            "personGeneration": self.person_generation,
            "generateAudio": self.generate_audio,
            "enhancePrompt": self.enhance_prompt,
        }
        return {k: v for k, v in wire.items() if v is not None}


_VEO_ENV = {
    "model": "REELJUDGE_VEO_MODEL",
    "output_dir": "REELJUDGE_VEO_OUTPUT_DIR",
    "poll_interval_s": "REELJUDGE_VEO_POLL_INTERVAL_S",
    "deadline_s": "REELJUDGE_VEO_DEADLINE_S",
}
_VEO_ALIASES = {
    "duration": "duration_seconds",
    "poll_interval": "poll_interval_s",
    "deadline": "deadline_s",
    "output_folder": "output_dir",
}
_INT_FIELDS = {"duration_seconds", "seed", "number_of_videos"}
_BOOL_FIELDS = {"generate_audio", "enhance_prompt"}
_FLOAT_FIELDS = {"poll_interval_s", "deadline_s"}


def load_veo_settings(
    config: Mapping[str, Any] | None, env: Mapping[str, str] | None = None
) -> tuple[VeoSettings, JudgeSettings]:
    """Veo settings (config > REELJUDGE_VEO_* > defaults) and the transport settings; BadInputError on a bad value."""
    env = os.environ if env is None else env
    config = dict(config or {})
    veo_names = {f.name for f in fields(VeoSettings)}
    transport_names = {f.name for f in fields(JudgeSettings)} | {"cache", "timeout", "max_tokens"}
    unknown = sorted(k for k in config if k not in veo_names | transport_names | set(_VEO_ALIASES))
    if unknown:
        raise BadInputError(
            f"unknown setting(s) {', '.join(map(repr, unknown))}; Veo settings are {', '.join(sorted(veo_names))}"
        )
    values: dict[str, Any] = {name: env[var].strip() for name, var in _VEO_ENV.items() if env.get(var, "").strip()}
    for key, value in config.items():
        name = _VEO_ALIASES.get(key, key)
        if name in veo_names:
            values[name] = value
    veo = replace(VeoSettings(), **{name: _coerce(name, value) for name, value in values.items()})
    if veo.number_of_videos != 1:
        raise BadInputError(f"number_of_videos must be 1 (one clip per test); got {veo.number_of_videos}")
    if veo.poll_interval_s <= 0 or veo.deadline_s <= 0:
        raise BadInputError("poll_interval_s and deadline_s must be positive")
    if veo.delivery not in ("store", "data"):
        raise BadInputError(f"delivery must be 'store' or 'data'; got {veo.delivery!r}")
    transport_config = {k: v for k, v in config.items() if k in transport_names and k not in veo_names | set(_VEO_ALIASES)}
    return veo, load_settings(transport_config, env)


def _coerce(name: str, value: Any) -> Any:
    """A config or env value converted to the Veo setting's type, or BadInputError naming it."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none", "null")):
        if name in ("model", "output_dir", "delivery", "number_of_videos") or name in _FLOAT_FIELDS:
            raise BadInputError(f"setting {name!r} cannot be empty")
        return None
    try:
        if name in _BOOL_FIELDS:
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
                raise ValueError(text)
            return text in ("true", "1", "yes", "on")
        if name in _INT_FIELDS:
            if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                raise ValueError(value)
            return int(value)
        if name in _FLOAT_FIELDS:
            return float(value)
        return str(value)
    except (TypeError, ValueError):
        raise BadInputError(f"setting {name!r} has an invalid value {value!r}") from None


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

    def __init__(
        self,
        veo: VeoSettings,
        transport: JudgeSettings,
        *,
        cache: JudgeCache | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.veo = veo
        self.transport = transport
        self.cache = cache if cache is not None else open_cache(transport.cache_dir, transport.cache_mode)
        self.sleep = sleep
        self._client: Any = None

    def cache_key(self, prompt: str) -> str:
        """The cache key of a generation: model, prompt and the settings that shape the video."""
        return request_key({"kind": CACHE_KIND, "prompt": prompt, "settings": self.veo.generation_fingerprint()})

    def respond(self, prompt: str) -> dict[str, Any]:
        """promptfoo's response for ``prompt``: output, video object, metadata; ReelJudgeError on failure."""
        started = time.monotonic()
        if not prompt.strip():
            raise BadInputError("the prompt is empty: nothing to generate")
        outcome = self.obtain(prompt)
        return self._response(outcome, (time.monotonic() - started) * 1000)

    def obtain(self, prompt: str) -> Outcome:
        """The clip for ``prompt``: from the cache when its file is intact, else generated now."""
        key = self.cache_key(prompt)
        entry = self.cache.require(key, "Veo generation")
        regenerated: str | None = None
        pending: str | None = None
        if entry is not None and entry.get("kind") == PENDING_KIND:
            pending = str(entry.get("operation") or "") or None
            if self.cache.mode == "replay":
                raise JudgeError(
                    f"cache mode is 'replay' and only an unfinished operation ({pending}) is cached for this "
                    "prompt; run once in 'readwrite' mode with credentials to finish it",
                    kind="cache_miss",
                )
        elif entry is not None:
            hit, problem = _cached_clip(entry, Path(self.veo.output_dir))
            if hit is not None:
                return Outcome(
                    path=hit,
                    sha256=entry["sha256"],
                    operation=str(entry.get("operation", "")),
                    cache_hit=True,
                    cost_usd=0.0,
                    billed_seconds=entry.get("billed_seconds"),
                )
            regenerated = f"cached clip {problem}; generated again"
            if self.cache.mode == "replay":
                raise JudgeError(f"cached clip {problem}, and cache mode 'replay' forbids generating it again", kind="cache_miss")
        if not has_gemini_credentials(self.transport):
            raise JudgeError(
                f"no Gemini credentials for the {self.transport.resolved_backend} backend: "
                f"{credentials_hint(self.transport)}",
                kind="no_credentials",
            )
        outcome = self._generate(prompt, key, pending)
        outcome.regenerated = regenerated
        return outcome

    # ---- generation (imports google-genai) ----------------------------------------------------

    def _genai(self) -> Any:
        """The google-genai client, created through the judge client's settings on first use."""
        if self._client is None:
            from reeljudge.gemini.client import JudgeClient

            self._client = JudgeClient(self.transport, cache=self.cache).genai()
        return self._client

    def _generate(self, prompt: str, key: str, pending: str | None) -> Outcome:
        """Start (or resume) an operation, wait for it, fetch and store its video, record it in the cache."""
        from google.genai import types

        deadline = time.monotonic() + self.veo.deadline_s
        operation: Any = None
        resumed, polls = False, 0
        if pending:
            try:
                operation, polls = self._wait(types.GenerateVideosOperation(name=pending), deadline, resuming=True)
                resumed = True
            except _OperationGone:
                operation = None
        if operation is None:
            operation = self._start(prompt)
            self._remember_pending(key, prompt, operation.name)
            operation, polls = self._wait(operation, deadline)
        try:
            video = _the_video(operation)
        except JudgeError:
            self._forget(key)  # finished for good: a re-run may try again
            raise
        path, sha = self._fetch(video, operation.name)
        try:
            served = self._serve(path)
        except MediaError as error:
            path.unlink(missing_ok=True)
            raise JudgeError(f"operation {operation.name} returned a file that is not a playable video: {error.message}", kind="download_failed") from None
        seconds = float(self.veo.duration_seconds or round(served["metadata"]["clip"]["duration"]))
        cost = estimate_video_cost(self.veo.model, seconds, self.veo.resolution)
        self.cache.put(
            key,
            CACHE_KIND,
            {
                "model": self.veo.model,
                "prompt": prompt,
                "settings": self.veo.generation_fingerprint(),
                "clip": _portable(path),
                "sha256": sha,
                "bytes": path.stat().st_size,
                "operation": operation.name,
                "backend": self.transport.resolved_backend,
                "billed_seconds": seconds,
                "cost_usd": cost,
            },
        )
        return Outcome(path, sha, operation.name, False, cost, seconds, polls, resumed, served=served)

    def _forget(self, key: str) -> None:
        """Drop the cache entry for ``key`` (the remembered operation), in readwrite mode."""
        if self.cache.mode == "readwrite":
            self.cache.path_for(key).unlink(missing_ok=True)

    def _remember_pending(self, key: str, prompt: str, name: str | None) -> None:
        """Record a started operation so that a later run resumes it instead of paying again."""
        if name:
            self.cache.put(
                key,
                PENDING_KIND,
                {"model": self.veo.model, "prompt": prompt, "operation": name, "backend": self.transport.resolved_backend},
            )

    def _start(self, prompt: str) -> Any:
        """The started operation; retries 429/5xx up to max_attempts, never a timed-out start."""
        attempt = 0
        while True:
            attempt += 1
            try:
                return self._start_once(prompt)
            except ReelJudgeError:
                raise
            except Exception as exc:  # noqa: BLE001 - classified, never swallowed
                retryable, problem = classify_error(exc, self.transport.timeout_s)
                if "timed out" in problem:
                    raise JudgeError(
                        f"starting the Veo operation failed: {problem}; an operation may have been created "
                        "(and billed) without its name reaching us",
                        kind="timeout",
                    ) from None
                if not retryable or attempt >= self.transport.max_attempts:
                    tries = f" after {attempt} attempts" if attempt > 1 else ""
                    raise JudgeError(f"Veo rejected the request{tries}: {problem}", kind="api_error") from None
                self.sleep(self._backoff(attempt))

    def _start_once(self, prompt: str) -> Any:
        """One ``:predictLongRunning`` request, as the backend in force takes it."""
        from google.genai import types

        client = self._genai()
        if self.transport.resolved_backend == "vertex":
            config = {name: value for name, value in self.veo.generation_fingerprint().items() if name != "model"}
            return client.models.generate_videos(
                model=self.veo.model,
                source=types.GenerateVideosSource(prompt=prompt),
                config=types.GenerateVideosConfig(**{k: v for k, v in config.items() if v is not None}),
            )
        api = getattr(client, "_api_client", None)
        if api is None or not hasattr(api, "request"):
            raise JudgeError(
                "this google-genai version offers no way to start a Veo operation on the Developer API; "
                "use the Vertex backend (GOOGLE_GENAI_USE_VERTEXAI=true)",
                kind="api_error",
            )
        body = {"instances": [{"prompt": prompt}], "parameters": self.veo.parameters()}
        response = api.request("post", f"{_model_path(self.veo.model)}:predictLongRunning", body, None)
        payload = json.loads(response.body) if response.body else {}
        operation = types.GenerateVideosOperation.from_api_response(payload, is_vertex_ai=False)
        if not operation.name:
            raise JudgeError(f"the start request returned no operation name: {str(payload)[:300]}", kind="api_error")
        return operation

    def _wait(self, operation: Any, deadline: float, *, resuming: bool = False) -> tuple[Any, int]:
        """The finished operation and the number of polls; JudgeError when the deadline passes or polling keeps failing.

        When ``resuming`` a remembered operation, the first poll is immediate, and an operation the
        server rejects before any successful poll (expired, unknown) raises ``_OperationGone``.
        """
        polls, failures, answered, last_problem = 0, 0, 0, ""
        while not operation.done:
            remaining = deadline - time.monotonic()
            if failures:
                delay = self._backoff(failures)
            else:
                delay = 0.0 if resuming and polls == 0 else self.veo.poll_interval_s
            if remaining <= 0 or delay > remaining:
                why = f"; last poll problem: {last_problem}" if failures else ""
                raise JudgeError(
                    f"deadline of {self.veo.deadline_s:g} s passed while polling Veo operation {operation.name} "
                    f"({polls} polls, not done{why}); it may still finish: re-run to resume polling it, "
                    "or raise deadline_s",
                    kind="timeout",
                )
            self.sleep(delay)
            polls += 1
            try:
                operation = self._genai().operations.get(operation)
                failures, answered = 0, answered + 1
            except Exception as exc:  # noqa: BLE001 - classified, never swallowed
                retryable, last_problem = classify_error(exc, self.transport.timeout_s)
                failures += 1
                if resuming and not retryable and not answered:
                    raise _OperationGone(last_problem) from None
                if not retryable or failures >= self.transport.max_attempts:
                    raise JudgeError(
                        f"polling Veo operation {operation.name} failed ({failures} time(s) in a row): {last_problem}; "
                        "re-run to resume polling it",
                        kind="api_error",
                    ) from None
        return operation, polls

    def _fetch(self, video: Any, operation: str) -> tuple[Path, str]:
        """The video written content-addressed to the output folder, and its sha256."""
        folder = Path(self.veo.output_dir)
        folder.mkdir(parents=True, exist_ok=True)
        handle, tmp_name = tempfile.mkstemp(dir=folder, prefix=".incoming-", suffix=".part")
        os.close(handle)
        tmp = Path(tmp_name)
        try:
            if getattr(video, "video_bytes", None):
                tmp.write_bytes(video.video_bytes)
            else:
                self._download(video, tmp, operation)
            if tmp.stat().st_size == 0:
                raise JudgeError(f"downloading the video of operation {operation} gave 0 bytes", kind="download_failed")
            sha = sha256_file(tmp)
            target = folder / f"{sha[:16]}{EXTENSIONS.get(getattr(video, 'mime_type', None) or '', '.mp4')}"
            os.replace(tmp, target)
            return target, sha
        finally:
            tmp.unlink(missing_ok=True)

    def _download(self, video: Any, destination: Path, operation: str) -> None:
        """Stream a Files-API video to ``destination``, retrying transient failures up to max_attempts."""
        uri = str(getattr(video, "uri", None) or "")
        match = re.search(r"files/([A-Za-z0-9_-]+)", uri)
        if uri.startswith("gs://") or match is None:
            raise JudgeError(
                f"operation {operation} put its video at {uri or '(no URI)'}, which reeljudge cannot fetch "
                "(it reads inline bytes and Files API downloads)",
                kind="download_failed",
            )
        attempt = 0
        while True:
            attempt += 1
            try:
                self._genai().files.download(file=f"files/{match.group(1)}", destination=str(destination))
                return
            except Exception as exc:  # noqa: BLE001 - classified, never swallowed
                retryable, problem = classify_error(exc, self.transport.timeout_s)
                if not retryable or attempt >= self.transport.max_attempts:
                    raise JudgeError(
                        f"downloading the video of operation {operation} ({uri}) failed: {problem}",
                        kind="download_failed",
                    ) from None
                self.sleep(self._backoff(attempt))

    def _backoff(self, attempt: int) -> float:
        """Seconds to wait before retry ``attempt`` + 1 (exponential, capped)."""
        return min(self.transport.backoff_initial_s * (2 ** (attempt - 1)), self.transport.backoff_max_s)

    # ---- the response -------------------------------------------------------------------------

    def _serve(self, path: Path) -> dict[str, Any]:
        """The clip provider's response for a local clip (video object in promptfoo's media store)."""
        return serve_clip(str(path.resolve()), {"delivery": self.veo.delivery})

    def _response(self, outcome: Outcome, latency_ms: float) -> dict[str, Any]:
        """promptfoo's provider response for a clip that exists."""
        served = outcome.served or self._serve(outcome.path)
        video = dict(served["video"])
        video["model"] = self.veo.model
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
        response: dict[str, Any] = {
            "output": _portable(outcome.path),
            "video": video,
            "metadata": metadata,
            "cached": outcome.cache_hit,
            "latencyMs": round(latency_ms),
        }
        if outcome.cost_usd is not None:
            response["cost"] = outcome.cost_usd
        return response


class _OperationGone(Exception):
    """A remembered operation the server no longer knows (it is started anew)."""


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


def _the_video(operation: Any) -> Any:
    """The one generated video of a finished operation; JudgeError saying why there is none."""
    name = operation.name
    error = operation.error
    if error:
        code = error.get("code", "?") if isinstance(error, Mapping) else "?"
        message = error.get("message", error) if isinstance(error, Mapping) else error
        raise JudgeError(f"Veo operation {name} failed (code {code}): {message}", kind="operation_error")
    result = operation.response or operation.result
    videos = list(getattr(result, "generated_videos", None) or [])
    if videos and videos[0].video is not None:
        return videos[0].video
    filtered = getattr(result, "rai_media_filtered_count", None)
    reasons = list(getattr(result, "rai_media_filtered_reasons", None) or [])
    if filtered or reasons:
        raise JudgeError(
            f"Veo operation {name} finished without a video: {filtered or len(reasons)} filtered by the "
            f"responsible-AI filter ({'; '.join(reasons) or 'no reason given'})",
            kind="filtered",
        )
    raise JudgeError(f"Veo operation {name} finished with no video and no filter reason", kind="empty")


def _model_path(model: str) -> str:
    """The ``models/{id}`` resource path of a model id."""
    return model if model.startswith(("models/", "tunedModels/")) else f"models/{model}"


def _portable(path: Path) -> str:
    """A clip path as recorded and shown: relative to the working directory when under it."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path.resolve())


def call_api(prompt: str, options: Mapping[str, Any] | None, context: Mapping[str, Any] | None) -> dict[str, Any]:
    """promptfoo provider entry: one Veo clip for the rendered prompt, or ``{"error": ...}`` saying why not."""
    config = (options or {}).get("config") or {}
    try:
        veo, transport = load_veo_settings(config)
        return VeoGenerator(veo, transport).respond(str(prompt or ""))
    except ReelJudgeError as error:
        return {"error": f"veo provider: {error.message}"}
