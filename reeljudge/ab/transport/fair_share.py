"""A fair share of the rating server per rater and per address: token buckets in front of every route.

Each request is charged to one bucket before any route runs: to its invite token's when the path
(``/r/<token>``, ``/api/r/<token>/…``) names a valid token, to the token's bucket for static files
when it is one of the page's files under the token (``/r/<token>/static/<name>``, ``assets.py``:
not the bucket the rater's tasks and clips draw on), else to its client address's (IPv6: its /64)
— unknown tokens, the shared ``/static/`` files, the admin pages. A bucket holds ``burst``
requests and refills at ``rate`` a second. A request without a body that finds its bucket empty
waits for its turn when that comes within ``max_wait`` seconds (an honest page that bursts is
paced, not refused; a request with a body never waits, it would hold the body's first bytes
meanwhile); otherwise it is answered 429 with ``Retry-After`` (whole seconds) and its connection
is held: nothing more is read from it until then (``Connection.hold``), so a client that ignores
``Retry-After`` costs nothing meanwhile. A token may have ``active_per_token`` requests in
progress at once (a page needs a handful: its task, two clip streams, a submit); one more is a 429
too, so one rater cannot hold the server's connections with slow clip streams.

A token is recognised before any bucket is charged (issue 46): one the store knows is trusted for
``TOKEN_TTL_S``, one it does not know is refused without a look-up for ``UNKNOWN_TTL_S``, any
other is looked up in a worker thread (``LOOKUPS`` at once, the others wait their turn). So a
valid link works on its first request however empty its address's bucket is (a tokenless flood
from a rater's NAT or classroom never refuses the rater), while an invented token costs one
look-up and is then charged to its address like any request without one. A re-issued link's old
token goes back to its address's bucket once its trust runs out. A valid token also marks its
connection authenticated, so raters behind one address are told apart by token and never meet the
per-address connection cap; a connection admitted on probation over that cap
(``limits.Registry.admit``) whose request carries no valid token is answered 503 with
``Retry-After`` and closed.

Behind a reverse proxy every request comes from the proxy's address: turn the address bucket off
(``rate_per_address=0``) and let the proxy limit per client (docs/ab.md).
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from reeljudge.ab.transport.limits import address_key

if TYPE_CHECKING:  # starlette: the rating extra
    from starlette.types import ASGIApp, Receive, Scope, Send

TOKEN_TTL_S = 60.0
#: how long a token the store did not know is refused without a new look-up (a link invited meanwhile works after this)
UNKNOWN_TTL_S = 5.0
#: tokens looked up in the store at once (the others wait their turn): a flood of invented tokens cannot take the worker threads
LOOKUPS = 4
#: the scope key set (True) for a request whose path names a valid invite token
VALID_TOKEN = "reeljudge.valid_token"
#: a static file under a token (``/r/<token>/static/<name>``): charged to the token's bucket for static files
_STATIC = re.compile(r"\A/r/[A-Za-z0-9_-]{8,128}/static/[A-Za-z0-9_.-]+\Z")
#: requests at once (burst) and a second (sustained) per token for its static files: the page's few, again when it reloads
STATIC_BURST = 40
STATIC_RATE = 4.0
#: a path segment that can be an invite token (``new_invite_token``: 24 URL-safe characters; at most 8-128); no other is looked up
_TOKEN = re.compile(r"\A/(?:api/)?r/([A-Za-z0-9_-]{8,128})(?:/|\Z)")
_MAX_BUCKETS = 4096


@dataclass(frozen=True)
class RateLimits:
    """Requests a second (sustained) and at once (burst) per invite token and per address without one (rate 0: no limit);
    requests in progress at once per token (0: no limit); the longest a request waits for its turn before it is refused."""

    rate_per_token: float = 20.0
    burst_per_token: int = 100
    rate_per_address: float = 20.0
    burst_per_address: int = 100
    active_per_token: int = 16
    max_wait: float = 2.0


class _Bucket:
    """A token bucket: ``level`` requests left at time ``at`` (negative: requests already waiting for their turn)."""

    __slots__ = ("level", "at")

    def __init__(self, level: float, at: float) -> None:
        self.level, self.at = level, at


class Buckets:
    """Token buckets by key; ``take`` says how long a request must wait for its turn (or that it must not)."""

    def __init__(self) -> None:
        self.buckets: dict[Any, _Bucket] = {}

    def take(self, key: Any, rate: float, burst: int, max_wait: float, now: float) -> float:
        """Seconds the request must wait for its turn (0: go now), or a negative number: −(seconds until it may retry)."""
        if rate <= 0:
            return 0.0
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) >= _MAX_BUCKETS:
                self._prune(rate, burst, now)
            bucket = self.buckets[key] = _Bucket(float(burst), now)
        bucket.level = min(float(burst), bucket.level + (now - bucket.at) * rate) - 1
        bucket.at = now
        wait = -bucket.level / rate if bucket.level < 0 else 0.0
        if wait > max_wait:
            bucket.level += 1  # refused: it does not take a turn
            return -max(1.0, math.ceil(wait - max_wait))
        return wait

    def _prune(self, rate: float, burst: int, now: float) -> None:
        """Forget the buckets that are full again (as good as new)."""
        self.buckets = {k: b for k, b in self.buckets.items() if b.level + (now - b.at) * rate < burst}


class FairShare:
    """ASGI middleware: every request charged to its token's or its address's bucket before ``app`` sees it."""

    def __init__(self, app: ASGIApp, is_valid_token: Callable[[str], bool], limits: RateLimits = RateLimits()) -> None:
        self.app, self.is_valid_token, self.limits = app, is_valid_token, limits
        self.buckets = Buckets()
        self.known: dict[str, float] = {}  # valid token -> when it stops being trusted without a new check
        self.unknown: dict[str, float] = {}  # invalid token -> when it is looked up again
        self._lookups = asyncio.Semaphore(LOOKUPS)
        self.active: dict[str, int] = {}  # valid token -> its requests in progress

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        connection = scope.get("extensions", {}).get("reeljudge.connection")
        path = scope.get("path", "")
        match = _TOKEN.match(path)
        token = match.group(1) if match else None
        patience = 0.0 if _has_body(scope) else self.limits.max_wait  # a waiting request would hold its body's first bytes
        held = token if token is not None and await self._valid(token) else None  # a valid invite link's token
        now = time.monotonic()
        static = held is not None and _STATIC.match(path) is not None
        if held is not None:
            scope[VALID_TOKEN] = True
            wait = self._take(("static" if static else "token", held), now, patience)
        else:
            wait = self._take(("address", address_key((scope.get("client") or ("",))[0])), now, patience)
        if connection is not None and held is not None:
            connection.authenticate()
        elif connection is not None and connection.on_probation:
            message = "Too many connections from this address without a valid invite link"
            return await _answer(scope, send, 503, message, 2, close=True)
        if wait < 0:
            if connection is not None:
                connection.hold(-wait)
            return await _answer(scope, send, 429, "Too many requests", -wait)
        if held is not None and not static and self.active.get(held, 0) >= self.limits.active_per_token > 0:
            if connection is not None:
                connection.hold(1.0)
            return await _answer(scope, send, 429, "Too many requests at once for this invite link", 1)
        if wait > 0:
            await asyncio.sleep(wait)
        if held is None or static:
            return await self.app(scope, receive, send)
        self.active[held] = self.active.get(held, 0) + 1
        try:
            await self.app(scope, receive, send)
        finally:
            left = self.active.pop(held) - 1
            if left:
                self.active[held] = left

    async def _valid(self, token: str) -> bool:
        """Whether ``token`` is a valid invite token: known (checked within TOKEN_TTL_S), known invalid (within
        UNKNOWN_TTL_S), else looked up in the store (``LOOKUPS`` at once) before any bucket is charged, so a valid link is
        recognised on its first request however empty its address's bucket is."""
        now = time.monotonic()
        if self.known.get(token, 0.0) > now:
            return True
        if self.unknown.get(token, 0.0) > now:
            return False
        async with self._lookups:
            return await self._check(token)

    def _take(self, key: tuple[str, str], now: float, patience: float) -> float:
        """``Buckets.take`` with the limits of the key's kind, waiting ``patience`` seconds at most."""
        if key[0] == "token":
            return self.buckets.take(key, self.limits.rate_per_token, self.limits.burst_per_token, patience, now)
        if key[0] == "static":
            return self.buckets.take(key, STATIC_RATE if self.limits.rate_per_token > 0 else 0.0, STATIC_BURST, patience, now)
        return self.buckets.take(key, self.limits.rate_per_address, self.limits.burst_per_address, patience, now)

    async def _check(self, token: str) -> bool:
        """Whether the store knows ``token`` (looked up in a worker thread); a valid one is checked again after TOKEN_TTL_S."""
        from starlette.concurrency import run_in_threadpool

        valid = await run_in_threadpool(self.is_valid_token, token)
        now = time.monotonic()
        if valid:
            self.known = _room_in(self.known, now)
            self.known[token] = now + TOKEN_TTL_S
            self.unknown.pop(token, None)
        else:
            self.known.pop(token, None)
            self.unknown = _room_in(self.unknown, now)
            self.unknown[token] = now + UNKNOWN_TTL_S
        return valid


def _room_in(until: dict[str, float], now: float) -> dict[str, float]:
    """``until`` (token -> when it is to be checked again) with room for one more: the expired ones dropped when it is full,
    and the oldest half too if none had expired."""
    if len(until) < _MAX_BUCKETS:
        return until
    kept = {t: at for t, at in until.items() if at > now}
    if len(kept) >= _MAX_BUCKETS:
        kept = dict(sorted(kept.items(), key=lambda item: item[1])[len(kept) // 2:])
    return kept


def _has_body(scope: Scope) -> bool:
    """Whether the request declares a body (a length other than 0, or chunked)."""
    headers = dict(scope.get("headers") or [])
    return headers.get(b"content-length", b"0").strip() not in (b"", b"0") or b"transfer-encoding" in headers


async def _answer(scope: Scope, send: Send, status: int, message: str, retry_after: float, close: bool = False) -> None:
    """A refusal (429 or 503) with ``Retry-After`` in whole seconds: JSON under /api/, plain text elsewhere. The connection is
    closed after it when asked, or when the request has a body (never read: the connection could not carry another request)."""
    close = close or _has_body(scope)
    seconds = int(retry_after)
    text = f"{message}; try again in {seconds} s."
    api = scope.get("path", "").startswith("/api/")
    body = json.dumps({"error": text, "retry_after": seconds}).encode() if api else text.encode()
    headers = [(b"content-type", b"application/json" if api else b"text/plain; charset=utf-8"),
               (b"content-length", str(len(body)).encode()), (b"retry-after", str(seconds).encode()),
               (b"cache-control", b"no-store")]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})
