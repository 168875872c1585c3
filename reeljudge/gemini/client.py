"""The one judge client: every Gemini judge call goes through ``JudgeClient.ask``.

It owns the cache lookup, the call (google-genai, imported only when a call is really made),
retries with backoff under a total deadline, the checks on what came back (blocked prompt, SAFETY,
MAX_TOKENS, empty reply), one retry with the parse error fed back, token usage and a cost estimate.
Anything that is not a real judgement raises ``JudgeError`` with a reason that says what happened.
"""

from __future__ import annotations

import os
import random
import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from reeljudge.cache import JudgeCache, open_cache, request_key
from reeljudge.errors import JudgeError
from reeljudge.gemini.pricing import estimate_cost
from reeljudge.gemini.settings import JudgeSettings, credentials_hint, has_gemini_credentials

RETRYABLE_CODES = frozenset({408, 429, 500, 502, 503, 504})
FINISH_OK = frozenset({"STOP", "FINISH_REASON_UNSPECIFIED", ""})


class ReplyInvalid(ValueError):
    """A reply that arrived but does not meet its schema; the message is fed back to the judge."""


@dataclass(frozen=True)
class MediaInput:
    """A clip or image as sent to the judge: its content hash plus where or what it is."""

    sha256: str
    mime_type: str
    file_uri: str | None = None
    data: bytes | None = None
    fps: float | None = None
    start_offset_s: float | None = None
    end_offset_s: float | None = None

    def fingerprint(self) -> dict[str, Any]:
        """What of this media shapes a reply (the content, not where it is stored)."""
        return {
            "sha256": self.sha256,
            "mime": self.mime_type,
            "fps": self.fps,
            "start": self.start_offset_s,
            "end": self.end_offset_s,
        }


Part = str | MediaInput


@dataclass(frozen=True)
class JudgeRequest:
    """One question to the judge: instructions, content parts, and the JSON Schema of the answer."""

    kind: str
    system: str
    parts: tuple[Part, ...]
    schema: Mapping[str, Any] | None = None
    media_resolution: str | None = None
    response_logprobs: bool = False

    def cache_payload(self, settings: JudgeSettings) -> dict[str, Any]:
        """Everything that shapes the reply, as a JSON-able dict for the cache key."""
        return {
            "kind": self.kind,
            "system": self.system,
            "parts": [p if isinstance(p, str) else p.fingerprint() for p in self.parts],
            "schema": self.schema,
            "media_resolution": self.media_resolution,
            "logprobs": self.response_logprobs,
            "settings": settings.generation_fingerprint(),
        }


@dataclass
class Usage:
    """Tokens, requests and estimated cost, summed over one or more judge calls."""

    prompt_tokens: int = 0
    output_tokens: int = 0
    requests: int = 0
    cached_requests: int = 0
    cached_tokens: int = 0
    cost_usd: float | None = 0.0

    def __add__(self, other: "Usage") -> "Usage":
        cost = None if self.cost_usd is None or other.cost_usd is None else self.cost_usd + other.cost_usd
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.output_tokens + other.output_tokens,
            self.requests + other.requests,
            self.cached_requests + other.cached_requests,
            self.cached_tokens + other.cached_tokens,
            cost,
        )

    def tokens_used(self) -> dict[str, int]:
        """promptfoo's ``tokensUsed`` shape."""
        return {
            "total": self.prompt_tokens + self.output_tokens + self.cached_tokens,
            "prompt": self.prompt_tokens,
            "completion": self.output_tokens,
            "cached": self.cached_tokens,
            "numRequests": self.requests,
        }


@dataclass
class JudgeReply:
    """A judgement that really happened (fresh or from the cache), with its accounting."""

    value: Any
    text: str
    model: str
    usage: Usage
    latency_ms: float
    cache_hit: bool
    finish_reason: str
    attempts: int = 1
    fed_back_error: str | None = None
    logprobs: Any = None
    key: str = ""

    def metadata(self) -> dict[str, Any]:
        """Model, latency, cache hit and cost, for promptfoo ``metadata``."""
        meta: dict[str, Any] = {
            "model": self.model,
            "latency_ms": round(self.latency_ms, 1),
            "cache_hit": self.cache_hit,
            "cost_usd_estimate": None if self.usage.cost_usd is None else round(self.usage.cost_usd, 6),
            "attempts": self.attempts,
            "cache_key": self.key[:16],
        }
        if self.fed_back_error:
            meta["fed_back_error"] = self.fed_back_error
        return meta


@dataclass
class _Call:
    """What one successful generateContent call returned, already checked."""

    text: str
    finish_reason: str
    usage: Usage
    attempts: int
    logprobs: Any = None


@dataclass
class JudgeClient:
    """Asks Gemini (or the cache) for structured judgements under one set of settings."""

    settings: JudgeSettings
    cache: JudgeCache | None = None
    sleep: Callable[[float], None] = time.sleep
    _genai: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.cache is None:
            self.cache = open_cache(self.settings.cache_dir, self.settings.cache_mode)

    def ask(self, request: JudgeRequest, parse: Callable[[str], Any]) -> JudgeReply:
        """The judge's parsed answer to ``request``; JudgeError when the judge did not judge."""
        started = time.monotonic()
        key = request_key(request.cache_payload(self.settings))
        assert self.cache is not None
        entry = self.cache.require(key, f"{request.kind} request")
        if entry is not None:
            return _reply_from_cache(entry, key, started)
        if not has_gemini_credentials(self.settings):
            raise JudgeError(
                f"no Gemini credentials for the {self.settings.resolved_backend} backend: "
                f"{credentials_hint(self.settings)}, or use judge: local where a local judge exists",
                kind="no_credentials",
            )
        deadline = started + self.settings.deadline_s
        contents = [_user_content(request.parts)]
        call = self._generate(request, contents, deadline)
        usage, attempts, feedback = call.usage, call.attempts, None
        try:
            value = parse(call.text)
        except ReplyInvalid as invalid:
            feedback = str(invalid)
            contents += [
                {"role": "model", "parts": [{"text": call.text}]},
                _user_content((_feedback_text(feedback),)),
            ]
            first_text = call.text
            call = self._generate(request, contents, deadline)
            usage, attempts = usage + call.usage, attempts + call.attempts
            try:
                value = parse(call.text)
            except ReplyInvalid as again:
                raise JudgeError(
                    f"the judge's reply did not match the schema twice (second time: {again}); "
                    f"first error: {feedback}",
                    kind="unparseable",
                    raw=f"first reply:\n{first_text}\n\nsecond reply:\n{call.text}",
                ) from None
        self.cache.put(
            key,
            request.kind,
            {
                "model": self.settings.model,
                "text": call.text,
                "value": value,
                "finish_reason": call.finish_reason,
                "usage": {"prompt": usage.prompt_tokens, "output": usage.output_tokens, "cost_usd": usage.cost_usd},
                "logprobs": call.logprobs,
            },
        )
        return JudgeReply(
            value=value,
            text=call.text,
            model=self.settings.model,
            usage=usage,
            latency_ms=(time.monotonic() - started) * 1000,
            cache_hit=False,
            finish_reason=call.finish_reason,
            attempts=attempts,
            fed_back_error=feedback,
            logprobs=call.logprobs,
            key=key,
        )

    def genai(self) -> Any:
        """The google-genai client for these settings, created on first use."""
        if self._genai is None:
            from google import genai
            from google.genai import types

            http = types.HttpOptions(
                api_version=self.settings.resolved_api_version,
                timeout=int(self.settings.timeout_s * 1000),
                base_url=self.settings.base_url,
            )
            if self.settings.resolved_backend == "vertex":
                # Passed explicitly: with a custom base URL google-genai ignores them in the environment.
                self._genai = genai.Client(
                    vertexai=True,
                    project=os.environ.get("GOOGLE_CLOUD_PROJECT") or None,
                    location=os.environ.get("GOOGLE_CLOUD_LOCATION") or None,
                    http_options=http,
                )
            else:
                self._genai = genai.Client(http_options=http)
        return self._genai

    def _generate(self, request: JudgeRequest, contents: list[Any], deadline: float) -> _Call:
        """One checked generateContent result, retrying transient failures until the deadline."""
        attempt, last_problem = 0, ""
        while True:
            attempt += 1
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise JudgeError(
                    f"gave up after {attempt - 1} attempt(s): total deadline of {self.settings.deadline_s:g} s "
                    f"passed; last problem: {last_problem}",
                    kind="timeout" if "timed out" in last_problem else "api_error",
                )
            try:
                response = self.genai().models.generate_content(
                    model=self.settings.model,
                    contents=contents,
                    config=self._config(request, min(self.settings.timeout_s, remaining)),
                )
            except Exception as exc:  # noqa: BLE001 - classified below, never swallowed
                retryable, problem = classify_error(exc, self.settings.timeout_s)
                last_problem = problem
                if not retryable:
                    raise JudgeError(f"Gemini rejected the request: {problem}", kind="api_error") from None
                if attempt >= self.settings.max_attempts:
                    raise JudgeError(
                        f"gave up after {attempt} attempts: {problem}",
                        kind="timeout" if "timed out" in problem else "api_error",
                    ) from None
                delay = self._backoff(attempt, exc)
                if time.monotonic() + delay >= deadline:
                    raise JudgeError(
                        f"gave up after {attempt} attempt(s): the next retry would pass the "
                        f"{self.settings.deadline_s:g} s deadline; last problem: {problem}",
                        kind="timeout" if "timed out" in problem else "api_error",
                    ) from None
                self.sleep(delay)
                continue
            text, finish, logprobs = _checked_reply(response, self.settings)
            return _Call(text, finish, _usage_of(response, self.settings.model), attempt, logprobs)

    def _config(self, request: JudgeRequest, timeout_s: float) -> Any:
        """The GenerateContentConfig for a request under these settings."""
        from google.genai import types

        config: dict[str, Any] = {
            "system_instruction": request.system,
            "temperature": self.settings.temperature,
            "max_output_tokens": self.settings.max_output_tokens,
            "http_options": types.HttpOptions(timeout=max(1, int(timeout_s * 1000))),
        }
        if self.settings.thinking_budget is not None:
            config["thinking_config"] = types.ThinkingConfig(thinking_budget=self.settings.thinking_budget)
        if request.schema is not None:
            config["response_mime_type"] = "application/json"
            config["response_json_schema"] = wire_schema(request.schema)
        if request.media_resolution:
            config["media_resolution"] = f"MEDIA_RESOLUTION_{request.media_resolution.upper()}"
        if request.response_logprobs:
            config["response_logprobs"] = True
            config["logprobs"] = 5
        return types.GenerateContentConfig(**config)

    def _backoff(self, attempt: int, exc: Exception) -> float:
        """Seconds to wait before the next attempt: the server's retryDelay, else jittered exponential."""
        hinted = _retry_delay_hint(exc)
        base = self.settings.backoff_initial_s * (2 ** (attempt - 1))
        delay = hinted if hinted is not None else base * (0.5 + random.random() / 2)
        return min(delay, self.settings.backoff_max_s)


def wire_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The schema as sent to Gemini: without the document keywords (``$schema``, ``$id``) it does not take."""
    return {k: v for k, v in schema.items() if k not in ("$schema", "$id")}


def _user_content(parts: tuple[Part, ...]) -> dict[str, Any]:
    """A user turn in google-genai's dict form."""
    out: list[dict[str, Any]] = []
    for part in parts:
        if isinstance(part, str):
            out.append({"text": part})
            continue
        if part.file_uri:
            item: dict[str, Any] = {"file_data": {"file_uri": part.file_uri, "mime_type": part.mime_type}}
        elif part.data is not None:
            item = {"inline_data": {"data": part.data, "mime_type": part.mime_type}}
        else:
            raise JudgeError(f"media {part.sha256[:12]} has neither a URI nor bytes", kind="media_error")
        meta = {
            k: v
            for k, v in (
                ("fps", part.fps),
                ("start_offset", None if part.start_offset_s is None else f"{part.start_offset_s:g}s"),
                ("end_offset", None if part.end_offset_s is None else f"{part.end_offset_s:g}s"),
            )
            if v is not None
        }
        if meta and part.mime_type.startswith("video/"):
            item["video_metadata"] = meta
        out.append(item)
    return {"role": "user", "parts": out}


def _feedback_text(error: str) -> str:
    """The follow-up turn that asks the judge to correct an invalid reply."""
    return (
        "Your previous reply could not be used: "
        f"{error}\nReply again with only the JSON object, matching the schema exactly."
    )


def classify_error(exc: Exception, timeout_s: float) -> tuple[bool, str]:
    """Whether an exception from a google-genai call is worth retrying, and one line saying what it was."""
    code = getattr(exc, "code", None)
    if isinstance(code, int) and type(exc).__name__.endswith("Error") and hasattr(exc, "status"):
        status = getattr(exc, "status", None) or ""
        message = (getattr(exc, "message", None) or "").strip()
        return code in RETRYABLE_CODES, f"HTTP {code} {status}: {message[:300]}".strip()
    name = type(exc).__name__
    module = type(exc).__module__ or ""
    if isinstance(exc, TimeoutError) or "Timeout" in name:
        return True, f"the request timed out (per-attempt timeout {timeout_s:g} s)"
    if module.split(".")[0] in ("httpx", "httpx2", "httpcore") or isinstance(exc, ConnectionError):
        return True, f"transport error {name}: {str(exc)[:200]}"
    return False, f"{name}: {str(exc)[:300]}"


def _retry_delay_hint(exc: Exception) -> float | None:
    """The ``retryDelay`` a 429 reply suggests, in seconds, if any."""
    details = getattr(exc, "details", None)
    match = re.search(r"retryDelay['\"]?\s*[:=]\s*['\"]?(\d+(?:\.\d+)?)s", str(details))
    return float(match.group(1)) if match else None


def _enum_name(value: Any) -> str:
    """An SDK enum's name (or the string itself)."""
    if value is None:
        return ""
    return str(getattr(value, "name", value))


def _checked_reply(response: Any, settings: JudgeSettings) -> tuple[str, str, Any]:
    """The reply text, finish reason and logprobs; JudgeError if blocked, cut off, refused or empty."""
    feedback = getattr(response, "prompt_feedback", None)
    block = _enum_name(getattr(feedback, "block_reason", None)) if feedback else ""
    if block and block != "BLOCKED_REASON_UNSPECIFIED":
        message = getattr(feedback, "block_reason_message", None) or ""
        raise JudgeError(f"Gemini blocked the prompt (block_reason={block}) {message}".strip(), kind="blocked")
    candidates = getattr(response, "candidates", None) or []
    if not candidates:
        raise JudgeError("Gemini returned no candidates and no block reason", kind="empty")
    candidate = candidates[0]
    finish = _enum_name(getattr(candidate, "finish_reason", None))
    parts = getattr(getattr(candidate, "content", None), "parts", None) or []
    text = "".join(p.text for p in parts if getattr(p, "text", None) and not getattr(p, "thought", False))
    if finish == "MAX_TOKENS":
        raise JudgeError(
            f"the reply was cut off at max_output_tokens={settings.max_output_tokens} "
            f"({len(text)} characters arrived); raise max_output_tokens",
            kind="max_tokens",
            raw=text,
        )
    if finish not in FINISH_OK:
        raise JudgeError(f"Gemini stopped with finish_reason={finish}: the judge refused or was filtered", kind="safety", raw=text)
    if not text.strip():
        raise JudgeError(f"Gemini returned an empty reply (finish_reason={finish or 'none'})", kind="empty")
    logprobs = getattr(candidate, "logprobs_result", None)
    if logprobs is not None and hasattr(logprobs, "model_dump"):
        logprobs = logprobs.model_dump(mode="json", exclude_none=True)
    return text, finish or "STOP", logprobs


def _usage_of(response: Any, model: str) -> Usage:
    """Token counts and cost of one call from ``usage_metadata``."""
    meta = getattr(response, "usage_metadata", None)
    prompt = int(getattr(meta, "prompt_token_count", 0) or 0)
    output = int(getattr(meta, "candidates_token_count", 0) or 0) + int(getattr(meta, "thoughts_token_count", 0) or 0)
    return Usage(prompt_tokens=prompt, output_tokens=output, requests=1, cost_usd=estimate_cost(model, prompt, output))


def _reply_from_cache(entry: Mapping[str, Any], key: str, started: float) -> JudgeReply:
    """A JudgeReply rebuilt from a cache entry (usage counted as cached tokens, no cost)."""
    usage = entry.get("usage") or {}
    cached_tokens = int(usage.get("prompt", 0)) + int(usage.get("output", 0))
    return JudgeReply(
        value=entry["value"],
        text=entry.get("text", ""),
        model=entry.get("model", ""),
        usage=Usage(cached_requests=1, cached_tokens=cached_tokens, cost_usd=0.0),
        latency_ms=(time.monotonic() - started) * 1000,
        cache_hit=True,
        finish_reason=entry.get("finish_reason", "STOP"),
        attempts=0,
        logprobs=entry.get("logprobs"),
        key=key,
    )
