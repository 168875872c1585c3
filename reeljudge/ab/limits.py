"""Connection limits of the rating server: the deadlines and caps uvicorn does not enforce itself.

uvicorn closes an idle keep-alive connection (``timeout_keep_alive``) and caps the size of a
request head (h11, 16 KiB), but a connection that never sends a request, a request head sent a
byte at a time, a body that trickles, or more connections than the process may open files are
all kept. ``guarded_protocol`` is uvicorn's h11 protocol with a per-server registry that

- refuses a connection beyond ``max_per_client`` from one address (503, closed);
- at ``max_connections`` (default: what the open-files limit allows), closes the connection that
  has waited longest for a request head to make room, so idle connections cannot lock raters out;
- closes a connection whose request head is not complete ``header_timeout`` seconds after it
  opened or after its previous response, and one whose body is not complete ``body_timeout``
  seconds after its head.

A sweep every half second checks the deadlines (so a deadline is met within 0.5 s of its time).
The listen backlog is BACKLOG (128): asyncio accepts up to a backlog of connections in one burst
before any can be closed, so a backlog of uvicorn's 2,048 could exhaust the open files at once.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

SWEEP_S = 0.5
#: listen backlog, and so the most connections asyncio accepts in one burst before any is closed
BACKLOG = 128
RESERVED_FILES = 128  # the listening socket, the store's connections (one per worker thread), logs, imports
REFUSED = b"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"


@dataclass(frozen=True)
class ConnectionLimits:
    """Deadlines (seconds) and caps on connections; ``max_connections`` None: from the open-files limit, 0: none."""

    header_timeout: float = 10.0
    body_timeout: float = 30.0
    keep_alive: float = 5.0
    max_connections: int | None = None
    max_per_client: int = 64

    def connection_cap(self) -> int:
        """The number of open connections allowed (0: unlimited).

        By default half of the open-files limit left after a reserve: a connection sending a
        clip holds the clip's file too.
        """
        if self.max_connections is not None:
            return self.max_connections
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft == resource.RLIM_INFINITY:
            return 4096
        return max(8, (soft - RESERVED_FILES) // 2)


class _Entry:
    """What the registry knows of one connection."""

    __slots__ = ("host", "waiting_since", "cycle", "head_at")

    def __init__(self, host: str, now: float) -> None:
        self.host, self.waiting_since, self.cycle, self.head_at = host, now, None, now


class _Registry:
    """The open connections of one server, by protocol object; enforces the caps and deadlines."""

    def __init__(self, limits: ConnectionLimits) -> None:
        self.limits, self.cap = limits, limits.connection_cap()
        self.open: dict[Any, _Entry] = {}
        self.per_host: dict[str, int] = {}
        self.sweeping = False

    def admit(self, proto: Any) -> None:
        """Register a new connection, or close it (or the longest-waiting one) when a cap is reached."""
        host = proto.client[0] if proto.client else ""
        if self.limits.max_per_client and self.per_host.get(host, 0) >= self.limits.max_per_client:
            proto.transport.write(REFUSED)
            proto.transport.close()
            return
        if self.cap and len(self.open) >= self.cap:
            victim = min((p for p in self.open if _waiting(p)), key=lambda p: self.open[p].waiting_since, default=None)
            if victim is None:
                proto.transport.write(REFUSED)
                proto.transport.close()
                return
            self.close(victim)
        self.open[proto] = _Entry(host, time.monotonic())
        self.per_host[host] = self.per_host.get(host, 0) + 1
        if not self.sweeping:
            self.sweeping = True
            proto.loop.call_later(SWEEP_S, self.sweep, proto.loop)

    def drop(self, proto: Any) -> None:
        """Forget a connection (idempotent)."""
        entry = self.open.pop(proto, None)
        if entry is not None:
            left = self.per_host[entry.host] - 1
            if left:
                self.per_host[entry.host] = left
            else:
                del self.per_host[entry.host]

    def close(self, proto: Any) -> None:
        """Close a connection now and forget it."""
        self.drop(proto)
        if not proto.transport.is_closing():
            proto.transport.close()

    def observe(self, proto: Any) -> None:
        """After the protocol handled incoming data: note when a new request's head arrived."""
        entry = self.open.get(proto)
        if entry is not None and proto.cycle is not None and proto.cycle is not entry.cycle:
            entry.cycle, entry.head_at = proto.cycle, time.monotonic()

    def responded(self, proto: Any) -> None:
        """A response is complete: the connection waits for its next request head from now."""
        entry = self.open.get(proto)
        if entry is not None:
            entry.waiting_since = time.monotonic()

    def sweep(self, loop: Any) -> None:
        """Close every connection past its deadline; runs every SWEEP_S seconds while any is open."""
        now = time.monotonic()
        for proto, entry in list(self.open.items()):
            if _waiting(proto):
                late = now - entry.waiting_since > self.limits.header_timeout
            else:
                late = proto.cycle.more_body and now - entry.head_at > self.limits.body_timeout
            if late:
                self.close(proto)
        if self.open:
            loop.call_later(SWEEP_S, self.sweep, loop)
        else:
            self.sweeping = False


def _waiting(proto: Any) -> bool:
    """True while a connection has no request in progress (before its first head, or between requests)."""
    return proto.cycle is None or proto.cycle.response_complete


def guarded_protocol(limits: ConnectionLimits) -> type:
    """uvicorn's h11 protocol class with ``limits`` enforced; one registry per class (per server)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    registry = _Registry(limits)

    class GuardedH11Protocol(H11Protocol):
        """H11Protocol whose connections are admitted, timed and closed by the registry."""

        def connection_made(self, transport: Any) -> None:  # type: ignore[override]
            super().connection_made(transport)
            registry.admit(self)

        def connection_lost(self, exc: Exception | None) -> None:
            registry.drop(self)
            super().connection_lost(exc)

        def handle_events(self) -> None:
            super().handle_events()
            registry.observe(self)

        def on_response_complete(self) -> None:
            registry.responded(self)
            super().on_response_complete()

    GuardedH11Protocol.registry = registry  # type: ignore[attr-defined]
    return GuardedH11Protocol


def run(app: Any, host: str, port: int, limits: ConnectionLimits, log_level: str = "warning") -> None:
    """Serve ``app`` under uvicorn with ``limits`` until interrupted."""
    import uvicorn

    uvicorn.run(app, host=host, port=port, log_level=log_level, http=guarded_protocol(limits), timeout_keep_alive=limits.keep_alive,
                backlog=BACKLOG)
