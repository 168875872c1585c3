"""A wire-level fake of the Pexels and Pixabay video search APIs on 127.0.0.1.

Speaks what their public documentation shows (see ``reeljudge/stock/sources.py``):

- Pexels ``GET /videos/search`` (and ``/v1/videos/search``): the key in ``Authorization``, params
  ``query``, ``per_page`` (1–80), ``page``; JSON ``{page, per_page, total_results, url, videos,
  next_page}``; ``X-Ratelimit-Limit/Remaining/Reset`` (UNIX time) on 2xx replies only; a 429 with no
  rate headers; 401 for a wrong key.
- Pixabay ``GET /api/videos/``: params ``key``, ``q`` (≤ 100 characters), ``per_page`` (3–200);
  JSON ``{total, totalHits, hits}`` with ``totalHits`` capped at 500; ``X-RateLimit-Limit/Remaining/
  Reset`` (seconds) on every reply; errors as plain text (``[ERROR 400] …``, 429 "API rate limit
  exceeded").

Counts are scripted per query (``counts``); faults are scripted per source and play in order
(``fail("pixabay", 429, times=2)``); a per-source request ``limit`` makes the fake answer 429 once
it is used up. Every request is recorded (``calls()``).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from support.local_server import LocalServer

PEXELS_KEY = "test-pexels-key-not-real"
PIXABAY_KEY = "test-pixabay-key-not-real"


@dataclass
class Call:
    """One request the fake received."""

    source: str
    query: str | None
    params: dict[str, str]
    headers: dict[str, str]
    status: int


@dataclass
class _Fault:
    status: int
    times: int
    retry_after_s: float | None = None


@dataclass
class FakeStock(LocalServer):
    """A running fake of both APIs; ``url`` is the base URL for either client."""

    counts: dict[str, int] = field(default_factory=dict)
    default_count: int = 0
    limit: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._faults: dict[str, list[_Fault]] = {"pexels": [], "pixabay": []}
        self._calls: list[Call] = []
        self._served: dict[str, int] = {"pexels": 0, "pixabay": 0}
        self._lock = threading.Lock()
        handler = type("Handler", (_Handler,), {"fake": self})
        self._listen(handler, name="fake-stock")  # url: both APIs' paths live under it

    def fail(self, source: str, status: int, *, times: int = 1, retry_after_s: float | None = None) -> None:
        """The next ``times`` requests to ``source`` get HTTP ``status``."""
        with self._lock:
            self._faults[source].append(_Fault(status, times, retry_after_s))

    def calls(self, source: str | None = None) -> list[Call]:
        """Requests received so far (of one source, or all)."""
        with self._lock:
            return [c for c in self._calls if source is None or c.source == source]

    def count_for(self, query: str) -> int:
        """The scripted number of clips for a query (case and spacing ignored)."""
        return self.counts.get(" ".join(query.lower().split()), self.default_count)

    def _next_fault(self, source: str) -> _Fault | None:
        with self._lock:
            queue = self._faults[source]
            if not queue:
                over = source in self.limit and self._served[source] >= self.limit[source]
                return _Fault(429, 1) if over else None
            fault = queue[0]
            fault.times -= 1
            if fault.times <= 0:
                queue.pop(0)
            return fault

    def _record(self, call: Call) -> None:
        with self._lock:
            self._calls.append(call)
            if call.status == 200:
                self._served[call.source] += 1


class _Handler(BaseHTTPRequestHandler):
    fake: FakeStock

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        parts = urlsplit(self.path)
        params = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        if parts.path.rstrip("/") in ("/videos/search", "/v1/videos/search"):
            self._pexels(params)
        elif parts.path.rstrip("/") == "/api/videos":
            self._pixabay(params)
        else:
            self._send(404, "text/plain", b"not found", {})

    def _pexels(self, params: dict[str, str]) -> None:
        query = params.get("query")
        status, body, ctype, headers = self._pexels_reply(query, params)
        self.fake._record(Call("pexels", query, params, dict(self.headers.items()), status))
        self._send(status, ctype, body, headers)

    def _pexels_reply(self, query: str | None, params: dict[str, str]) -> tuple[int, bytes, str, dict[str, str]]:
        if self.headers.get("Authorization") != PEXELS_KEY:
            return 401, json.dumps({"error": "Unauthorized"}).encode(), "application/json", {}
        fault = self.fake._next_fault("pexels")
        if fault is not None:
            extra = {"Retry-After": str(fault.retry_after_s)} if fault.retry_after_s is not None else {}
            return fault.status, b"Too Many Requests" if fault.status == 429 else b"error", "text/plain", extra
        per_page = int(params.get("per_page", "15"))
        if not query or not 1 <= per_page <= 80:
            return 400, json.dumps({"error": "Bad Request"}).encode(), "application/json", {}
        total = self.fake.count_for(query)
        videos = [{"id": 1000 + i, "width": 1920, "height": 1080, "url": f"https://www.pexels.com/video/{1000 + i}/",
                   "image": "https://images.pexels.com/videos/x.jpeg", "duration": 12,
                   "user": {"id": 1, "name": "Fake", "url": "https://www.pexels.com/@fake"},
                   "video_files": [{"id": 1, "quality": "hd", "file_type": "video/mp4", "width": 1920, "height": 1080,
                                    "link": "https://videos.pexels.com/video-files/x.mp4"}],
                   "video_pictures": []} for i in range(min(per_page, total))]
        reply = {"page": int(params.get("page", "1")), "per_page": per_page, "total_results": total,
                 "url": f"https://www.pexels.com/search/videos/{query}/", "videos": videos}
        if total > per_page:
            reply["next_page"] = f"https://api.pexels.com/videos/search/?page=2&per_page={per_page}&query={query}"
        served = len(self.fake.calls("pexels"))
        headers = {"X-Ratelimit-Limit": "20000", "X-Ratelimit-Remaining": str(max(0, 19999 - served)),
                   "X-Ratelimit-Reset": str(int(time.time()) + 86400)}
        return 200, json.dumps(reply).encode(), "application/json", headers

    def _pixabay(self, params: dict[str, str]) -> None:
        query = params.get("q")
        status, body, ctype = self._pixabay_reply(query, params)
        self.fake._record(Call("pixabay", query, params, dict(self.headers.items()), status))
        served = len(self.fake.calls("pixabay"))
        headers = {"X-RateLimit-Limit": "100", "X-RateLimit-Remaining": str(max(0, 100 - served)), "X-RateLimit-Reset": "0.05"}
        self._send(status, ctype, body, headers)

    def _pixabay_reply(self, query: str | None, params: dict[str, str]) -> tuple[int, bytes, str]:
        if params.get("key") != PIXABAY_KEY:
            return 400, b"[ERROR 400] Invalid or missing API key (https://pixabay.com/api/docs/).", "text/plain"
        fault = self.fake._next_fault("pixabay")
        if fault is not None:
            return fault.status, b"API rate limit exceeded" if fault.status == 429 else b"[ERROR] fake fault", "text/plain"
        per_page = int(params.get("per_page", "20"))
        if query is not None and len(query) > 100:
            return 400, b'[ERROR 400] "q" exceeds the maximum length of 100 characters.', "text/plain"
        if not 3 <= per_page <= 200:
            return 400, b'[ERROR 400] "per_page" is out of valid range.', "text/plain"
        total = self.fake.count_for(query or "")
        hits = [{"id": 2000 + i, "pageURL": f"https://pixabay.com/videos/id-{2000 + i}/", "type": "film", "tags": query,
                 "duration": 10, "videos": {"tiny": {"url": "https://cdn.pixabay.com/video/x_tiny.mp4", "width": 640,
                                                      "height": 360, "size": 100000, "thumbnail": ""}},
                 "views": 1, "downloads": 1, "likes": 0, "comments": 0, "user_id": 1, "user": "fake", "userImageURL": ""}
                for i in range(min(per_page, total))]
        return 200, json.dumps({"total": total, "totalHits": min(total, 500), "hits": hits}).encode(), "application/json"

    def _send(self, status: int, ctype: str, body: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)
