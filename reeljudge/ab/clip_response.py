"""A clip sent to a rater: exactly the byte spans the server will credit, and nothing that tells the sides apart.

Starlette's ``FileResponse`` streams the file (whole, one range, or ``multipart/byteranges``) and
notices a client that goes away; this response narrows it to what a blind study needs:

- the spans sent are the spans the caller parsed (``requested_spans``: merged, at most
  ``MAX_RANGES``; a Range it refuses is the caller's 416, never a 500), so what is logged as
  evidence is exactly what went out;
- no validators: no ``Last-Modified`` and no ``ETag`` (both came from the file's time, which told
  the order the clips were written in), so an ``If-Range`` never matches and the whole clip is
  sent; ``Cache-Control: no-store``;
- the spans are logged only after every byte of a GET's body was handed to the server, before the
  last message: a HEAD, an error status or a dropped connection logs nothing, and a submit right
  after the response cannot outrun its log.
"""

from __future__ import annotations

import os
from typing import Any, Callable

from starlette.concurrency import run_in_threadpool
from starlette.responses import FileResponse

Spans = list[tuple[int, int]]  # (first, last) byte, inclusive


class ClipResponse(FileResponse):
    """A stored clip, whole or in the given spans; ``log(spans)`` runs once every byte of them was sent.

    ``spans``: the Range as parsed (and merged) by ``requested_spans``; ignored without a Range header.
    """

    def __init__(self, path: os.PathLike[str] | str, media_type: str, spans: Spans, log: Callable[[Spans], None]) -> None:
        super().__init__(path, media_type=media_type, headers={"Cache-Control": "no-store"})
        self.spans, self.log = spans, log

    def set_stat_headers(self, stat_result: os.stat_result) -> None:
        """The length only: no time-derived validator."""
        self.headers.setdefault("content-length", str(stat_result.st_size))

    def _should_use_range(self, http_if_range: str) -> bool:
        """Without validators an If-Range never matches: the whole clip is sent."""
        return False

    def _parse_range_header(self, http_range: str, file_size: int) -> list[tuple[int, int]]:  # type: ignore[override]
        """The caller's spans as Starlette's [start, end) pairs."""
        return [(first, last + 1) for first, last in self.spans]

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        status, sent = 0, 0
        extensions = {k: v for k, v in scope.get("extensions", {}).items() if k != "http.response.pathsend"}
        get = scope.get("method", "GET").upper() == "GET"

        async def sending(message: dict[str, Any]) -> None:
            nonlocal status, sent
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                sent += len(message.get("body", b""))
                if not message.get("more_body", False) and get and status in (200, 206):
                    spans = [(0, int(self.headers["content-length"]) - 1)] if status == 200 else self.spans
                    if sent >= sum(last - first + 1 for first, last in spans):
                        await run_in_threadpool(self.log, spans)
            await send(message)

        await super().__call__({**scope, "extensions": extensions}, receive, sending)
