"""Connections that hold a server's descriptors and say nothing, and a count of a process's open descriptors: the
open-files flood of the rating server's hostile test and of its benchmark (benchmarks/ab_file_limit.py)."""

from __future__ import annotations

import os
import socket


def open_descriptors(pid: int) -> int:
    """Open descriptors of a process (Linux /proc); -1 once it is gone."""
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


def silent_connections(port: int, source: str, count: int) -> list[socket.socket]:
    """``count`` connections from ``source`` to 127.0.0.1:``port`` that connect without waiting to be accepted and send
    nothing."""
    socks = []
    for _ in range(count):
        sock = socket.socket()
        sock.bind((source, 0))
        sock.setblocking(False)
        try:
            sock.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        socks.append(sock)
    return socks
