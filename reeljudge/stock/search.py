"""How many clips a stock-video API returns for a query: one GET, retried by the shared policy, cached.

Counts are cached in the judge cache (``kind`` ``stock.count``), keyed by source, endpoint and
the normalised query — never by the API key — and refreshed after ``max_age_h`` hours (Pixabay asks
for at least 24). In cache mode ``replay`` the APIs are never called: a missing count is an error.
Heavy or networked modules (``urllib.request``) are imported only when a request is made.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, TypeVar

from reeljudge.cache import JudgeCache, request_key
from reeljudge.errors import JudgeError
from reeljudge.retry import RetryPolicy
from reeljudge.stock.sources import Source, rate_limit_status

CACHE_KIND = "stock.count"
USER_AGENT = "reeljudge/0.1 (findability check)"
T = TypeVar("T")
Classified = tuple[bool, str, float | None]  # (worth retrying, what happened, server's wait hint in s)


class StockSearchError(JudgeError):
    """A stock-video API did not give a count: what happened, for which source."""

    kind = "stock_search_error"


@dataclass(frozen=True)
class SearchSettings:
    """Cache and patience for stock searches (filled from the judge settings)."""

    cache_dir: str
    cache_mode: str = "readwrite"
    max_age_h: float = 168.0
    policy: RetryPolicy = field(default_factory=lambda: RetryPolicy(timeout_s=20.0, deadline_s=60.0))


@dataclass(frozen=True)
class ClipCount:
    """The number of clips one source returns for one query."""

    source: str
    query: str
    total: int
    cached: bool
    rate_limit: dict[str, Any] = field(default_factory=dict)


def normalise_query(term: str) -> str:
    """Lower case, single spaces: "Server  Room" and "server room" are one request."""
    return " ".join(term.lower().split())


def count_clips(source: Source, term: str, *, key: str | None, base_url: str, settings: SearchSettings,
                cache: JudgeCache) -> ClipCount:
    """Clips ``source`` returns for ``term`` (cached); StockSearchError when it gave no count."""
    query = normalise_query(term)
    if source.max_query_chars is not None and len(query) > source.max_query_chars:
        raise StockSearchError(f"{source.label} takes queries of at most {source.max_query_chars} characters; "
                               f"'{query[:40]}…' has {len(query)}", kind="query_too_long")
    cache_key = request_key({"kind": CACHE_KIND, "source": source.name, "endpoint": "videos/search", "query": query})
    entry = cache.get(cache_key)
    fresh = (entry is not None
             and (cache.mode == "replay" or time.time() - float(entry.get("created", 0)) < settings.max_age_h * 3600))
    if entry is not None and fresh:
        value = entry["value"]
        return ClipCount(source.name, query, int(value["total"]), True, dict(value.get("rate_limit", {})))
    if cache.mode == "replay":
        raise StockSearchError(f"cache mode is 'replay' and no {source.label} count is cached for '{query}'", kind="cache_miss")
    if not key:
        raise StockSearchError(f"no {source.label} API key ({source.key_env})", kind="no_credentials")
    url, headers = source.request(base_url, query, key)
    total, reply_headers = with_retry(lambda timeout: _fetch(source, url, headers, timeout), settings,
                                      lambda exc: classify(source, exc))
    limits = rate_limit_status(reply_headers)
    cache.put(cache_key, CACHE_KIND, {"value": {"total": total, "rate_limit": limits}})
    return ClipCount(source.name, query, total, False, limits)


def with_retry(fn: Callable[[float], T], settings: SearchSettings, classify_fn: Callable[[BaseException], Classified]) -> T:
    """The one call site of the shared retry policy for stock searches: 429, 5xx and transport
    errors are retried with backoff (or the server's wait hint), the rest fail at once."""
    from reeljudge import retry

    def problem(exc: BaseException) -> retry.Problem:
        retryable, text, hint = classify_fn(exc)
        last["kind"] = failure_kind(exc)
        return retry.Problem(retryable, text, hint)

    last = {"kind": "stock_search_error"}
    try:
        value, _attempts = retry.call(fn, settings.policy, problem)
    except retry.GaveUp as gave_up:
        raise StockSearchError(str(gave_up), kind=last["kind"]) from None
    return value


def failure_kind(exc: BaseException) -> str:
    """``rate_limited`` for an HTTP 429, ``stock_search_error`` otherwise."""
    return "rate_limited" if getattr(exc, "code", None) == 429 else "stock_search_error"


def _fetch(source: Source, url: str, headers: Mapping[str, str], timeout_s: float) -> tuple[int, dict[str, str]]:
    """One GET; the clip count and the reply's headers. HTTP and transport errors propagate."""
    import urllib.request

    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, "Accept": "application/json", **headers})
    with urllib.request.urlopen(request, timeout=timeout_s) as response:  # noqa: S310 - https or a configured base URL
        body = response.read()
        reply_headers = dict(response.headers.items())
    try:
        reply = json.loads(body)
        return source.total(reply), reply_headers
    except (ValueError, KeyError, TypeError) as exc:
        raise _Unreadable(f"{source.label} replied with something that is not a search result ({exc}): {body[:120]!r}") from None


class _Unreadable(Exception):
    """A 2xx reply without a clip count."""


def classify(source: Source, exc: BaseException) -> Classified:
    """What a failed request means: rate limit and server errors are worth retrying, the rest not."""
    import urllib.error

    if isinstance(exc, urllib.error.HTTPError):
        body = _body_text(exc)
        headers = dict(exc.headers.items()) if exc.headers else {}
        if exc.code == 429:
            return True, f"{source.label} rate limit reached (HTTP 429){body}", source.retry_after(headers)
        if exc.code in (401, 403):
            return False, f"{source.label} rejected the API key in {source.key_env} (HTTP {exc.code}){body}", None
        return exc.code >= 500 or exc.code == 408, f"{source.label} answered HTTP {exc.code}{body}", None
    if isinstance(exc, _Unreadable):
        return False, str(exc), None
    if isinstance(exc, (urllib.error.URLError, TimeoutError, ConnectionError, OSError)):
        reason = getattr(exc, "reason", exc)
        return True, f"{source.label} could not be reached: {reason}", None
    return False, f"{source.label} request failed: {type(exc).__name__}: {exc}", None


def _body_text(exc: Any) -> str:
    """The first line of an error body, for the reason (Pixabay explains errors in plain text)."""
    try:
        text = exc.read().decode("utf-8", "replace").strip()
    except Exception:  # noqa: BLE001 - a body we cannot read adds nothing
        return ""
    return f": {text.splitlines()[0][:160]}" if text else ""
