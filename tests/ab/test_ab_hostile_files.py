"""The rating server at its open-files limit (issue 50), as ``reeljudge ab serve`` in its own process under an
``RLIMIT_NOFILE`` of 256, over real sockets on 127.0.0.1.

Silent connections (no token, no request line) from one address, more of them than the process may open files,
sent again and again: the server never runs out of descriptors (it accepts only what it has room for and keeps a
reserve), reaps them at the header deadline, and answers an invited rater within that deadline plus a second every
time. Every loop is bounded in count and time.
"""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from support.ab_study import free_port, invite, make_study, serve_process
from support.silent_flood import open_descriptors, silent_connections

OPEN_FILES = 256
FLOOD = 300  # silent connections per round: more than the process may open files
HEADER_S = 2.0


def _settles(pid: int, at_most: int, seconds: float) -> int:
    """The process's descriptors once they are ``at_most`` or fewer, or after ``seconds`` (polled)."""
    deadline = time.monotonic() + seconds
    count = open_descriptors(pid)
    while count > at_most and time.monotonic() < deadline:
        time.sleep(0.1)
        count = open_descriptors(pid)
    return count


@pytest.mark.parametrize("flags", [(), ("--max-connections", "1000")], ids=["default cap", "a cap the limit cannot keep"])
def test_silent_connections_past_the_open_files_limit_never_lock_a_rater_out(tmp_path: Path, flags: tuple[str, ...]) -> None:
    """Under ``ulimit -n 256``, a flood of 300 silent connections held every descriptor (256 of 256 for good in some runs: the
    deadline sweep and the evictions died on an import that needed a file, or never started while the cap was past the
    limit), and a rater's ``/task`` got no answer. Four rounds in a row, the second server of the test's study: the rater is
    answered within the header deadline plus a second, and the descriptors are back under the cap within the deadline."""
    ws = make_study(tmp_path, n_pairs=2)
    token = invite(ws, "ann")
    first = serve_process(ws.root, free_port(), tmp_path / "first.log", open_files=OPEN_FILES)  # another study's server ran
    first.terminate()
    first.wait(10)
    port = free_port()
    log = tmp_path / "server.log"
    proc = serve_process(ws.root, port, log, "--header-timeout", str(HEADER_S), *flags, open_files=OPEN_FILES)
    answers, settled, cap = [], [], 0
    try:
        base = open_descriptors(proc.pid)
        cap = (OPEN_FILES - 128) // 2  # the default cap (limits.ConnectionLimits.connection_cap)
        for round_ in range(4):
            flood = silent_connections(port, f"127.0.0.{80 + round_}", FLOOD)
            try:
                time.sleep(0.5)
                start = time.monotonic()
                try:
                    status: int | str = httpx.get(f"http://127.0.0.1:{port}/api/r/{token}/task", timeout=HEADER_S + 1).status_code
                except httpx.HTTPError as error:
                    status = type(error).__name__
                answers.append((status, round(time.monotonic() - start, 2)))
                settled.append(_settles(proc.pid, base + cap, HEADER_S + 1.5))
            finally:
                for sock in flood:
                    sock.close()
            _settles(proc.pid, base, HEADER_S + 1.5)
    finally:
        proc.terminate()
        proc.wait(10)
    text = log.read_text()
    assert [status for status, _ in answers] == [200] * 4, (answers, settled, text[-1500:])
    assert all(count <= base + cap for count in settled), (settled, base, cap)
    assert "Too many open files" not in text and "Traceback" not in text, text[-1500:]
    said = "--max-connections 1000 cannot be kept under it: lowered to 64" if flags else "connections; --max-connections 64"
    assert "open files: limit 256 (RLIMIT_NOFILE)" in text and said in text, text[:1000]


def test_the_sweep_and_the_evictions_need_no_file_at_the_limit() -> None:
    """The root of issue 50: the kernel-queue readers the deadline sweep and the evictions call imported ``termios`` on their
    first call; a process at its open-files limit cannot open the module's file, so the first sweep or eviction that met the
    limit raised ImportError: the sweep was never scheduled again and the connections being admitted were never registered.
    Here a process with every descriptor taken still reads its sockets' queues."""
    import subprocess
    import sys

    from support.paths import ROOT

    code = (
        "import os, resource, socket\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))\n"
        "from reeljudge.ab.transport import limits\n"
        "a, b = socket.socketpair()\n"
        "held = []\n"
        "try:\n"
        "    while True:\n"
        "        held.append(os.open(os.devnull, os.O_RDONLY))\n"
        "except OSError:\n"
        "    pass\n"
        "print(limits.kernel_inbound(a), limits.kernel_queue(a), limits.kernel_unsent(a))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.split() == ["0", "0", "0"], done.stderr[-1500:]
