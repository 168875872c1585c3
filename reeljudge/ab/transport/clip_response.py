"""A clip sent to a rater: exactly the byte spans the server will credit, and nothing that tells the sides apart.

The response is the file whole (200), one range (206, ``Content-Range``) or ``multipart/byteranges``
(206), for the spans the caller parsed (``requested_spans``: merged, at most ``MAX_RANGES``; a
Range it refuses is the caller's 416, never a 500), so what is logged as evidence is exactly what
went out. It carries no validators: no ``Last-Modified`` and no ``ETag`` (both came from the file's
time, which told the order the clips were written in), so an ``If-Range`` never matches and the
whole clip is sent; ``Cache-Control: no-store``.

The bytes go from the file to the socket by the kernel (``Connection.sendfile`` of the server's
connection, no worker thread per chunk and no copy), and the spans are logged once every byte but
the last was transmitted to the client (which TCP does only into the room its receive window
offers), before the last is sent: a HEAD, an error status, a dropped connection or a client that
never takes the bytes (the write deadline closes it) logs nothing, and a submit right after the
response cannot outrun its log. Under an ASGI server without that
connection (another server than ``ab serve``'s), the bytes are read by worker threads of a limiter
of their own in chunks of ``CHUNK`` and the spans are logged once handed to the server.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import weakref
from typing import TYPE_CHECKING, Any, BinaryIO, Callable

if TYPE_CHECKING:  # starlette: the rating extra
    from starlette.types import Receive, Scope, Send

Spans = list[tuple[int, int]]  # (first, last) byte, inclusive
CHUNK = 256 * 1024
#: worker threads of the clip responses' own (the evidence log, the fallback reads), per event loop, used when every shared
#: worker thread is busy: a clip finishes however many handlers wait on the store
CLIP_THREADS = 4
_LIMITERS: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()


def _limiter() -> Any:
    """The shared worker-thread limiter when it has a thread free, else the clip responses' own (made on first use)."""
    import anyio.to_thread

    shared = anyio.to_thread.current_default_thread_limiter()
    if shared.available_tokens > 0:
        return shared
    loop = asyncio.get_running_loop()
    if loop not in _LIMITERS:
        _LIMITERS[loop] = anyio.CapacityLimiter(CLIP_THREADS)
    return _LIMITERS[loop]


class ClipResponse:
    """A stored clip, whole or in the given spans; ``log(spans)`` runs once every byte of them but the last reached the client.

    ``spans``: the Range as parsed (and merged) by ``requested_spans``; ignored without a Range header
    or with an If-Range. Built in a worker thread (it reads the file's size there).
    """

    def __init__(self, path: os.PathLike[str] | str, media_type: str, spans: Spans, log: Callable[[Spans], None]) -> None:
        self.path, self.media_type, self.spans, self.log = path, media_type, spans, log
        self.size = os.stat(path).st_size

    def _plan(self, headers: Any) -> tuple[int, list[tuple[bytes, bytes]], list[bytes | tuple[int, int]], Spans]:
        """(status, headers, body pieces — bytes, or (offset, count) of the file — and the spans they carry)."""
        base = [(b"accept-ranges", b"bytes"), (b"cache-control", b"no-store")]
        ranged = "range" in headers and "if-range" not in headers and self.spans
        if not ranged or self.size == 0:
            spans = [(0, self.size - 1)] if self.size else []
            return 200, [*base, (b"content-type", self.media_type.encode()), (b"content-length", str(self.size).encode())], \
                [(0, self.size)] if self.size else [], spans
        if len(self.spans) == 1:
            first, last = self.spans[0]
            return 206, [*base, (b"content-type", self.media_type.encode()), (b"content-length", str(last - first + 1).encode()),
                         (b"content-range", f"bytes {first}-{last}/{self.size}".encode())], [(first, last - first
                                                                                              + 1)], self.spans
        boundary = secrets.token_hex(13)
        pieces: list[bytes | tuple[int, int]] = []
        for first, last in self.spans:
            pieces += [f"--{boundary}\r\nContent-Type: {self.media_type}\r\nContent-Range: bytes "
                       f"{first}-{last}/{self.size}\r\n\r\n"
                       .encode("latin-1"), (first, last - first + 1), b"\r\n"]
        pieces.append(f"--{boundary}--".encode("latin-1"))
        length = sum(len(p) if isinstance(p, bytes) else p[1] for p in pieces)
        return 206, [*base, (b"content-type", f"multipart/byteranges; boundary={boundary}".encode()),
                     (b"content-length", str(length).encode())], pieces, self.spans

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        from starlette.datastructures import Headers

        status, headers, pieces, spans = self._plan(Headers(scope=scope))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        if scope.get("method", "GET").upper() == "HEAD" or not pieces:
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            return
        connection = scope.get("extensions", {}).get("reeljudge.connection")
        try:
            with open(self.path, "rb") as file:
                last = await self._send_all_but_last_byte(send, connection, file, pieces)
                if connection is None or await connection.transmitted():
                    import anyio

                    await anyio.to_thread.run_sync(self.log, spans, limiter=_limiter())
                await send({"type": "http.response.body", "body": last, "more_body": False})
        except (ConnectionError, OSError, RuntimeError):  # the client went away (or the transport closed) mid-response
            if connection is not None:
                connection.abort()
                await asyncio.sleep(0)  # the connection's loss is noted before the server asks whether the response ended

    async def _send_all_but_last_byte(self, send: Send, connection: Any, file: BinaryIO,
                                      pieces: list[bytes | tuple[int, int]]) -> bytes:
        """Send the body but its last byte (or the closing boundary); that last piece, for the caller to send."""
        *head, tail = pieces
        if isinstance(tail, tuple):
            offset, count = tail
            head.append((offset, count - 1))
            tail = os.pread(file.fileno(), 1, offset + count - 1)
        for piece in head:
            if isinstance(piece, bytes):
                await send({"type": "http.response.body", "body": piece, "more_body": True})
            elif connection is not None:
                if piece[1]:
                    await connection.sendfile(file, *piece)
            else:
                await self._read_and_send(send, file, *piece)
        return tail

    @staticmethod
    async def _read_and_send(send: Send, file: BinaryIO, offset: int, count: int) -> None:
        """Without the server's connection: the span read in CHUNK pieces by the clip responses' own worker threads."""
        import anyio

        while count > 0:
            chunk = await anyio.to_thread.run_sync(os.pread, file.fileno(), min(CHUNK, count), offset, limiter=_limiter())
            if not chunk:
                raise OSError(f"{os.fspath(file.name)} is shorter than expected")
            offset, count = offset + len(chunk), count - len(chunk)
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
