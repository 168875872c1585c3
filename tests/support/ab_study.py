"""Helpers for the A/B tests: small generated studies, a real server on a free port, valid forms."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Mapping

import yaml

from reeljudge.ab.study.assignment import QCOptions
from reeljudge.ab.store.imports import build_samples, read_manifest
from reeljudge.ab.page.server import ServeOptions, create_app
from reeljudge.ab.study.workspace import Workspace, new_invite_token
from support.paths import ROOT

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
if TYPE_CHECKING:
    from reeljudge.synth.clips import FaultKind

FAULTS: tuple[FaultKind, ...] = ("flicker", "frozen", "black", "cut", "shake", "gray")
#: frames of a study's clips unless a test asks for more: 0.25 s at 24 fps, so an honest rater's least wait before a
#: submit (two full plays at 2×) is 0.25 s, not the 1 s of a 24-frame clip (the claims are about the rule, not its length)
FRAMES = 6
CLIP_S = FRAMES / 24
#: a task's hold in the tests of what happens when it expires: several times an honest rater's time on a task of such
#: clips (well over a loaded machine's stall), and soon past
HOLD_S = 1.5


@lru_cache(maxsize=None)
def _clip_bytes(i: int, frames: int) -> bytes:
    """The bytes of clip ``i`` of :func:`make_clips` (rendered once per process: the generator is deterministic)."""
    import tempfile

    from reeljudge.synth.clips import BASE, Fault, make_clip

    spec = replace(BASE, width=128, height=72, frames=frames, seed=11 + i // 2)
    faults = () if i % 2 == 0 else (Fault(FAULTS[(i // 2) % len(FAULTS)], frames // 3, max(2, frames // 3)),)
    with tempfile.TemporaryDirectory() as folder:
        return make_clip(Path(folder) / "clip.mp4", spec.with_faults(*faults)).read_bytes()


def make_clips(folder: Path, n: int, frames: int = FRAMES) -> list[Path]:
    """``n`` small distinct clips (128×72, 24 fps, ``frames`` long) from the fixture generator."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"clip{i}.mp4" for i in range(n)]
    for i, path in enumerate(paths):
        path.write_bytes(_clip_bytes(i, frames))
    return paths


def make_study(
    tmp_path: Path, n_pairs: int = 2, *, gold: int = 0, frames: int = FRAMES, family: str = "text-to-video",
    database: str | None = None
) -> Workspace:
    """A workspace with ``n_pairs`` imported pair samples (systems sys-x / sys-y) and ``gold`` gold pairs.

    ``database``: a PostgreSQL URL for the store (default: SQLite in the study folder).
    """
    clips = make_clips(tmp_path / "src", 2 * n_pairs, frames)
    rows = [
        {"prompt": f"A red ball rolls past a wall, take {i}", "clip_a": str(clips[2 * i].name),
         "clip_b": str(clips[2 * i + 1].name),
         "system_a": "sys-x", "system_b": "sys-y", "family": family}
        for i in range(n_pairs)
    ]
    manifest = tmp_path / "src" / "manifest.yaml"
    manifest.write_text(yaml.safe_dump(rows))
    ws = Workspace(tmp_path / "study", database=database)
    protocol = ws.fix_protocol()
    result = build_samples(read_manifest(manifest), protocol, ws.clips)
    ws.store.add_samples(result.samples, list(result.clips.values()))
    if gold:
        from reeljudge.ab.study.gold import make_gold

        ws.store.add_samples(*make_gold(ws.clips, gold, frames=frames))
    return ws


def byte_study(root: Path, clip_bytes: int, n_pairs: int = 2) -> Workspace:
    """A workspace of ``n_pairs`` pairs whose clips are two files of ``clip_bytes`` random bytes (served, never decoded: for
    what the server does with the bytes, not for a browser to play)."""
    import os

    from reeljudge.ab.store.samples import Clip, make_sample

    ws = Workspace(root)
    ws.fix_protocol()
    ws.clips.root.mkdir(parents=True, exist_ok=True)
    for name in ("bytes-a.mp4", "bytes-b.mp4"):
        (ws.clips.root / name).write_bytes(os.urandom(clip_bytes))
    samples, clips = [], []
    for i in range(n_pairs):
        shas = (f"{2 * i:064x}", f"{2 * i + 1:064x}")
        clips += [Clip(sha, name, clip_bytes, "video/mp4", 1.0, 24.0, 1280, 720) for sha,
                  name in zip(shas, ("bytes-a.mp4", "bytes-b.mp4"))]
        samples.append(make_sample("text-to-video", f"A red ball rolls past a wall, take {i}",
                                   ("sys-x", shas[0]), ("sys-y", shas[1])))
    ws.store.add_samples(samples, clips)
    return ws


def invite(ws: Workspace, rater: str) -> str:
    """Add a rater; their invite token."""
    token = new_invite_token()
    ws.store.add_rater(rater, "human", token)
    return token


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running_server(ws: Workspace, qc: QCOptions = QCOptions(gold_every=0), **options: Any) -> Iterator[str]:
    """The real app under uvicorn as ``ab serve`` runs it (its connection protocol and accept gate), on a free port in a
    background thread; yields its base URL. ``options``: other ServeOptions fields (``limits``, ``rates``)."""
    import httpx

    from reeljudge.ab.transport.connection import gated_server

    port = free_port()
    serve = ServeOptions(port=port, qc=qc, **options)
    server = gated_server(create_app(ws, serve), "127.0.0.1", port, serve.limits)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.05)
    try:
        yield url
    finally:
        server.should_exit = True
        thread.join(10)


def full_watch(plays: int = 2, seconds: float | Mapping[str, float] = CLIP_S) -> dict[str, Any]:
    """A watch log with ``plays`` full plays of each side (clips of ``seconds``, or of ``seconds[side]``)."""
    length = seconds if isinstance(seconds, Mapping) else {"A": seconds, "B": seconds}
    log = [{"side": "both", "event": "play", "t": 0, "at_ms": 0}]
    for k in range(plays):
        for side in ("A", "B"):
            log.append({"side": side, "event": "full_play", "t": length[side], "at_ms": 1000 * (k + 1), "value": k + 1})
    return {"log": log}


def valid_form(winner: str = "A", family: str = "text-to-video", primary: str | None = None) -> dict[str, Any]:
    """A form that follows every rule (ratings favour the winner)."""
    dims = (["prompt_adherence", "temporal_consistency", "identity_consistency", "motion_physics"]
            + (["edit_precision"] if family == "edit" else []))
    good, bad = ({d: 5 for d in dims}, {d: 2 for d in dims})
    ratings = {"A": good, "B": bad} if winner == "A" else {"A": bad, "B": good} if winner == "B" else {"A": good, "B": dict(good)}
    tag = primary or ("tie_both_good" if winner == "tie" else "flicker")
    return {"winner": winner, "primary_tag": tag, "secondary_tags": [], "ratings": ratings, "note": None}


def min_seconds(task: dict[str, Any]) -> float:
    """The least time the server wants between handing out ``task`` and its submit."""
    longest = max(clip["duration"] for clip in task["clips"].values())
    return task["min_full_plays"] * longest / task.get("max_speed", 2.0)


def watch_task(client: Any, url: str, task: dict[str, Any], handed_out: float) -> dict[str, Any]:
    """What an honest rater's page does: load both clips in full, stay the minimum time; the page's watch log.

    ``handed_out``: ``time.monotonic()`` when the task response arrived.
    """
    for side in ("A", "B"):
        response = client.get(url + task["clips"][side]["url"])
        assert response.status_code == 200, response.text
    time.sleep(max(0.0, handed_out + min_seconds(task) + 0.05 - time.monotonic()))
    return full_watch(seconds={side: task["clips"][side]["duration"] for side in ("A", "B")})


def hand_out(client: Any, url: str, token: str) -> tuple[dict[str, Any] | None, float]:
    """The rater's next task (None when nothing is left) and ``time.monotonic()`` when the server's answer arrived."""
    task = client.get(f"{url}/api/r/{token}/task").json()["task"]
    return task, time.monotonic()


def take_task(client: Any, url: str, token: str) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The rater's next task and the watch log after watching it honestly (None, None when nothing is left)."""
    task, handed_out = hand_out(client, url, token)
    if task is None:
        return None, None
    return task, watch_task(client, url, task, handed_out)


def submit(client: Any, url: str, token: str, winner: str = "A", **extra: Any) -> Any:
    """Take the rater's task, watch it as the page would, and submit a valid verdict; the response."""
    task, watch = take_task(client, url, token)
    assert task is not None
    body = {"assignment_id": task["assignment_id"],
            "submission_id": extra.pop("submission_id", f"sub-{token[:8]}-{task['assignment_id'][:8]}"),
            "form": extra.pop("form", valid_form(winner)), "watch": extra.pop("watch", watch)}
    return client.post(f"{url}/api/r/{token}/submit", json=body)


def rate_until_done(url: str, name: str, token: str, winner: str = "tie") -> list[str]:
    """One rater takes, watches and submits tasks until none is left; the record ids the server acknowledged."""
    import httpx

    stored: list[str] = []
    with httpx.Client(timeout=60) as client:
        while True:
            task, watch = take_task(client, url, token)
            if task is None:
                return stored
            body = {"assignment_id": task["assignment_id"], "submission_id": f"{name}-{task['assignment_id']}",
                    "form": valid_form(winner), "watch": watch}
            response = client.post(f"{url}/api/r/{token}/submit", json=body)
            assert response.status_code == 200, response.text
            stored.append(response.json()["record_id"])


def raw_post(port: int, path: str, total: int, chunked: bool = False) -> tuple[str, int]:
    """POST ``total`` zero bytes over a raw socket (Content-Length declared, or chunked), stopping when the server answers.

    Returns the status line ('' if the connection was closed or reset first) and the body bytes sent by then.
    """
    import select
    import socket

    sock = socket.create_connection(("127.0.0.1", port), timeout=120)
    framing = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {total}"
    sock.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{framing}\r\n\r\n".encode())
    piece = b"\0" * 65536
    frame = (b"%x\r\n" % len(piece) + piece + b"\r\n") if chunked else piece
    sent, pending, answer = 0, b"", b""
    try:
        while not answer:
            if not pending and sent < total:
                pending, sent = frame, sent + len(piece)
            elif not pending and chunked and sent >= total:
                pending, chunked = b"0\r\n\r\n", False
            readable, writable, _ = select.select([sock], [sock] if pending else [], [], 120)
            if readable:
                answer = sock.recv(4096) or b"closed"
            elif writable:
                pending = pending[sock.send(pending):]
        while b"\r\n" not in answer and answer != b"closed":
            more = sock.recv(4096)
            if not more:
                break
            answer += more
    except (BrokenPipeError, ConnectionResetError):
        pass
    finally:
        sock.close()
    return ("" if answer == b"closed" else answer.split(b"\r\n", 1)[0].decode(errors="replace")), sent


def first_answer(sock: Any, within: float) -> bytes:
    """What the server sends before it closes or ``within`` seconds pass (b'' when it closed without a word)."""
    sock.settimeout(within)
    got = b""
    try:
        while True:
            piece = sock.recv(65536)
            if not piece:
                return got or b""
            got += piece
            if b"\r\n\r\n" in got:
                return got
    except ConnectionResetError:
        return got
    except TimeoutError:
        return got or b"(still open)"


def closed_within(sock: Any, seconds: float) -> float | None:
    """Seconds until the server closed ``sock`` (reading and discarding), or None if it is still open after ``seconds``."""
    start = time.monotonic()
    sock.settimeout(0.2)
    while time.monotonic() - start < seconds:
        try:
            if not sock.recv(65536):
                return time.monotonic() - start
        except TimeoutError:
            continue
        except ConnectionResetError:
            return time.monotonic() - start
    return None


def peer_closed(sock: Any, seconds: float) -> bool:
    """True once the server has closed (or reset) ``sock``, read from the kernel's TCP state without reading any data; False if
    it is still open after ``seconds`` (Linux ``TCP_INFO``)."""
    import socket

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        state = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]
        if state != 1:  # no longer TCP_ESTABLISHED: a FIN (CLOSE_WAIT) or a reset (CLOSE) came
            return True
        time.sleep(0.1)
    return False


def never_reading(port: int, payload: bytes, source: str = "127.0.0.1", receive_buffer: int = 4096) -> Any:
    """A connection with a small receive buffer that sends ``payload`` (say, pipelined requests) and then never reads."""
    import socket

    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    sock.sendall(payload)
    return sock


def serve_process(data: Path, port: int, log: Path, *flags: str, open_files: int | None = None) -> Any:
    """``reeljudge ab serve`` as its own process (output to ``log``; optionally an open-files limit), once it answers /healthz."""
    import resource
    import subprocess
    import sys

    import httpx

    def limit() -> None:
        if open_files:
            resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))

    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "reeljudge.cli", "ab", "serve", "--data", str(data), "--port", str(port),
                                 "--gold-every", "0", *flags], cwd=ROOT, stdout=out,
                                stderr=subprocess.STDOUT, preexec_fn=limit)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise AssertionError(f"server did not start: {log.read_text()[-2000:]}")
