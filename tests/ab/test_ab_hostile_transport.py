"""The rating server's transport against clients that stop honest raters (issue 39), over real sockets on 127.0.0.1.

One test per finding of the issue's hostile pass: responses nobody reads, pipelining without end, a
100 KiB request head sent whole, raters behind one address, one token (or none) flooding, clip bytes
queued behind busy worker threads, bytes counted as watched that the client never took. Each failed
on the server before issue 39 (commit b5ddac5). The server runs in this process with ``ab serve``'s
connection protocol and listen backlog (``running_server``: no interpreter to start per test);
deadlines are made short by its options and every bound is generous: the tests say what happens,
not how fast. Every loop is bounded in count and time.
"""

from __future__ import annotations

import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from reeljudge.ab.transport.fair_share import RateLimits
from reeljudge.ab.transport.limits import ConnectionLimits
from support.ab_study import byte_study, first_answer, invite, make_study, never_reading, peer_closed, running_server

# 20 KB answers: 200 of them fill any buffer of a client that never reads
SCRIPT = b"GET /static/rater.js HTTP/1.1\r\nHost: x\r\n\r\n"


def _port(url: str) -> int:
    """The port of a server's base URL."""
    return int(url.rsplit(":", 1)[1])


def _status(url: str) -> str:
    """The status of one GET on a new connection (the exception's name when there is none)."""
    try:
        return str(httpx.get(url, timeout=10).status_code)
    except httpx.HTTPError as error:
        return type(error).__name__


def test_a_response_nobody_reads_is_closed_at_the_write_deadline(tmp_path):
    """Pipelined requests whose answers were never read held their connection for good (still open at 300 s)."""
    ws = make_study(tmp_path, n_pairs=1)
    with running_server(ws, limits=ConnectionLimits(write_timeout=2, max_pipelined=0)) as url:
        sock = never_reading(_port(url), SCRIPT * 200)
        closed = peer_closed(sock, 30)  # the deadline is 2 s: 30 s is for a loaded machine
        sock.close()
    assert closed


def test_connections_stuck_writing_are_evicted_at_the_cap(tmp_path):
    """Cap 64, 64 connections pipelining and never reading: every rater request was a 503; a stalled one now makes room."""
    ws = make_study(tmp_path, n_pairs=1)
    token = invite(ws, "ann")
    limits = ConnectionLimits(max_connections=8, write_timeout=600, header_timeout=600, max_pipelined=0)
    stuck = []
    with running_server(ws, limits=limits) as url:
        try:
            stuck = [never_reading(_port(url), SCRIPT * 200, source=f"127.0.0.{10 + i}") for i in range(8)]
            answers = []
            for _ in range(20):  # a rater asking once a second until it is served, 20 s at most
                answers.append(_status(f"{url}/api/r/{token}/task"))
                if answers[-1] == "200":
                    break
                time.sleep(1)
            evicted = sum(peer_closed(sock, 0.2) for sock in stuck)
        finally:
            for sock in stuck:
                sock.close()
    assert answers[-1] == "200", answers
    assert evicted >= 1


def test_pipelined_requests_beyond_the_cap_close_the_connection(tmp_path):
    """Fifty requests pipelined in one write were all answered; the ninth (--max-pipelined 8 queued) is the last."""
    ws = make_study(tmp_path, n_pairs=1)
    with running_server(ws) as url, socket.create_connection(("127.0.0.1", _port(url))) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n" * 50)
        sock.settimeout(15)
        got = b""
        while True:
            try:
                piece = sock.recv(65536)
            except TimeoutError:
                break
            if not piece:
                break
            got += piece
    assert got.count(b"HTTP/1.1 200") == 9, got.count(b"HTTP/1.1 200")


@pytest.mark.parametrize("size, status", [(100 * 1024, b"431"), (15 * 1024, b"200")], ids=["100 KiB", "15 KiB"])
def test_a_request_head_over_16_kib_is_refused_even_when_sent_whole(tmp_path, size, status):
    """h11 checked its 16 KiB only while a head was incomplete: a 100 KiB head in one write was taken (the docs say 16 KiB)."""
    ws = make_study(tmp_path, n_pairs=1)
    with running_server(ws) as url, socket.create_connection(("127.0.0.1", _port(url))) as sock:
        filler = b"a" * (size - 60)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Filler: " + filler + b"\r\n\r\n")
        answer = first_answer(sock, 15)
    assert answer.startswith(b"HTTP/1.1 " + status), answer[:80]


def test_raters_behind_one_address_are_not_refused_by_the_per_address_cap(tmp_path):
    """The 64-per-address cap refused honest raters behind one NAT (7 of 40 task fetches 503); raters are told apart by token."""
    ws = byte_study(tmp_path / "study", 1000, n_pairs=40)  # tasks handed out, never played: clips of bytes, not encoded
    tokens = [invite(ws, f"nat{i:02d}") for i in range(70)]
    socks = []
    with running_server(ws) as url:
        try:
            for token in tokens:  # 70 connections from one address, each asking at once as a browser does, all kept open
                socks.append(socket.create_connection(("127.0.0.1", _port(url)), source_address=("127.0.0.60", 0)))
                socks[-1].sendall(f"GET /api/r/{token}/task HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            answers = [first_answer(sock, 30)[:12] for sock in socks]
        finally:
            for sock in socks:
                sock.close()
    assert answers == [b"HTTP/1.1 200"] * 70, [a for a in answers if a != b"HTTP/1.1 200"]


def test_an_address_over_its_cap_without_a_token_is_refused_or_makes_room(tmp_path):
    """Beside the relief for raters: 64 tokenless connections from one address are all it keeps; the 65th's request without a
    token is a 503 with Retry-After (on probation), or the longest waiting of the 64 was closed to make room for it."""
    ws = make_study(tmp_path, n_pairs=1)
    with running_server(ws) as url:
        port = _port(url)
        idle = [socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.61", 0)) for _ in range(64)]
        with socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.61", 0)) as extra:
            extra.sendall(b"GET /static/rater.css HTTP/1.1\r\nHost: x\r\n\r\n")
            answer = first_answer(extra, 15)
        room = peer_closed(idle[0], 2)
        for sock in idle:
            sock.close()
    assert (answer.startswith(b"HTTP/1.1 503")
            and b"retry-after: 2" in answer.lower()) or (answer.startswith(b"HTTP/1.1 200") and room)


def _flood(url: str, path: str, source: str, until: threading.Event, seconds: float,
           connections: int = 16) -> list[tuple[int, str | None]]:
    """``connections`` keep-alive clients from ``source`` asking for ``path`` again as soon as each answer arrives, ignoring
    Retry-After, until ``until`` is set (``seconds`` at most); every answer's (status, Retry-After)."""
    answers: list[tuple[int, str | None]] = []
    stop = time.monotonic() + seconds

    def client() -> None:
        with httpx.Client(transport=httpx.HTTPTransport(local_address=source), timeout=30) as http:
            while time.monotonic() < stop and not until.is_set():
                response = http.get(url + path)
                answers.append((response.status_code, response.headers.get("retry-after")))

    with ThreadPoolExecutor(connections) as pool:
        list(pool.map(lambda _: client(), range(connections)))
    return answers


@pytest.mark.parametrize("flooder", ["token", "no token"])
def test_a_flood_is_paced_with_retry_after_and_another_rater_is_served(tmp_path, flooder):
    """One token looping /task on many connections (or many connections without a token) made another rater's clips crawl;
    each is now charged to its own bucket: the flood gets 429 with Retry-After past its burst, the other rater is served."""
    ws = make_study(tmp_path, n_pairs=4)
    rater, greedy = invite(ws, "ann"), invite(ws, "greedy")
    rates = RateLimits(rate_per_token=5, burst_per_token=10, rate_per_address=5, burst_per_address=10)
    path = f"/api/r/{greedy}/task" if flooder == "token" else "/api/r/nobody-has-this-token-at-all/task"
    served_rater = threading.Event()
    with running_server(ws, rates=rates) as url, ThreadPoolExecutor(1) as pool:
        started = time.monotonic()
        flood = pool.submit(_flood, url, path, "127.0.0.70", served_rater, 60.0)  # until the rater is served
        try:
            time.sleep(1)  # the flood is past its burst (16 at once, then again at once: the 11th waiting is refused)
            with httpx.Client(timeout=30) as client:
                task = client.get(f"{url}/api/r/{rater}/task")
                clips = [client.get(url + task.json()["task"]["clips"][side]["url"]) for side in ("A", "B")]
            during = not flood.done()
        finally:
            served_rater.set()
        answers = flood.result()
        elapsed = time.monotonic() - started
    assert during  # the rater was served while the flood went on
    assert task.status_code == 200 and [c.status_code for c in clips] == [200, 200]
    sizes = [ws.store.clip(sha).bytes for sha in (ws.store.samples()[0].clip_a, ws.store.samples()[0].clip_b)]
    assert sorted(len(c.content) for c in clips) == sorted(sizes)
    refused = [retry for status, retry in answers if status == 429]
    served = sum(status in (200, 404) for status, _ in answers)
    assert refused and all(retry is not None and int(retry) >= 1 for retry in refused)
    assert served <= 10 + 5 * elapsed + 1  # the burst, then the rate; the clock only ever widens this bound


def test_a_clip_streams_while_every_worker_thread_is_busy(tmp_path):
    """Clip bytes went through the worker-thread pool one 64 KiB read at a time, behind every busy handler; now the kernel sends
    them. Forty requests whose token lookup blocks (a store made slow on purpose) take every worker thread mid-clip."""
    ws = byte_study(tmp_path / "study", 8_000_000, n_pairs=1)
    token = invite(ws, "ann")
    lookup, release, blocked = ws.store.rater_for_token, threading.Event(), []

    def slow_lookup(candidate: str) -> str | None:
        if candidate.startswith("slow"):
            blocked.append(candidate)
            release.wait(90)
        return lookup(candidate)

    ws.store.rater_for_token = slow_lookup
    limits = ConnectionLimits(write_timeout=600)  # the clip waits unread while the pool fills: only the threads are on trial
    with running_server(ws, limits=limits) as url, ThreadPoolExecutor(48) as pool:
        task = httpx.get(f"{url}/api/r/{token}/task").json()["task"]
        with socket.create_connection(("127.0.0.1", _port(url))) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
            sock.sendall(f"GET {task['clips']['A']['url']} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            got = first_answer(sock, 30)
            head, body = got.split(b"\r\n\r\n", 1)
            busy = [pool.submit(httpx.get, f"{url}/api/r/slow{i:020d}/task", timeout=120) for i in range(48)]
            deadline = time.monotonic() + 60
            while len(blocked) < 40 and time.monotonic() < deadline:  # the default pool's forty threads, all waiting
                time.sleep(0.05)
            sock.settimeout(30)
            try:
                while len(body) < 8_000_000:
                    piece = sock.recv(1 << 20)
                    if not piece:
                        break
                    body += piece
            except TimeoutError:
                pass
            still_blocked = not release.is_set()
            release.set()
        for future in busy:
            future.result()
    assert len(blocked) >= 40 and still_blocked
    assert head.startswith(b"HTTP/1.1 200") and len(body) == 8_000_000


def test_bytes_the_client_never_took_are_not_counted_as_watched(tmp_path):
    """A clip whose bytes sat in the server's socket buffers, never read, counted as sent in full; now only what the client
    acknowledged counts, and the response that never drains is closed at the write deadline."""
    ws = make_study(tmp_path, n_pairs=2, frames=96)
    token = invite(ws, "ann")
    with running_server(ws, limits=ConnectionLimits(write_timeout=2)) as url:
        task = httpx.get(f"{url}/api/r/{token}/task").json()["task"]
        size = task_clip_bytes(ws, task["assignment_id"], "A")
        sock = never_reading(_port(url), f"GET {task['clips']['A']['url']} HTTP/1.1\r\nHost: x\r\n\r\n".encode(),
                             receive_buffer=1024)
        closed = peer_closed(sock, 30)
        sock.close()
        unread = ws.store.coverage(task["assignment_id"]).get("A", ([], 0))
        read = httpx.get(url + task["clips"]["B"]["url"])  # the same server credits a clip that was read
        credited = ws.store.coverage(task["assignment_id"]).get("B", ([], 0))
    assert size > 20_000 and unread == ([], 0), unread
    assert closed
    assert read.status_code == 200 and credited[0] == [(0, len(read.content) - 1)]


def task_clip_bytes(ws, assignment_id: str, side: str) -> int:
    """The size of one side's clip of a task."""
    from reeljudge.ab.study.assignment import assignment_by_id

    return ws.store.clip(assignment_by_id(ws.store, assignment_id).clips[side]).bytes


def test_a_refused_request_with_a_body_closes_its_connection(tmp_path):
    """A 429 answers before the body is read; the connection is closed after it (it could not carry another request), while a
    refused request without a body keeps its connection, held until Retry-After."""
    ws = make_study(tmp_path, n_pairs=1)
    token = invite(ws, "ann")
    socks = []
    with running_server(ws, rates=RateLimits(rate_per_token=1, burst_per_token=1)) as url:
        try:
            httpx.get(f"{url}/api/r/{token}/task")  # the token is known from here on; its one request is spent
            for _ in range(8):  # at once: one more than the 2 s of waiting the bucket allows must be refused
                sock = socket.create_connection(("127.0.0.1", _port(url)))
                sock.sendall(f"POST /api/r/{token}/submit HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                             f"Content-Length: 2\r\n\r\n{{}}".encode())
                socks.append(sock)
            answers = [first_answer(sock, 30).lower() for sock in socks]
        finally:
            for sock in socks:
                sock.close()
    refused = [a for a in answers if a.startswith(b"http/1.1 429")]
    assert refused and all(b"connection: close" in a and b"retry-after: " in a for a in refused)


def test_a_closed_connection_is_freed_without_the_garbage_collector(tmp_path):
    """The request's scope held the connection's handle and the handle its protocol: every closed connection, with its last
    request's first body bytes, waited for the cyclic garbage collector (128 clients posting 498 KiB bodies: +170 MiB)."""
    import gc

    from reeljudge.ab.transport.connection import Connection

    ws = make_study(tmp_path, n_pairs=1)
    with running_server(ws) as url:
        gc.collect()
        gc.disable()
        try:
            for _ in range(40):  # each on a connection of its own, closed by the server after its 404
                with httpx.Client() as client:
                    client.post(f"{url}/api/r/nobody/submit", content=b"{" + b" " * 100_000 + b"}")
            time.sleep(1)  # the server notes the closes
            alive = [o for o in gc.get_objects() if isinstance(o, Connection)]
        finally:
            gc.enable()
    assert sum(c._proto() is not None for c in alive) <= 2, len(alive)
