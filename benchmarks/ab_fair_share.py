"""The clients of ``ab_load.py --fair`` (issue 39): flooders, never-reading pipeliners, raters behind one address, and
the measured rater.

Every row runs a real ``reeljudge ab serve`` process (``--src``: the code of another tree) on
127.0.0.1 and one measured rater in the benchmark's process, with the attack in a process of its
own (so its client work does not slow the measured rater), from addresses 127.0.0.2 and up; every
loop stops by itself. The rows:

- ``fair``: the measured rater downloads its task's two clips (``--clip-mb`` MB each, both at once,
  as the page loads them) ``--downloads`` times while its page asks for its task every 0.1 s (in a process of its own);
  (a) alone, (b) beside one other invited token looping its own ``/task`` on 64 keep-alive
  connections from one address, (c) beside 64 connections from one address looping ``/task`` of a
  token that does not exist. Per row: the two clips' download time (and its ratio to row a), the
  rater's ``/task`` p50 / p99, the server's CPU seconds beside the wall time, its peak RSS over its
  RSS before, and the attack's answers by status. The flooders ignore ``Retry-After``.
- ``stuck``: a server with ``--max-connections 64``; 64 connections from four addresses each pipeline
  200 requests for the rating page's script and never read an answer; the measured rater then
  asks for its task once a second for ``--stuck-seconds``: its answers by status, and how many
  of the 64 the server had closed by the end.
- ``nat``: 40 invited raters behind one address (127.0.0.9), two connections each (as a browser
  opens them), fetching their tasks: the answers by status.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import re
import socket
import time
from typing import Any, Callable

FLOODERS = 64
_LENGTH = re.compile(rb"content-length:\s*(\d+)", re.I)


async def _exchange(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes) -> tuple[str, bool]:
    """Send one request and read its whole answer; (status, whether the server will close)."""
    writer.write(request)
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 60)
    length = _LENGTH.search(head)
    if length:
        await asyncio.wait_for(reader.readexactly(int(length.group(1))), 60)
    return head[9:12].decode(errors="replace"), b"connection: close" in head.lower()


async def _flooder(port: int, source: str, path: str, stop: asyncio.Event, statuses: dict[str, int]) -> None:
    """One keep-alive connection asking for ``path`` again as soon as each answer is read, until ``stop``; reconnects when
    closed."""
    request = f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
            try:
                closing = False
                while not stop.is_set() and not closing:
                    status, closing = await _exchange(reader, writer, request)
                    statuses[status] = statuses.get(status, 0) + 1
            finally:
                writer.close()
        except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            statuses["dropped"] = statuses.get("dropped", 0) + 1
            await asyncio.sleep(0.05)


def flood_process(port: int, path: str, source: str, stop: Any, out: Any) -> None:
    """In a process of its own: FLOODERS flooders on ``path`` from ``source`` until ``stop``; their answers by status to
    ``out``."""
    async def flood() -> dict[str, int]:
        done = asyncio.Event()
        statuses: dict[str, int] = {}
        tasks = [asyncio.create_task(_flooder(port, source, path, done, statuses)) for _ in range(FLOODERS)]
        while not stop.is_set():
            await asyncio.sleep(0.1)
        done.set()
        await asyncio.wait(tasks, timeout=90)
        return statuses

    out.put(asyncio.run(flood()))


def with_attack(target: Callable[..., None] | None, args: tuple, measure: Callable[[], Any]) -> tuple[Any, dict[str, int]]:
    """``measure()`` while ``target(*args, stop, out)`` attacks in another process (None: no attack); its result and the attack's
    statuses."""
    if target is None:
        return measure(), {}
    ctx = multiprocessing.get_context("spawn")
    stop, out = ctx.Event(), ctx.Queue()
    attacker = ctx.Process(target=target, args=(*args, stop, out))
    attacker.start()
    time.sleep(2)  # let the attack start
    try:
        result = measure()
    finally:
        stop.set()
    statuses = out.get(timeout=180)
    attacker.join(60)
    return result, statuses


async def download_pair(url: str, task: dict[str, Any]) -> float:
    """Both clips of ``task`` at once on fresh connections, as the page loads them; the wall time of the two."""
    import httpx

    async def one(side: str) -> None:
        async with httpx.AsyncClient(timeout=300) as client:
            response = await client.get(url + task["clips"][side]["url"])
            assert response.status_code == 200, (response.status_code, response.text[:200])

    start = time.perf_counter()
    await asyncio.gather(one("A"), one("B"))
    return time.perf_counter() - start


def _fetch_process(url: str, token: str, stop: Any, out: Any) -> None:
    """In a process of its own (the page's fetches do not wait on the downloads' client work, as in a browser): the rater's
    task fetched every 0.1 s until ``stop``; (latencies, statuses) to ``out``."""
    import httpx

    latencies: list[float] = []
    statuses: dict[str, int] = {}
    with httpx.Client(timeout=120) as client:
        while not stop.is_set():
            start = time.perf_counter()
            try:
                status = str(client.get(f"{url}/api/r/{token}/task").status_code)
            except httpx.HTTPError as error:
                status = type(error).__name__
            latencies.append(time.perf_counter() - start)
            statuses[status] = statuses.get(status, 0) + 1
            time.sleep(0.1)
    out.put((latencies, statuses))


def measured_rater(url: str, token: str, downloads: int, seconds: float) -> tuple[list[float], list[float], dict[str, int]]:
    """The measured rater: ``downloads`` pair downloads one after another while its page asks for its task every 0.1 s (in
    another process), for at least ``seconds``; (download times, task latencies, task statuses)."""
    import httpx

    task = httpx.get(f"{url}/api/r/{token}/task", timeout=120).json()["task"]
    ctx = multiprocessing.get_context("spawn")
    stop, out = ctx.Event(), ctx.Queue()
    fetcher = ctx.Process(target=_fetch_process, args=(url, token, stop, out))
    fetcher.start()
    start = time.monotonic()
    try:
        times = [asyncio.run(download_pair(url, task)) for _ in range(downloads)]
        time.sleep(max(0.0, start + seconds - time.monotonic()))
    finally:
        stop.set()
    latencies, statuses = out.get(timeout=180)
    fetcher.join(60)
    return times, latencies, statuses


def stuck_process(port: int, connections: int, stop: Any, out: Any) -> None:
    """``connections`` sockets from four addresses, each pipelining 200 GETs of the page's script and never reading; kept open
    until ``stop``; reports how many the server closed by then."""
    request = b"GET /static/rater.js HTTP/1.1\r\nHost: x\r\n\r\n" * 200
    socks = []
    for i in range(connections):
        sock = socket.socket()
        sock.bind((f"127.0.0.{4 + i % 4}", 0))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        try:
            sock.connect(("127.0.0.1", port))
            sock.setblocking(False)
            sock.send(request)
        except OSError:
            pass
        socks.append(sock)
    while not stop.is_set():
        time.sleep(0.1)
    closed = 0
    for sock in socks:
        try:
            sock.send(b"G")  # a closed connection answers with a reset (or a broken pipe)
            time.sleep(0.001)
            sock.send(b"E")
        except OSError:
            closed += 1
        sock.close()
    out.put({"closed by the server": closed, "of": connections})


async def nat_raters(url: str, tokens: list[str], source: str = "127.0.0.9") -> dict[str, int]:
    """Raters behind one address ``source``, two connections each (as a browser opens them), fetching their tasks twice on each
    while all of them are open; the answers by status."""
    import httpx

    statuses: dict[str, int] = {}
    release = asyncio.Event()
    opened = [asyncio.Event() for _ in tokens]

    async def rater(token: str, done: asyncio.Event) -> None:
        async with httpx.AsyncClient(transport=httpx.AsyncHTTPTransport(local_address=source), timeout=30) as client:
            async def fetch() -> None:
                try:
                    status = str((await client.get(f"{url}/api/r/{token}/task")).status_code)
                except httpx.HTTPError as error:
                    status = type(error).__name__
                statuses[status] = statuses.get(status, 0) + 1

            await asyncio.gather(fetch(), fetch())
            done.set()
            await release.wait()  # keep both open (keep-alive) while the others connect
            await asyncio.gather(fetch(), fetch())

    tasks = [asyncio.create_task(rater(t, e)) for t, e in zip(tokens, opened)]
    await asyncio.wait_for(asyncio.gather(*(e.wait() for e in opened)), 60)
    release.set()
    await asyncio.gather(*tasks)
    return statuses
