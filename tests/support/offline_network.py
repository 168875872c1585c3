"""The test run's network stays on 127.0.0.1: every HTTP(S) client a test starts is sent to a local port that refuses.

Imported once by ``tests/conftest.py`` (which calls :func:`refuse_outside_traffic` before any test); tests that
check the refusal read :data:`REFUSING_PROXY` from here.
"""

from __future__ import annotations

import os
import socket


def _refusing_port() -> tuple[socket.socket, str]:
    """A 127.0.0.1 port held by this process and never listened on: a connection to it is refused at once."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    return sock, f"http://127.0.0.1:{sock.getsockname()[1]}"


_HELD, REFUSING_PROXY = _refusing_port()
#: the hosts reached directly (the fake servers)
LOOPBACK = "127.0.0.1,localhost,::1"


def refuse_outside_traffic() -> None:
    """Every proxy variable (both spellings) names the refusing port; loopback hosts are exempt."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        os.environ[name] = os.environ[name.lower()] = REFUSING_PROXY
    os.environ["NO_PROXY"] = os.environ["no_proxy"] = LOOPBACK
