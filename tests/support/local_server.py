"""The one lifecycle of the tests' HTTP servers (the fake Gemini server, the fake stock APIs, the
clip server, the TLS-terminating Google proxy): a ``ThreadingHTTPServer`` on a loopback port, served
from a daemon thread, used as a context manager."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class LocalServer:
    """Mixin for a test server: its ``__init__`` calls :meth:`_listen`; ``url``, ``start``/``stop``
    and ``with`` follow. The port is bound at ``_listen``, so ``url`` is known before serving."""

    _server: ThreadingHTTPServer
    _thread: threading.Thread | None = None
    _name: str = "test-server"

    def _listen(self, handler: type[BaseHTTPRequestHandler], *, name: str, host: str = "127.0.0.1", port: int = 0) -> None:
        """Bind the server (port 0: any free port); each request is handled in its own daemon thread."""
        self._server = ThreadingHTTPServer((host, port), handler)
        self._server.daemon_threads = True
        self._name = name

    @property
    def url(self) -> str:
        """The server's base URL, ``http://host:port``."""
        host, port = self._server.socket.getsockname()[:2]
        return f"http://{host}:{port}"

    def start(self) -> Any:
        """Serve in a background thread; returns the server."""
        # a short poll: shutdown() waits for the loop's next look (the default 0.5 s, paid by every test that stops a server)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, name=self._name,
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving (when started) and close the socket."""
        if self._thread is not None:
            self._server.shutdown()
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
