"""The one judge client: every Gemini judge call goes through ``JudgeClient.ask``.

It owns the cache lookup, the credentials check, the call (google-genai, imported only when a call
is really made) under the one retry policy, the checks on what came back (``wire.checked_reply``),
one more turn with the reader's objection fed back when a reply cannot be used, token usage and
a cost estimate. Anything that is not a real judgement raises ``JudgeError`` saying what happened.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, NoReturn

from reeljudge.cache import JudgeCache, request_key
from reeljudge.errors import JudgeError
from reeljudge.gemini import wire
from reeljudge.gemini.request import JudgeRequest, Usage
from reeljudge.gemini.settings import JudgeSettings, require_credentials


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
    usage: "Usage"
    attempts: int
    logprobs: Any = None


#: where a client in cache mode ``plan`` sends a request that missed the cache, with its reply
#: parser and cache key: it records the request for later and raises JudgeError (never returns).
#: The batch layer hands one in (``reeljudge.batch.planner``); the client knows nothing of batches.
Planner = Callable[["JudgeClient", JudgeRequest, Callable[[str], Any], str], NoReturn]

#: how many entries found by ``JudgeClient.is_cached`` are kept for the ``ask`` that follows
FOUND_KEPT = 8


@dataclass
class JudgeClient:
    """Asks Gemini (or the cache) for structured judgements under one set of settings."""

    settings: JudgeSettings
    cache: JudgeCache | None = None
    planner: Planner | None = None
    _genai: Any = field(default=None, repr=False)
    #: entries ``is_cached`` found, by key, handed to the ``ask`` that follows (a hit reads its entry once);
    #: the newest FOUND_KEPT only, so checks never followed by an ask cannot grow a long-lived client
    _found: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.cache is None:
            self.cache = self.settings.judge_cache()

    def key(self, request: JudgeRequest) -> str:
        """The cache key of ``request`` under these settings."""
        return request_key(request.cache_payload(self.settings))

    def is_cached(self, request: JudgeRequest) -> bool:
        """Whether a reply to ``request`` is in the cache (a cache hit needs no media upload)."""
        assert self.cache is not None
        key = self.key(request)
        entry = self.cache.get(key)
        if entry is not None:
            self._found.pop(key, None)
            self._found[key] = entry
            while len(self._found) > FOUND_KEPT:
                del self._found[next(iter(self._found))]
        return entry is not None

    def ask(self, request: JudgeRequest, parse: Callable[[str], Any]) -> JudgeReply:
        """The judge's parsed answer to ``request``; JudgeError when the judge did not judge."""
        started = time.monotonic()
        key = self.key(request)
        assert self.cache is not None
        entry = self._found.pop(key, None) or self.cache.require(key, f"{request.kind} request")
        if entry is not None:
            return _reply_from_cache(entry, key, started)
        if self.cache.mode == "plan":
            if self.planner is None:
                raise JudgeError(f"cache mode 'plan' records requests for a batch, but the client of this {request.kind} "
                                 "request was made without a planner", kind="not_batchable")
            self.planner(self, request, parse, key)  # records it, then raises JudgeError(queued_for_batch)
        require_credentials(self.settings, f"the {request.kind} request",
                            "; or run with cache: replay on replies recorded earlier")
        from reeljudge.gemini.replies import ReplyInvalid  # here: a cache hit reads no reply
        from reeljudge.retry import deadline_in

        deadline = deadline_in(self.settings.deadline_s)
        contents = [wire.user_content(request.parts)]
        call_ = self._generate(request, contents, deadline)
        usage, attempts, feedback = call_.usage, call_.attempts, None
        try:
            value = parse(call_.text)
        except ReplyInvalid as invalid:
            feedback = str(invalid)
            contents += [{"role": "model", "parts": [{"text": call_.text}]}, wire.user_content((wire.feedback_text(feedback),))]
            first_text = call_.text
            call_ = self._generate(request, contents, deadline)
            usage, attempts = usage + call_.usage, attempts + call_.attempts
            try:
                value = parse(call_.text)
            except ReplyInvalid as again:
                raise JudgeError(
                    f"the judge's reply could not be used twice (second time: {again}); first time: {feedback}",
                    kind=again.kind,
                    raw=f"first reply:\n{first_text}\n\nsecond reply:\n{call_.text}",
                ) from None
        self.cache.put(key, request.kind,
                       reply_entry(self.settings.model, call_.text, value, call_.finish_reason, usage, call_.logprobs))
        return JudgeReply(value, call_.text, self.settings.model, usage, (time.monotonic() - started) * 1000, False,
                          call_.finish_reason, attempts, feedback, call_.logprobs, key)

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

    def classify(self, exc: BaseException) -> Any:
        """What an exception from a google-genai call means (see ``wire.classify_error``)."""
        return wire.classify_error(exc, self.settings.timeout_s)

    def _generate(self, request: JudgeRequest, contents: list[Any], deadline: float) -> _Call:
        """One checked generateContent result under the retry policy; JudgeError when it gives up."""
        from reeljudge.retry import GaveUp, call  # here: a cache hit makes no call

        def once(timeout_s: float) -> Any:
            return self.genai().models.generate_content(
                model=self.settings.model, contents=contents, config=wire.generation_config(request, self.settings, timeout_s)
            )

        try:
            response, attempts = call(once, self.settings.retry, self.classify, deadline=deadline)
        except GaveUp as gave_up:
            kind = "timeout" if gave_up.problem.timed_out else "api_error"
            if gave_up.why == "not retryable":
                raise JudgeError(f"Gemini rejected the request: {gave_up.problem.text}", kind=kind) from None
            raise JudgeError(str(gave_up), kind=kind) from None
        text, finish, logprobs = wire.checked_reply(response, self.settings.max_output_tokens)
        return _Call(text, finish, wire.usage_of(response, self.settings.model), attempts, logprobs)


def reply_entry(model: str, text: str, value: Any, finish_reason: str, usage: Usage, logprobs: Any,
                **extra: Any) -> dict[str, Any]:
    """The cache entry of one judged reply (online or from a batch): what a later hit is rebuilt from."""
    return {
        "model": model, "text": text, "value": value, "finish_reason": finish_reason,
        "usage": {"prompt": usage.prompt_tokens, "output": usage.output_tokens, "cost_usd": usage.cost_usd},
        "logprobs": logprobs, **extra,
    }


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
