"""What goes over the wire to Gemini and what comes back: request contents and config, the checks
on a response (blocked, cut off, refused, empty), token usage, and what an exception means.

google-genai is imported only inside the functions that build SDK objects.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Mapping

from reeljudge.errors import JudgeError
from reeljudge.gemini.pricing import estimate_cost
from reeljudge.gemini.request import Usage
from reeljudge.retry import Problem

if TYPE_CHECKING:  # pragma: no cover - typing only
    from reeljudge.gemini.request import JudgeRequest, MediaInput
    from reeljudge.gemini.settings import JudgeSettings

RETRYABLE_CODES = frozenset({408, 429, 500, 502, 503, 504})
FINISH_OK = frozenset({"STOP", "FINISH_REASON_UNSPECIFIED", ""})


def wire_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The schema as sent to Gemini: without the document keywords (``$schema``, ``$id``) it does not take."""
    return {k: v for k, v in schema.items() if k not in ("$schema", "$id")}


def user_content(parts: tuple["str | MediaInput", ...]) -> dict[str, Any]:
    """A user turn in google-genai's dict form."""
    return {"role": "user", "parts": [part if isinstance(part, dict) else _part(part) for part in parts]}


def _part(part: "str | MediaInput") -> dict[str, Any]:
    """One text or media part."""
    if isinstance(part, str):
        return {"text": part}
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
    return item


def feedback_text(error: str) -> str:
    """The follow-up turn that asks the judge to correct an unusable reply."""
    return f"Your previous reply could not be used: {error}\nReply again with only the answer, in the asked format."


def generation_config(request: "JudgeRequest", settings: "JudgeSettings", timeout_s: float) -> Any:
    """The GenerateContentConfig for a request under these settings."""
    from google.genai import types

    config: dict[str, Any] = {
        "system_instruction": request.system,
        "temperature": settings.temperature,
        "max_output_tokens": settings.max_output_tokens,
        "http_options": types.HttpOptions(timeout=max(1, int(timeout_s * 1000))),
    }
    if settings.thinking_budget is not None:
        config["thinking_config"] = types.ThinkingConfig(thinking_budget=settings.thinking_budget)
    if request.schema is not None:
        config["response_mime_type"] = "application/json"
        config["response_json_schema"] = wire_schema(request.schema)
    if request.media_resolution:
        config["media_resolution"] = f"MEDIA_RESOLUTION_{request.media_resolution.upper()}"
    if request.response_logprobs:
        config["response_logprobs"] = True
        config["logprobs"] = 5
    return types.GenerateContentConfig(**config)


def classify_error(exc: BaseException, timeout_s: float) -> Problem:
    """Whether an exception from a google-genai call is worth retrying, and one line saying what it was."""
    code = getattr(exc, "code", None)
    if isinstance(code, int) and type(exc).__name__.endswith("Error") and hasattr(exc, "status"):
        status = getattr(exc, "status", None) or ""
        message = (getattr(exc, "message", None) or "").strip()
        return Problem(code in RETRYABLE_CODES, f"HTTP {code} {status}: {message[:300]}".strip(), retry_delay_hint(exc))
    name = type(exc).__name__
    module = type(exc).__module__ or ""
    if isinstance(exc, TimeoutError) or "Timeout" in name:
        return Problem(True, f"the request timed out (per-attempt timeout {timeout_s:g} s)", timed_out=True)
    if module.split(".")[0] in ("httpx", "httpx2", "httpcore") or isinstance(exc, ConnectionError):
        return Problem(True, f"transport error {name}: {str(exc)[:200]}")
    return Problem(False, f"{name}: {str(exc)[:300]}")


def retry_delay_hint(exc: BaseException) -> float | None:
    """The ``retryDelay`` a 429 reply suggests, in seconds, if any."""
    details = getattr(exc, "details", None)
    match = re.search(r"retryDelay['\"]?\s*[:=]\s*['\"]?(\d+(?:\.\d+)?)s", str(details))
    return float(match.group(1)) if match else None


def enum_name(value: Any) -> str:
    """An SDK enum's name (or the string itself)."""
    if value is None:
        return ""
    return str(getattr(value, "name", value))


def checked_reply(response: Any, max_output_tokens: int) -> tuple[str, str, Any]:
    """The reply text, finish reason and logprobs; JudgeError if blocked, cut off, refused or empty."""
    feedback = getattr(response, "prompt_feedback", None)
    block = enum_name(getattr(feedback, "block_reason", None)) if feedback else ""
    if block and block != "BLOCKED_REASON_UNSPECIFIED":
        message = getattr(feedback, "block_reason_message", None) or ""
        raise JudgeError(f"Gemini blocked the prompt (block_reason={block}) {message}".strip(), kind="blocked")
    candidates = getattr(response, "candidates", None) or []
    if not candidates:
        raise JudgeError("Gemini returned no candidates and no block reason", kind="empty")
    candidate = candidates[0]
    finish = enum_name(getattr(candidate, "finish_reason", None))
    parts = getattr(getattr(candidate, "content", None), "parts", None) or []
    text = "".join(p.text for p in parts if getattr(p, "text", None) and not getattr(p, "thought", False))
    if finish == "MAX_TOKENS":
        raise JudgeError(
            f"the reply was cut off at max_output_tokens={max_output_tokens} "
            f"({len(text)} characters arrived); raise max_output_tokens",
            kind="max_tokens",
            raw=text,
        )
    if finish not in FINISH_OK:
        raise JudgeError(f"Gemini stopped with finish_reason={finish}: the judge refused or was filtered",
                         kind="safety", raw=text)
    if not text.strip():
        raise JudgeError(f"Gemini returned an empty reply (finish_reason={finish or 'none'})", kind="empty")
    logprobs = getattr(candidate, "logprobs_result", None)
    if logprobs is not None and hasattr(logprobs, "model_dump"):
        logprobs = logprobs.model_dump(mode="json", exclude_none=True)
    return text, finish or "STOP", logprobs


def usage_of(response: Any, model: str, *, batch: bool = False) -> Usage:
    """Token counts and cost of one call from ``usage_metadata`` (``batch``: at Batch API prices)."""
    meta = getattr(response, "usage_metadata", None)
    prompt = int(getattr(meta, "prompt_token_count", 0) or 0)
    output = int(getattr(meta, "candidates_token_count", 0) or 0) + int(getattr(meta, "thoughts_token_count", 0) or 0)
    return Usage(prompt_tokens=prompt, output_tokens=output, requests=1,
                 cost_usd=estimate_cost(model, prompt, output, batch=batch))


def describe_error(exc: BaseException) -> str:
    """One line for an error from a Files or operations call."""
    code = getattr(exc, "code", None)
    message = getattr(exc, "message", None) or str(exc)
    return f"HTTP {code}: {message[:300]}" if code else f"{type(exc).__name__}: {message[:300]}"
