"""A real HTTP server on 127.0.0.1 that serves clips from a folder, for the library runner's tests.

``/clips/<name>`` serves a file; ``/stall/<name>`` sends the headers and half the file, then waits
until :meth:`ClipServer.release` before sending the rest, so a test can catch a worker mid-clip
(its connection's port is in ``stalled_ports``). ``/flaky/<name>`` answers 503 the first time and
then serves the file; ``/missing/<name>`` answers 404.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from support.local_server import LocalServer


class ClipServer(LocalServer):
    """Serves the files of ``root`` until stopped."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.released = threading.Event()
        self.stalled_ports: list[int] = []
        self.requests: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                server.requests.append(self.path)
                kind, _, name = self.path.lstrip("/").partition("/")
                path = server.root / name
                if kind not in ("clips", "stall", "flaky") or not path.is_file():
                    self.send_error(404, "Not Found")
                    return
                if kind == "flaky" and server.requests.count(self.path) == 1:
                    self.send_error(503, "Service Unavailable")
                    return
                data = path.read_bytes()
                self.send_response(200)
                self.send_header("Content-Type", "video/mp4")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    if kind == "stall" and not server.released.is_set():
                        self.wfile.write(data[: len(data) // 2])
                        self.wfile.flush()
                        server.stalled_ports.append(self.client_address[1])
                        server.released.wait(60)
                        self.wfile.write(data[len(data) // 2 :])
                    else:
                        self.wfile.write(data)
                except OSError:  # the client was killed mid-download
                    pass

        self._listen(Handler, name="clip-server")

    def release(self) -> None:
        """Let stalled downloads finish, and stall no more."""
        self.released.set()

    def stop(self) -> None:
        """Release stalled downloads, then stop serving."""
        self.release()
        super().stop()


def pid_with_port(processes: list[Any], port: int) -> int | None:
    """The pid among ``processes`` (psutil.Process) holding a TCP connection from local ``port``."""
    import psutil

    for process in processes:
        try:
            for conn in process.net_connections(kind="tcp"):
                if conn.laddr and conn.laddr.port == port:
                    return process.pid
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return None
