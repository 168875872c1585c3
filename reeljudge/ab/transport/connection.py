"""The rating server's HTTP/1.1 connection: uvicorn's h11 protocol with the limits of ``limits.py`` enforced.

``guarded_protocol(limits)`` is the protocol class ``ab serve`` gives uvicorn. Each connection is
admitted, timed and closed by the registry of ``limits.Registry``; beside that it

- keeps at most ``UNSENT`` bytes of a response unsent in the kernel (``limit_unsent``), and closes
  an idle keep-alive connection only once its last response was taken (the write deadline rules
  until then);
- refuses a request head over ``limits.MAX_HEAD`` (16 KiB) with a 431 however it arrives (h11
  checks only a head still incomplete, so a 100 KiB head sent in one piece was taken);
- counts the requests queued behind the one being answered (HTTP/1.1 pipelining) and closes the
  connection after the ``max_pipelined``-th;
- holds a connection back after a response the rate limits refused (``Connection.hold``): its
  next request is not read until the hold ends, so a client that ignores ``Retry-After`` costs
  nothing meanwhile;
- gives the app, as the scope extension ``reeljudge.connection``, a ``Connection``: ``sendfile``
  (clip bytes from the file to the socket by the kernel, no worker thread, no copy),
  ``transmitted`` (wait until every byte sent left for the client, within its receive window), ``authenticate``,
  ``on_probation`` and ``hold``.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import socket
import weakref
from typing import Any, BinaryIO, Callable

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from reeljudge.ab.transport.limits import (ACCEPT_BURST, BACKLOG, MAX_HEAD, REFUSED, SWEEP_S, ConnectionLimits, Registry,
                                           pending_bytes, reset, untransmitted_bytes)

EXTENSION = "reeljudge.connection"
#: unsent bytes a connection may queue in the kernel (``limit_unsent``)
UNSENT = 256 * 1024
TOO_LARGE = b"request head larger than 16 KiB"
log = logging.getLogger("reeljudge.ab.transport.connection")


class _HeadCapped(h11.Connection):
    """h11's server side, refusing a request head over ``max_head`` bytes also when it arrived whole."""

    def __init__(self, max_head: int) -> None:
        super().__init__(h11.SERVER, max_incomplete_event_size=max_head)
        self.max_head, self.head_too_large = max_head, False

    def buffered(self) -> int:
        """Bytes received and not yet taken as events (a pipelined request waits here)."""
        return len(self._receive_buffer)

    def next_event(self) -> Any:
        """h11's next event; RemoteProtocolError (431) for a request head over the cap."""
        before = len(self._receive_buffer)
        try:
            event = super().next_event()
        except h11.RemoteProtocolError as error:
            self.head_too_large = "Receive buffer too long" in str(error)
            raise
        if type(event) is h11.Request and before - len(self._receive_buffer) > self.max_head:
            self.head_too_large = True
            raise h11.RemoteProtocolError("request head too large", error_status_hint=431)
        return event


class _Span:
    """A run of file bytes handed to h11 in place of the bytes themselves (h11's sendfile support: it needs only the length)."""

    __slots__ = ("count",)

    def __init__(self, count: int) -> None:
        self.count = count

    def __len__(self) -> int:
        return self.count


class Connection:
    """What a request's handler may ask of its connection (the scope extension ``reeljudge.connection``)."""

    def __init__(self, proto: Any, registry: Registry) -> None:
        self._proto, self.registry = weakref.ref(proto), registry
        self.hold_until = 0.0

    @property
    def proto(self) -> Any:
        """The connection's protocol. Held weakly: the request's scope holds this object, and a cycle through the protocol
        would keep every closed connection's last request (its body's first bytes) until the garbage collector ran."""
        proto = self._proto()
        if proto is None:
            raise ConnectionError("the connection is closed")
        return proto

    def authenticate(self) -> None:
        """The request carried a valid invite token: the connection no longer counts toward its address's cap."""
        proto = self._proto()
        if proto is not None:
            self.registry.authenticate(proto)

    @property
    def on_probation(self) -> bool:
        """Admitted over its address's cap of connections without a valid token: a request without one must be refused."""
        proto = self._proto()
        return proto is not None and self.registry.on_probation(proto)

    def hold(self, seconds: float) -> None:
        """Read nothing more from this connection for ``seconds`` after the current response."""
        proto = self._proto()
        if proto is not None:
            self.hold_until = max(self.hold_until, proto.loop.time() + seconds)

    async def sendfile(self, file: BinaryIO, offset: int, count: int) -> None:
        """Send ``count`` bytes of ``file`` from ``offset`` as part of the response body, by the kernel (``loop.sendfile``).

        ConnectionError when the connection closes first.
        """
        proto = self.proto
        if proto.transport.is_closing():
            raise ConnectionError("the connection is closed")
        for piece in proto.conn.send_with_data_passthrough(h11.Data(data=_Span(count))):  # type: ignore[arg-type]  # passthrough hands the span back
            if not isinstance(piece, _Span):
                proto.transport.write(piece)
                continue
            task = proto.loop.create_task(proto.loop.sendfile(proto.transport, file, offset, count))
            proto.sending.add(task)
            try:
                await asyncio.wait({task})
            except asyncio.CancelledError:
                task.cancel()
                raise
            finally:
                proto.sending.discard(task)
            if task.cancelled():
                raise ConnectionError("the connection was closed during the transfer")
            task.result()

    async def transmitted(self) -> bool:
        """True once every byte sent so far left the server and the kernel for the client (TCP transmits only what the
        client's receive window has room for); False if the connection closes first.

        Bounded by the write deadline: a connection whose bytes make no progress for ``write_timeout`` is closed.
        """
        delay = 0.0
        while not self.proto.transport.is_closing():
            if untransmitted_bytes(self.proto) == 0:
                return True
            await asyncio.sleep(delay)
            delay = min(0.05, 2 * delay or 0.0005)
        return False

    def abort(self) -> None:
        """Close the connection at once with a reset, dropping what it has not sent (nothing when it is gone already)."""
        proto = self._proto()
        if proto is not None:
            reset(proto.transport)


def limit_unsent(sock: Any) -> None:
    """Keep at most UNSENT bytes queued in the kernel beyond what the client's window lets out (Linux ``TCP_NOTSENT_LOWAT``).

    The kernel grows a socket's send buffer to megabytes whether or not the client reads: a client that never reads would
    hold that much kernel memory, and a response "sent" into it would look delivered. Bytes in flight are not limited, so
    a client that reads gets the full speed of its link.
    """
    import socket

    option = getattr(socket, "TCP_NOTSENT_LOWAT", None)
    if option is not None and sock is not None:
        try:
            sock.setsockopt(socket.IPPROTO_TCP, option, UNSENT)
        except OSError:
            pass


def guarded_protocol(limits: ConnectionLimits) -> type:
    """uvicorn's h11 protocol class with ``limits`` enforced; one registry per class (per server)."""
    registry = Registry(limits)

    class GuardedH11Protocol(H11Protocol):
        """H11Protocol whose connections are admitted, timed, held and closed by the registry."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.conn: _HeadCapped = _HeadCapped(MAX_HEAD)
            self.connection: Connection | None = None
            self.sending: set[asyncio.Task] = set()
            self._hold: asyncio.TimerHandle | None = None
            self._queued = self._pipelined = False

        def connection_made(self, transport: Any) -> None:
            try:
                super().connection_made(transport)
                self.connection = Connection(self, registry)
                if registry.admit(self):
                    limit_unsent(transport.get_extra_info("socket"))
            except Exception:
                registry.drop(self)  # never a connection open and unknown to the registry: nothing would ever reap it
                transport.abort()
                raise

        def timeout_keep_alive_handler(self) -> None:
            # still taking the last response: the write deadline rules
            if pending_bytes(self) and not self.transport.is_closing():
                self.timeout_keep_alive_task = self.loop.call_later(SWEEP_S, self.timeout_keep_alive_handler)
                return
            super().timeout_keep_alive_handler()

        def cancel_sending(self) -> None:
            """Cancel the transfers by sendfile in progress on this connection (before it is closed)."""
            for task in list(self.sending):
                task.cancel()

        def connection_lost(self, exc: Exception | None) -> None:
            registry.drop(self)
            self.cancel_sending()
            if self._hold is not None:
                self._hold.cancel()
            super().connection_lost(exc)

        def handle_events(self) -> None:
            cycle = self.cycle
            super().handle_events()
            if self.cycle is not None and self.cycle is not cycle:
                self.cycle.scope["extensions"] = {EXTENSION: self.connection}  # type: ignore[dict-item]  # our own extension
                if registry.started(self, self._queued):
                    self.cycle.keep_alive = False

        def on_response_complete(self) -> None:
            self._pipelined = self.conn.buffered() > 0  # the next request came before this response was complete
            wait = self.connection.hold_until - self.loop.time() if self.connection else 0.0
            if wait > 0 and not self.transport.is_closing():
                registry.holding(self, True)
                self._hold = self.loop.call_later(wait, self._release)
                return
            self._release()

        def _release(self) -> None:
            """The response is complete and any hold over: what uvicorn does next (keep-alive timer, a queued request)."""
            self._hold = None
            registry.responded(self)
            self._queued = self._pipelined
            try:
                super().on_response_complete()
            finally:
                self._queued = False

        def send_400_response(self, msg: str) -> None:
            if not self.conn.head_too_large:
                return super().send_400_response(msg)
            for event in (h11.Response(status_code=431, reason=b"Request Header Fields Too Large",
                                       headers=[(b"content-type", b"text/plain; charset=utf-8"), (b"connection", b"close")]),
                          h11.Data(data=TOO_LARGE), h11.EndOfMessage()):
                self.transport.write(self.conn.send(event))
            self.transport.close()

    GuardedH11Protocol.registry = registry  # type: ignore[attr-defined]
    return GuardedH11Protocol


class AcceptGate:
    """Accepts a server's connections in place of asyncio's accept loop: only as many as the registry has room for, evicting
    an idle one at the cap first, so the process never reaches its open-files limit through its sockets.

    asyncio accepts up to the backlog on every turn of the loop, several turns before the first of them is admitted, and
    meets the limit (EMFILE) in a flood. Here at most ``ACCEPT_BURST`` a turn; a connection that finds the cap full and
    nothing evictable is answered 503 at once and closed. Should the limit be met anyway (the store's or a clip's files),
    the reserved descriptor is let go to answer one waiting connection with a 503, idle connections are evicted, and
    accepting resumes on a later turn: a limit hit is a moment, never a state.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, listener: socket.socket, factory: Callable[[], Any],
                 registry: Registry) -> None:
        self.loop, self.listener, self.factory, self.registry = loop, listener, factory, registry
        self.pending = 0  # accepted, not yet admitted (their protocol not made yet)
        self.connecting: set[asyncio.Task[None]] = set()
        self.reserve: int | None = _reserve()
        self.exhausted = 0  # times the limit was met (reported once each in the log)

    def start(self) -> None:
        """Listen: accept on every turn the listening socket is readable."""
        self.loop.add_reader(self.listener.fileno(), self._accept)

    def stop(self) -> None:
        """Accept no more, close the listening socket and let go of the reserve."""
        self.loop.remove_reader(self.listener.fileno())
        self.listener.close()
        if self.reserve is not None:
            os.close(self.reserve)
            self.reserve = None

    def _accept(self) -> None:
        for _ in range(ACCEPT_BURST):
            try:
                conn, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except ConnectionAbortedError:
                continue
            except OSError as error:
                if error.errno not in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                    raise
                self._at_limit(error)
                return
            if not self.registry.room(self.pending):
                _refuse_raw(conn)
                continue
            conn.setblocking(False)
            self.pending += 1
            task = self.loop.create_task(self._connect(conn))
            self.connecting.add(task)  # the loop holds tasks weakly
            task.add_done_callback(self.connecting.discard)

    async def _connect(self, conn: socket.socket) -> None:
        """Make the connection's transport and protocol (the protocol admits it to the registry)."""
        try:
            await self.loop.connect_accepted_socket(self.factory, conn)
        except Exception:  # noqa: BLE001 - a connection that could not be set up is closed, the server goes on
            conn.close()
        finally:
            self.pending -= 1

    def _at_limit(self, error: OSError) -> None:
        """The process met its open-files limit: answer one waiting connection with the reserve, evict idle ones, pause."""
        self.exhausted += 1
        log.warning("at the open-files limit (%s, %d time(s)): idle connections evicted, accepting again shortly",
                    error.strerror, self.exhausted)
        if self.reserve is not None:
            os.close(self.reserve)
            self.reserve = None
            try:
                conn, _ = self.listener.accept()
                _refuse_raw(conn)
            except OSError:
                pass
        for _ in range(ACCEPT_BURST):
            if not self.registry.evict_idle():
                break
        self.loop.remove_reader(self.listener.fileno())
        self.loop.call_later(SWEEP_S / 5, self._resume)

    def _resume(self) -> None:
        """Take the reserve back and accept again."""
        if self.reserve is None:
            self.reserve = _reserve()
        if self.listener.fileno() >= 0:
            self.start()


def _reserve() -> int | None:
    """A descriptor held open to be let go when the process meets its open-files limit (None if none can be opened)."""
    try:
        return os.open(os.devnull, os.O_RDONLY)
    except OSError:
        return None


def _refuse_raw(conn: socket.socket) -> None:
    """Answer a connection 503 (with Retry-After) on its socket and close it, without a transport."""
    try:
        conn.setblocking(False)
        conn.send(REFUSED)
    except OSError:
        pass
    conn.close()


def gated_server(app: Any, host: str, port: int, limits: ConnectionLimits, log_level: str = "warning") -> Any:
    """A uvicorn server for ``app`` with ``limits`` enforced, its connections accepted by an ``AcceptGate`` (not yet started:
    ``run()`` it, or ``serve()`` it in a loop)."""
    import uvicorn

    protocol = guarded_protocol(limits)

    class GatedServer(uvicorn.Server):
        """uvicorn's server listening through an AcceptGate."""

        gate: AcceptGate | None = None

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=[])  # the app's start-up and uvicorn's state, no asyncio server
            loop = asyncio.get_running_loop()
            config, state = self.config, self.server_state

            def factory() -> Any:
                return protocol(config=config, server_state=state, app_state=self.lifespan.state, _loop=loop)

            self.gate = AcceptGate(loop, _listener(host, port), factory, protocol.registry)  # type: ignore[attr-defined]
            self.gate.start()

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            if self.gate is not None:
                self.gate.stop()
            await super().shutdown(sockets)

    config = uvicorn.Config(app, host=host, port=port, log_level=log_level, http=protocol,
                            timeout_keep_alive=limits.keep_alive,  # type: ignore[arg-type]  # seconds, fractions kept
                            backlog=BACKLOG)
    return GatedServer(config)


def _listener(host: str, port: int) -> socket.socket:
    """A non-blocking listening TCP socket on ``host``:``port`` (address reuse on, backlog BACKLOG)."""
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind(address)
        sock.listen(BACKLOG)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


def run(app: Any, host: str, port: int, limits: ConnectionLimits, log_level: str = "warning") -> None:
    """Serve ``app`` under uvicorn with ``limits`` until interrupted."""
    gated_server(app, host, port, limits, log_level).run()
