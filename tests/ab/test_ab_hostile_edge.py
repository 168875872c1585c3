"""The rating server's network edge against a hostile client (issue 28): one test per attack, over real sockets.

Each test replays one finding against the server on 127.0.0.1, in this process with ``ab serve``'s
connection protocol, or as ``reeljudge ab serve`` in its own process where its open-files limit is
set: memory before authentication, idle connections past the open-files limit, half-sent headers,
trickled bodies, unstorable text, a newline-ended submission id, malformed ranges. Every loop is
bounded in count and time.
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
from pathlib import Path
from typing import Iterator

import httpx
import pytest

from support.ab_study import closed_within as _closed_within
from support.ab_study import first_answer as _answer
from support.ab_study import free_port, invite, make_study, running_server, serve_process, take_task, valid_form
from reeljudge.ab.store.evidence import RangeError, requested_spans
from reeljudge.ab.transport.limits import ConnectionLimits
from support.paths import ROOT

FAST_DEADLINES = ConnectionLimits(header_timeout=2, body_timeout=2)
NGINX = "/usr/sbin/nginx"  # Debian's nginx, installed by scripts/setup.sh


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[tuple[str, int, object]]:
    """A study with twelve pairs and a server with short header and body deadlines, in this process with ``ab serve``'s
    connection protocol (no interpreter to start): (url, port, workspace)."""
    ws = make_study(tmp_path_factory.mktemp("hostile-edge"), n_pairs=12)
    with running_server(ws, limits=FAST_DEADLINES) as url:
        yield url, int(url.rsplit(":", 1)[1]), ws


def test_an_unknown_token_is_answered_before_the_body_is_sent(server):
    """Memory before authentication: a sub-cap body to a bad token was read and parsed; now the URL is checked first."""
    url, port, _ = server
    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(8)]
    try:
        for sock in socks:  # the head of a 498 KiB submit, and not one byte of its body
            sock.sendall(b"POST /api/r/nobody/submit HTTP/1.1\r\nHost: x\r\nContent-Type: "
                         b"application/json\r\nContent-Length: 510000\r\n\r\n")
        answers = [_answer(sock, 10) for sock in socks]
    finally:
        for sock in socks:
            sock.close()
    assert all(a.startswith(b"HTTP/1.1 404") for a in answers), answers[:2]
    assert all(b"connection: close" in a.lower() for a in answers)


def test_a_body_of_too_many_values_is_refused_before_it_is_parsed(server):
    """A real rater's 498 KiB body of empty objects would have been parsed into 166,000 dicts; it is a 413."""
    url, _, ws = server
    token = invite(ws, "vic")
    with httpx.Client(timeout=30) as client:
        task = client.get(f"{url}/api/r/{token}/task").json()["task"]
        raw = b'{"assignment_id":"%s","watch":{"log":[' % task["assignment_id"].encode() + b",".join([b"{}"] * 166_000) + b"]}}"
        assert len(raw) < 512 * 1024
        response = client.post(f"{url}/api/r/{token}/submit/{task['assignment_id']}", content=raw,
                               headers={"Content-Type": "application/json"})
    assert response.status_code == 413, response.text
    assert "more than 32768 JSON values" in response.json()["error"]


def test_idle_connections_do_not_lock_raters_out(tmp_path):
    """1,050 connections that send nothing, against an open-files limit of 1,024: a rater still gets a task."""
    ws = make_study(tmp_path, n_pairs=1)
    token = invite(ws, "ann")
    port = free_port()
    proc = serve_process(ws.root, port, tmp_path / "server.log", "--header-timeout", "120", open_files=1024)
    idle: list[socket.socket] = []
    try:
        for i in range(1050):  # 21 addresses × 50 connections: under the per-address cap, over the open-files limit
            sock = socket.socket()
            sock.bind((f"127.0.0.{2 + i // 50}", 0))
            sock.connect(("127.0.0.1", port))
            idle.append(sock)
        time.sleep(1)  # let the server accept them
        with httpx.Client(timeout=10) as client:
            task = client.get(f"http://127.0.0.1:{port}/api/r/{token}/task")
        crowd = []
        for _ in range(64):
            crowd.append(socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.99", 0)))
            time.sleep(0.01)  # in order: the first is the longest waiting
        time.sleep(1.5)  # past limits.STALLED_S: an idle connection of an address at its cap may be evicted
        crowd.append(socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.99", 0)))
        evicted = _answer(crowd[0], 10)  # the 65th from one address is over --max-per-client (64): the longest waiting goes
        kept = _answer(crowd[-1], 1)
        for sock in crowd:
            sock.close()
    finally:
        for sock in idle:
            sock.close()
        proc.terminate()
        proc.wait(10)
    assert task.status_code == 200 and task.json()["task"] is not None
    assert evicted == b"" and kept == b"(still open)"
    assert "Too many open files" not in (tmp_path / "server.log").read_text()


def test_half_sent_headers_are_closed_within_the_deadline(server):
    """A request head sent a byte at a time was held for minutes; it is closed at --header-timeout (2 s)."""
    _, port, _ = server
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        start, closed = time.monotonic(), None
        for _ in range(16):  # one more header byte every 0.5 s, for at most 8 s
            try:
                sock.sendall(b"a")
            except OSError:
                closed = time.monotonic() - start
                break
            closed = _closed_within(sock, 0.5)
            if closed is not None:
                closed = time.monotonic() - start
                break
    assert closed is not None and closed < 2 + 3, closed  # the deadline, a 0.5 s sweep, slack for a loaded machine


def test_a_body_at_one_byte_per_five_seconds_is_closed_within_the_deadline(server):
    """A valid rater's body trickling at 1 byte per 5 s held a connection for minutes; it is closed at --body-timeout (2 s)."""
    url, port, ws = server
    token = invite(ws, "tess")
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(f"POST /api/r/{token}/submit HTTP/1.1\r\nHost: x\r\nContent-Type: "
                     f"application/json\r\nContent-Length: 100\r\n\r\n{{".encode())
        closed = _closed_within(sock, 8)  # the next byte would be due at 5 s
    assert closed is not None and closed < 4.5, closed  # the 2 s deadline, a 0.5 s sweep, slack; before the next byte


def _watched_submit(url: str, token: str, **changes: object) -> httpx.Response:
    """Take a task, watch it as the page does, and post a valid verdict with ``changes`` applied; the response."""
    with httpx.Client(timeout=30) as client:
        task, watch = take_task(client, url, token)
        assert task is not None
        body = {"assignment_id": task["assignment_id"], "submission_id": f"edge-{task['assignment_id'][:12]}",
                "form": valid_form("A"), "watch": watch}
        body.update(changes)
        if "note" in changes:
            body["form"] = {**body["form"], "note": body.pop("note")}
        # ensure_ascii: a lone surrogate goes out as the escape \ud800, as a hand-made request would send it
        raw = json.dumps(body)
        return client.post(f"{url}/api/r/{token}/submit", content=raw, headers={"Content-Type": "application/json"})


def test_a_lone_surrogate_in_the_note_is_a_422_naming_the_field(server):
    """A note of "\\ud800" passed every check and failed at storing: a 500 and a dropped connection."""
    url, _, ws = server
    response = _watched_submit(url, invite(ws, "una"), note="Fine.\ud800")
    assert response.status_code == 422, response.text
    assert response.json()["violations"][0]["field"] == "form.note"
    assert ws.store.judgements(rater_id="una") == []


def test_a_submission_id_ending_in_a_newline_is_refused(server):
    """Python's ``$`` matches before a final newline, so "abcdefgh\\n" passed the schema's ^…$ pattern and was stored."""
    url, _, ws = server
    response = _watched_submit(url, invite(ws, "nia"), submission_id="abcdefgh\n")
    assert response.status_code == 422, response.text
    assert "submission_id" in response.json()["violations"][0]["message"]
    assert ws.store.judgements(rater_id="nia") == []


@pytest.mark.parametrize("header",
                         ["bytes=0-" + "9" * 5000, "bytes=" + ",".join(["0-0"] * 3900), "bytes=9-3", "bytes=-0", "items=0-1"],
                         ids=["5000-digit end", "3900 ranges", "backwards", "empty suffix", "not bytes"])
def test_a_malformed_range_is_a_416(server, header):
    """``Range: bytes=0-<5000 digits>`` was a 500 (int() of 5000 digits); every malformed or oversized Range is a 416."""
    url, _, ws = server
    token = invite(ws, f"rex{abs(hash(header)) % 10_000}")
    with httpx.Client(timeout=30) as client:
        task = client.get(f"{url}/api/r/{token}/task").json()["task"]
        response = client.get(url + task["clips"]["A"]["url"], headers={"Range": header})
    assert response.status_code == 416, response.text
    assert response.headers["content-range"].startswith("bytes */")


def test_ranges_are_merged_and_their_count_capped():
    """Overlapping and adjacent ranges come back as one span each; more than 16 ranges are refused, not logged."""
    assert requested_spans("bytes=0-0,1-5, 3-10,20-", 30) == [(0, 10), (20, 29)]
    assert requested_spans("bytes=-5,0-3", 30) == [(0, 3), (25, 29)]
    assert requested_spans("bytes=" + ",".join(["0-0"] * 16), 30) == [(0, 0)]
    with pytest.raises(RangeError):
        requested_spans("bytes=" + ",".join(["0-0"] * 17), 30)


def _nginx_in_front(tmp: Path, upstream: int) -> tuple[subprocess.Popen, int]:
    """nginx running docs/ab-nginx.conf (its listen and upstream ports changed) in front of ``upstream``; (process, port)."""
    port = free_port()
    site = (ROOT / "docs" / "ab-nginx.conf").read_text()
    site = site.replace("listen 80;", f"listen 127.0.0.1:{port};").replace("server 127.0.0.1:8765;",
                                                                           f"server 127.0.0.1:{upstream};")
    temp = " ".join(f"{kind}_temp_path {tmp / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    (tmp / "nginx.conf").write_text(f"daemon off; master_process off; pid {tmp / 'nginx.pid'}; error_log {tmp / 'error.log'};\n"
                                    f"events {{}}\nhttp {{ access_log off; {temp}\n{site}\n}}\n")
    proc = subprocess.Popen([NGINX, "-p", str(tmp), "-c", str(tmp / "nginx.conf")], stdout=subprocess.DEVNULL,
                            stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, port
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise AssertionError(f"nginx did not start: {(tmp / 'error.log').read_text()[-2000:]}")


def test_the_nginx_configuration_serves_raters_and_enforces_its_limits(server, tmp_path):
    """docs/ab-nginx.conf in front of the server: a rater's task passes; an oversized body is a 413; a half-sent head is closed at
    10 s."""
    url, port, ws = server
    token = invite(ws, "nora")
    proc, front = _nginx_in_front(tmp_path, port)
    try:
        with httpx.Client(timeout=30) as client:
            task = client.get(f"http://127.0.0.1:{front}/api/r/{token}/task")
            large = client.post(f"http://127.0.0.1:{front}/api/r/{token}/submit", content=b"{" + b" " * 600_000 + b"}")
        with socket.create_connection(("127.0.0.1", front)) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            closed = _closed_within(sock, 16)
    finally:
        proc.terminate()
        proc.wait(10)
    assert task.status_code == 200 and task.json()["task"] is not None
    assert large.status_code == 413 and large.headers["server"].startswith("nginx")  # refused by nginx, not the server
    assert closed is not None and 9 < closed < 14, closed  # client_header_timeout 10s


@pytest.mark.parametrize("note", ["Fine.\ud800", "Fine.\x00"], ids=["lone surrogate", "NUL"])
def test_unstorable_text_is_a_422_on_postgresql_too(tmp_path, note, postgres_database):
    """On PostgreSQL as on SQLite: a lone surrogate (a 500 before) or a NUL (stored before) is a 422 naming the field."""
    ws = make_study(tmp_path, n_pairs=1, database=postgres_database)
    token = invite(ws, "pia")
    with running_server(ws) as base:
        response = _watched_submit(base, token, note=note)
    assert response.status_code == 422, response.text
    assert response.json()["violations"][0]["field"] == "form.note"
    assert ws.store.judgements() == []
