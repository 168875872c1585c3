"""The wire formats of the two stock-video search APIs, as their public documentation gives them.

Pexels (``https://api.pexels.com``): ``GET /videos/search?query=…&per_page=…&page=…`` with the key in
the ``Authorization`` header; JSON ``{page, per_page, total_results, url, videos: […], next_page}``.
Successful replies carry ``X-Ratelimit-Limit`` / ``-Remaining`` (monthly quota) and
``X-Ratelimit-Reset`` (a UNIX time); a 429 carries none of them. Default limits: 200 requests an
hour, 20,000 a month; ``per_page`` 1–80.

Pixabay (``https://pixabay.com``): ``GET /api/videos/?key=…&q=…&per_page=…`` (``q`` at most 100
characters, ``per_page`` 3–200); JSON ``{total, totalHits, hits: […]}`` where ``totalHits`` is what
the API will hand out (at most 500). Replies carry ``X-RateLimit-Limit`` / ``-Remaining`` and
``X-RateLimit-Reset`` in *seconds* until the window resets (100 requests per 60 s); errors are a
plain-text body with the HTTP status (429 "API rate limit exceeded"). Pixabay asks that results be
cached for 24 hours.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping


@dataclass(frozen=True)
class Source:
    """One stock-video search API: where it lives, how to ask it, how to read its answer."""

    name: str  # "pexels" or "pixabay"
    label: str  # "Pexels"
    key_env: str  # environment variable holding the API key
    base_url_env: str  # environment variable that points the client elsewhere (tests: a local fake)
    default_base_url: str
    max_query_chars: int | None
    request: Callable[[str, str, str], tuple[str, dict[str, str]]]  # (base, query, key) -> (url, headers)
    total: Callable[[Mapping[str, Any]], int]  # count of clips in a reply; KeyError/TypeError if absent
    retry_after: Callable[[Mapping[str, str]], float | None]  # seconds to wait, from a 429's headers


def _pexels_request(base: str, query: str, key: str) -> tuple[str, dict[str, str]]:
    """GET /videos/search with the key in the Authorization header; one clip per page is enough."""
    from urllib.parse import urlencode  # here: a cache hit builds no request

    return f"{base.rstrip('/')}/videos/search?" + urlencode({"query": query, "per_page": 1, "page": 1}), {"Authorization": key}


def _pixabay_request(base: str, query: str, key: str) -> tuple[str, dict[str, str]]:
    """GET /api/videos/ with the key as a parameter; 3 is the smallest page Pixabay accepts."""
    from urllib.parse import urlencode

    return f"{base.rstrip('/')}/api/videos/?" + urlencode({"key": key, "q": query, "per_page": 3}), {}


def _int_field(reply: Mapping[str, Any], name: str) -> int:
    """A non-negative integer field of a reply; KeyError/TypeError when it is missing or not one."""
    value = reply[name]
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TypeError(f"{name!r} is {value!r}, not a count")
    return value


def _header(headers: Mapping[str, str], name: str) -> str | None:
    """A header value, whatever the case of its name."""
    wanted = name.lower()
    return next((v for k, v in headers.items() if k.lower() == wanted), None)


def _seconds_header(headers: Mapping[str, str], name: str) -> float | None:
    """A header holding seconds to wait, or None."""
    try:
        value = float(_header(headers, name) or "")
    except ValueError:
        return None
    return value if value >= 0 else None


def _pexels_retry_after(headers: Mapping[str, str]) -> float | None:
    """Pexels sends no rate headers with a 429; a Retry-After is honoured if one ever comes."""
    return _seconds_header(headers, "Retry-After")


def _pixabay_retry_after(headers: Mapping[str, str]) -> float | None:
    """Retry-After, else X-RateLimit-Reset (seconds until the window resets)."""
    return _seconds_header(headers, "Retry-After") or _seconds_header(headers, "X-RateLimit-Reset")


PEXELS = Source(
    name="pexels", label="Pexels", key_env="PEXELS_API_KEY", base_url_env="PEXELS_API_BASE_URL",
    default_base_url="https://api.pexels.com", max_query_chars=None, request=_pexels_request,
    total=lambda reply: _int_field(reply, "total_results"), retry_after=_pexels_retry_after,
)
PIXABAY = Source(
    name="pixabay", label="Pixabay", key_env="PIXABAY_API_KEY", base_url_env="PIXABAY_API_BASE_URL",
    default_base_url="https://pixabay.com", max_query_chars=100, request=_pixabay_request,
    total=lambda reply: _int_field(reply, "totalHits"), retry_after=_pixabay_retry_after,
)
SOURCES: dict[str, Source] = {s.name: s for s in (PEXELS, PIXABAY)}


def rate_limit_status(headers: Mapping[str, str], now: float | None = None) -> dict[str, Any]:
    """The rate-limit headers of a reply, if any (limit, remaining, reset as sent)."""
    status = {k: _header(headers, f"X-RateLimit-{k.title()}") for k in ("limit", "remaining", "reset")}
    out: dict[str, Any] = {k: v for k, v in status.items() if v is not None}
    if out:
        out["seen_at"] = round(now if now is not None else time.time())
    return out
