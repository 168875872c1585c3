"""Connection limits of the rating server: the deadlines and caps uvicorn does not enforce itself.

uvicorn closes an idle keep-alive connection (``timeout_keep_alive``), but a connection that never
sends a request, a request head sent a byte at a time, a body that trickles, a response the client
never reads, requests pipelined without end, or more connections than the process may open files
are all kept. The registry here, driven by the connection protocol (``connection.py``), enforces
per server:

- at ``max_connections`` (never more than the open-files limit keeps, ``file_budget``; by default
  that many), a new connection closes an
  evictable one to make room: one held back by the rate limits, one whose response has made no
  progress for ``STALLED_S``, or one waiting for a request head (the longest waiting first; not one
  whose request arrived and waits unread in the kernel); when none is evictable, the new one gets
  a 503 with ``Retry-After`` and is closed;
- at most ``max_per_client`` connections from one address (IPv6: one /64) that have not yet carried
  a valid invite token: the next evicts one of them that is held, stalled, or has waited for a
  request head ``STALLED_S`` or more; when none is, it is admitted on probation: its first request
  must carry a valid token, else it is answered 503 (``Retry-After``) and closed. Connections of
  invited raters are told apart by their token and never count, so raters behind one address (a
  NAT, an office) are never refused by this cap;
- a request head complete within ``header_timeout`` seconds of the connection opening or of its
  previous response, a body within ``body_timeout`` seconds of its head;
- a response whose bytes make no progress for ``write_timeout`` seconds (nothing acknowledged by
  the client while bytes wait in the server's buffer or the kernel's send queue) is aborted;
- at most ``max_pipelined`` requests queued behind the one being answered: the last one allowed is
  answered and the connection closed.

A sweep every half second checks the deadlines (so a deadline is met within 0.5 s of its time);
nothing it or an eviction calls opens a file, so both work in a process at its open-files limit
(issue 50), and no error stops the next sweep. Connections are accepted by ``connection.AcceptGate``
(at most ACCEPT_BURST a turn, only with room under the cap); the listen backlog is BACKLOG (128).

What the client took is read from the kernel on Linux (``SIOCOUTQ``: bytes in the send queue not
yet acknowledged; ``SIOCOUTQNSD``: not yet transmitted; ``TCP_INFO``: bytes acknowledged in all);
elsewhere only the server's own buffer is seen, so a response stuck in the kernel's queue counts as
taken there.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import struct
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable

if sys.platform.startswith("linux"):  # imported here, never in a sweep: importing a module opens its file, and a process at its
    import fcntl  # open-files limit could not (issue 50: the first sweep or eviction then died on ImportError for good)
    import termios

SWEEP_S = 0.5
#: a response that made no progress this long, or a connection of an address over its cap that has waited this long for a
#: request head, is evictable (the write and header deadlines close them later)
STALLED_S = 1.0
#: listen backlog: connections the kernel holds completed for the server to accept
BACKLOG = 128
#: connections accepted at most in one turn of the event loop (``connection.AcceptGate``), and so the most by which open
#: sockets may pass the cap for a moment (an evicted connection's descriptor is freed on the loop's next turn)
ACCEPT_BURST = 16
#: descriptors kept out of the connections' share: the listening socket, the event loop's, the store's (two per worker thread:
#: the database and its write-ahead log, up to 40 threads), logs, module imports, an accept burst and the reserve
RESERVED_FILES = 128
#: descriptors a connection may hold: its socket and, while it sends a clip, the clip's file
FILES_PER_CONNECTION = 2
#: the cap when the open-files limit is unlimited and none is given
UNLIMITED_CAP = 4096
#: the largest request head taken (h11's limit for a head that arrives in pieces, now also for one sent whole)
MAX_HEAD = 16 * 1024
REFUSED = b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 2\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
_LINUX = sys.platform.startswith("linux")
_TCP_INFO_BYTES_ACKED = 120  # offset of tcpi_bytes_acked (u64) in Linux's struct tcp_info (since 4.1)
_SIOCOUTQNSD = 0x894B  # Linux: bytes of the send queue not yet transmitted
log = logging.getLogger("reeljudge.ab.transport.limits")


@dataclass(frozen=True)
class FileBudget:
    """What the open-files limit (``RLIMIT_NOFILE``) allows the server: ``limit`` descriptors (None: unlimited),
    ``allowed`` connections at most, ``asked`` the cap given (None: the default, 0: none) and ``cap`` the one in force."""

    limit: int | None
    allowed: int
    asked: int | None
    cap: int
    raised_from: int | None = None

    @property
    def lowered(self) -> bool:
        """True when the cap given could not be kept under the limit and a lower one is in force."""
        return self.asked is not None and self.cap != self.asked

    def describe(self) -> str:
        """One line for start-up: the limit, what it allows, and the cap in force (and why, when lowered)."""
        if self.limit is None:
            head = "open files: no limit (RLIMIT_NOFILE unlimited)"
        else:
            raised = f", raised from {self.raised_from}" if self.raised_from is not None else ""
            head = (f"open files: limit {self.limit} (RLIMIT_NOFILE{raised}), {RESERVED_FILES} kept for the store, logs and a "
                    f"reserve, {FILES_PER_CONNECTION} per connection: at most {self.allowed} connections")
        if self.lowered:
            asked = "no cap (--max-connections 0)" if self.asked == 0 else f"--max-connections {self.asked}"
            return f"{head}; {asked} cannot be kept under it: lowered to {self.cap} (raise the limit with ulimit -n)"
        return f"{head}; --max-connections {self.cap}" + (" (0: no cap)" if self.cap == 0 else "")


def file_budget(asked: int | None, raise_to_hard: bool = False) -> FileBudget:
    """The connections the open-files limit allows against ``asked`` (``--max-connections``; None: the default, 0: no cap).

    With ``raise_to_hard`` the soft limit is first raised as far as the hard limit lets when the cap asked needs more. A cap
    the limit cannot keep is lowered to what it allows (a process past its limit cannot accept, reap or answer).
    """
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    was = soft
    if soft == resource.RLIM_INFINITY:
        return FileBudget(None, UNLIMITED_CAP, asked, UNLIMITED_CAP if asked is None else asked)
    if raise_to_hard and asked is not None and (asked == 0 or asked > _allowed(soft)):
        needed = RESERVED_FILES + FILES_PER_CONNECTION * asked if asked else hard
        wanted = needed if hard == resource.RLIM_INFINITY else min(hard, needed)
        if wanted != resource.RLIM_INFINITY and wanted > soft:
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
                soft = wanted
            except (ValueError, OSError):
                pass
    allowed = _allowed(soft)
    cap = allowed if asked is None or asked == 0 else min(asked, allowed)
    return FileBudget(soft, allowed, asked, cap, was if soft != was else None)


def _allowed(soft: int) -> int:
    """Connections an open-files limit of ``soft`` keeps (at least 8)."""
    return max(8, (soft - RESERVED_FILES) // FILES_PER_CONNECTION)


@dataclass(frozen=True)
class ConnectionLimits:
    """Deadlines (seconds) and caps on connections; ``max_connections`` None: from the open-files limit, 0: none (lowered to
    what the open-files limit allows when that is finite).

    ``max_per_client``: connections per address that have not yet carried a valid invite token (0: no cap).
    """

    header_timeout: float = 10.0
    body_timeout: float = 30.0
    keep_alive: float = 5.0
    max_connections: int | None = None
    max_per_client: int = 64
    write_timeout: float = 15.0
    max_pipelined: int = 8

    def connection_cap(self) -> int:
        """The number of open connections allowed (0: unlimited): ``max_connections``, never more than the open-files limit
        keeps (``file_budget``); by default what it keeps (a connection sending a clip holds the clip's file too)."""
        return file_budget(self.max_connections).cap


def address_key(host: str) -> str:
    """The key a client address is counted under: the address itself, or its /64 for IPv6 (one host's usual allocation)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if address.version == 4:
        return str(address)
    if address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(ipaddress.ip_network(f"{address}/64", strict=False))


def kernel_queue(sock: Any) -> int:
    """Bytes in the socket's kernel send queue that the peer has not acknowledged (Linux; 0 elsewhere or when closed)."""
    if not _LINUX or sock is None:
        return 0
    try:
        return struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0\0\0\0"))[0]
    except (OSError, ValueError):
        return 0


def kernel_inbound(sock: Any) -> int:
    """Bytes received on the socket that the server has not read yet (Linux ``SIOCINQ``; 0 elsewhere or when closed)."""
    if not _LINUX or sock is None:
        return 0
    try:
        return struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.FIONREAD, b"\0\0\0\0"))[0]
    except (OSError, ValueError):
        return 0


def kernel_unsent(sock: Any) -> int:
    """Bytes in the socket's kernel send queue not yet transmitted (Linux ``SIOCOUTQNSD``; 0 elsewhere or when closed).

    TCP transmits a byte only when the client's advertised receive window has room for it: a transmitted byte is one the
    client's machine can hold for the program there to read.
    """
    if not _LINUX or sock is None:
        return 0
    try:
        return struct.unpack("i", fcntl.ioctl(sock.fileno(), _SIOCOUTQNSD, b"\0\0\0\0"))[0]
    except (OSError, ValueError):
        return 0


def acknowledged_total(sock: Any) -> int | None:
    """Bytes the peer acknowledged on this socket in all (Linux TCP_INFO), or None where the kernel does not tell."""
    if not _LINUX or sock is None:
        return None
    import socket

    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
    except (OSError, ValueError):
        return None
    return struct.unpack_from("Q", info, _TCP_INFO_BYTES_ACKED)[0] if len(info) >= _TCP_INFO_BYTES_ACKED + 8 else None


def untransmitted_bytes(proto: Any) -> int:
    """Bytes of a connection's responses not yet transmitted to the client: the server's buffer and the kernel's unsent queue."""
    return proto.transport.get_write_buffer_size() + kernel_unsent(proto.transport.get_extra_info("socket"))


def pending_bytes(proto: Any) -> int:
    """Bytes of a connection's responses not yet acknowledged by the client: the server's buffer and the kernel's queue."""
    return proto.transport.get_write_buffer_size() + kernel_queue(proto.transport.get_extra_info("socket"))


def reset(transport: Any) -> None:
    """Close a connection with a TCP reset: what the server and the kernel still hold for it is dropped, not sent."""
    sock = transport.get_extra_info("socket")
    try:
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    transport.abort()


class _Entry:
    """What the registry knows of one connection."""

    __slots__ = ("key", "waiting_since", "cycle", "head_at", "authenticated", "held", "probation",
                 "depth", "acked", "progress_at")

    def __init__(self, key: str, now: float, probation: bool) -> None:
        self.key, self.waiting_since, self.cycle, self.head_at = key, now, None, now
        self.authenticated = self.held = False
        self.probation = probation
        self.depth, self.acked, self.progress_at = 0, -1, now


class Registry:
    """The open connections of one server, by protocol object; enforces the caps and deadlines."""

    def __init__(self, limits: ConnectionLimits) -> None:
        self.limits, self.cap = limits, limits.connection_cap()
        self.open: dict[Any, _Entry] = {}
        self.unauthenticated: dict[str, int] = {}
        self.sweeping = False

    def admit(self, proto: Any) -> bool:
        """Register a new connection, closing an evictable one when a cap is reached; False (and the new one refused) when none
        is."""
        now = time.monotonic()
        key = address_key(proto.client[0] if proto.client else "")
        probation = False
        if self.limits.max_per_client and self.unauthenticated.get(key, 0) >= self.limits.max_per_client:
            probation = not self._evict(now, lambda e: e.key == key and not e.authenticated, grace=STALLED_S)
        if self.cap and len(self.open) >= self.cap and not self._evict(now):
            return _refuse(proto)
        self.open[proto] = _Entry(key, now, probation)
        self.unauthenticated[key] = self.unauthenticated.get(key, 0) + 1
        if not self.sweeping:
            self.sweeping = True
            proto.loop.call_later(SWEEP_S, self.sweep, proto.loop)
        return True

    def _evict(self, now: float, among: Callable[[_Entry], bool] = lambda e: True, grace: float = 0.0) -> bool:
        """Close the most evictable connection ``among`` those given: held, then stalled, then the longest waiting (for at
        least ``grace`` seconds) whose next request has not already arrived unread; False if none is."""
        ranked = []
        for proto, entry in self.open.items():
            if not among(entry):
                continue
            if entry.held:
                ranked.append(((0, entry.waiting_since), proto))
            elif not _waiting(proto):
                if now - entry.progress_at >= STALLED_S:
                    ranked.append(((1, entry.progress_at), proto))
            elif now - entry.waiting_since >= grace:
                ranked.append(((2, entry.waiting_since), proto))
        for (rank, _), proto in sorted(ranked, key=lambda item: item[0]):
            if rank == 2 and kernel_inbound(proto.transport.get_extra_info("socket")):
                continue  # a request sent and not yet read (a busy server): not idle
            self.close(proto)
            return True
        return False

    def authenticate(self, proto: Any) -> None:
        """The connection carried a valid invite token: it no longer counts toward its address's cap."""
        entry = self.open.get(proto)
        if entry is not None and not entry.authenticated:
            entry.authenticated, entry.probation = True, False
            self._uncount(entry.key)

    def on_probation(self, proto: Any) -> bool:
        """True for a connection admitted over its address's cap that has not yet carried a valid token."""
        entry = self.open.get(proto)
        return entry is not None and entry.probation

    def _uncount(self, key: str) -> None:
        left = self.unauthenticated[key] - 1
        if left:
            self.unauthenticated[key] = left
        else:
            del self.unauthenticated[key]

    def drop(self, proto: Any) -> None:
        """Forget a connection (idempotent)."""
        entry = self.open.pop(proto, None)
        if entry is not None and not entry.authenticated:
            self._uncount(entry.key)

    def close(self, proto: Any) -> None:
        """Close a connection now and forget it. With bytes still unacknowledged (in the server's buffer or the kernel's queue)
        it is reset: a graceful close would queue its end behind bytes the client does not take, and keep them."""
        self.drop(proto)
        proto.cancel_sending()  # a transfer by sendfile first lets go of the socket (asyncio would fail on it as it closes)
        transport = proto.transport
        if transport.is_closing() or pending_bytes(proto):
            reset(transport)
        else:
            transport.close()

    def started(self, proto: Any, queued: bool) -> bool:
        """A request head arrived (``queued``: it waited behind the previous response); True when it must be the connection's
        last."""
        entry = self.open.get(proto)
        if entry is None:
            return False
        entry.cycle = proto.cycle
        entry.head_at = entry.progress_at = time.monotonic()
        entry.depth = entry.depth + 1 if queued else 0
        return bool(self.limits.max_pipelined) and entry.depth >= self.limits.max_pipelined

    def holding(self, proto: Any, held: bool) -> None:
        """The connection is (or no longer is) held back by the rate limits after its response."""
        entry = self.open.get(proto)
        if entry is not None:
            entry.held = held

    def responded(self, proto: Any) -> None:
        """A response is complete: the connection waits for its next request head from now."""
        entry = self.open.get(proto)
        if entry is not None:
            entry.waiting_since, entry.held = time.monotonic(), False

    def room(self, pending: int) -> bool:
        """Whether one more connection fits under the cap beside ``pending`` ones accepted and not yet admitted, making room
        by evicting one when it does not (``_evict``); False when nothing is evictable."""
        if not self.cap or len(self.open) + pending < self.cap:
            return True
        return self.evict_idle()

    def evict_idle(self) -> bool:
        """Close the most evictable connection (``_evict``); False when none is."""
        return self._evict(time.monotonic())

    def sweep(self, loop: Any) -> None:
        """Close every connection past its deadline; runs every SWEEP_S seconds while any is open. A connection whose check
        fails is closed, and the next sweep is always scheduled: no error stops the deadlines."""
        try:
            now = time.monotonic()
            for proto, entry in list(self.open.items()):
                try:
                    late = self._late(proto, entry, now)
                except Exception:  # noqa: BLE001 - a deadline that cannot be checked is treated as passed
                    log.exception("a connection's deadlines could not be checked; it is closed")
                    late = True
                if late:
                    self.close(proto)
        finally:
            if self.open:
                loop.call_later(SWEEP_S, self.sweep, loop)
            else:
                self.sweeping = False

    def _late(self, proto: Any, entry: _Entry, now: float) -> bool:
        """True when the connection is past a deadline: its responses stalled, its head or its body late.

        While the client is still taking a response only the write deadline applies: the header deadline of a connection
        waiting for its next request counts from when its last response was taken.
        """
        if entry.held:
            return False
        draining, stalled = self._draining(proto, entry, now)
        if stalled > self.limits.write_timeout:
            return True
        if _waiting(proto):
            if draining:
                entry.waiting_since = now
            return now - entry.waiting_since > self.limits.header_timeout
        return bool(proto.cycle.more_body) and now - entry.head_at > self.limits.body_timeout

    @staticmethod
    def _draining(proto: Any, entry: _Entry, now: float) -> tuple[bool, float]:
        """(whether bytes of the connection's responses wait to be acknowledged, seconds since they last made progress).

        Progress: the kernel's count of acknowledged bytes grew (Linux), else the server's own buffer shrank.
        """
        if pending_bytes(proto) == 0:
            entry.progress_at, entry.acked = now, -1
            return False, 0.0
        acked = acknowledged_total(proto.transport.get_extra_info("socket"))
        if acked is None:
            acked = -proto.transport.get_write_buffer_size()
        if acked > entry.acked:
            entry.progress_at = now
        entry.acked = acked
        return True, now - entry.progress_at


def _waiting(proto: Any) -> bool:
    """True while a connection has no request in progress (before its first head, or between requests)."""
    return proto.cycle is None or proto.cycle.response_complete


def _refuse(proto: Any) -> bool:
    """Answer 503 (with Retry-After) and close; False."""
    proto.transport.write(REFUSED)
    proto.transport.close()
    return False

