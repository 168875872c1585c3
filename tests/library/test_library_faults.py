"""Library runs under faults: a worker killed mid-clip, a run killed and resumed.

A clip served by ``/stall/`` holds its download half-way, so the test knows which worker process
is busy with it (by its connection's port) and can kill exactly that process mid-clip.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from support.clip_server import ClipServer, pid_with_port
from reeljudge.library.engines import LocalEngine, SerialEngine
from reeljudge.library.jsonl import read_results
from reeljudge.library.probe_library import probe_library_file
from reeljudge.synth.clips import write_fixtures
from support.paths import ROOT

CLIPS = ("clean", "frozen", "black")
VOLATILE = ("timings", "worker_pid")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three generated clips in a folder."""
    root = tmp_path_factory.mktemp("served")
    write_fixtures(root, CLIPS)
    return root


def manifest_for(server: ClipServer, folder: Path, target: Path) -> Path:
    """A manifest of the three clips, ``black.mp4`` through the stalling endpoint."""
    lines = [str(folder / "clean.mp4"), str(folder / "frozen.mp4"), f"{server.url}/stall/black.mp4"]
    target.write_text("\n".join(lines) + "\n")
    return target


def wait_for(condition, timeout: float = 60.0) -> None:  # type: ignore[no-untyped-def]
    """Poll ``condition`` until it holds; fail the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail("timed out waiting for the run to reach the expected state")
        time.sleep(0.05)


def stable(records: list[dict]) -> dict[str, dict]:
    """Records by clip content, without timings and worker pids."""
    return {r["sha256"]: {k: v for k, v in r.items() if k not in (*VOLATILE, "ref", "key")} for r in records}


@pytest.fixture(scope="module")
def clean_run(served: Path, tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    """The records of an undisturbed serial run over the same clips."""
    out = tmp_path_factory.mktemp("reference") / "reference.jsonl"
    probe_library_file(served, out, engine=SerialEngine())
    return read_results(out)


def test_a_worker_killed_mid_clip_has_that_clip_redone_once(served: Path, clean_run: list[dict], tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    with ClipServer(served) as server:
        manifest = manifest_for(server, served, tmp_path / "clips.txt")
        result: dict = {}
        runner = threading.Thread(
            target=lambda: result.update(run=probe_library_file(manifest, out, engine=LocalEngine(workers=1),
                                                                cache_dir=str(tmp_path / "dl")))
        )
        runner.start()
        wait_for(lambda: bool(server.stalled_ports))
        victim = None
        def find() -> bool:
            nonlocal victim
            victim = pid_with_port(psutil.Process().children(recursive=True), server.stalled_ports[0])
            return victim is not None
        wait_for(find)
        os.kill(victim, signal.SIGKILL)  # the worker dies mid-download of black.mp4
        server.release()
        runner.join(120)
        assert not runner.is_alive()
    summary, stats = result["run"]
    records = read_results(out)
    assert len(records) == 3 and len({r["ref"] for r in records}) == 3
    assert all(r["status"] == "ok" for r in records)
    assert next(r for r in records if r["ref"].endswith("/stall/black.mp4"))["worker_pid"] != victim
    assert server.requests.count("/stall/black.mp4") == 2  # downloaded again by a fresh worker
    assert stable(records) == stable(clean_run)
    assert summary.ok and summary.fault_counts["black_frames"] == 1


def test_a_run_killed_midway_resumes_without_duplicates_or_losses(served: Path, clean_run: list[dict], tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with ClipServer(served) as server:
        manifest = manifest_for(server, served, tmp_path / "clips.txt")
        command = [sys.executable, "-m", "reeljudge.cli", "probes", str(manifest), "-o", str(out), "-j", "1", "--no-progress",
                   "--cache-dir", str(tmp_path / "dl")]
        run = subprocess.Popen(command, env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            wait_for(lambda: len(read_results(out)) == 2 if out.exists() else False)
            wait_for(lambda: bool(server.stalled_ports))
        finally:
            os.killpg(run.pid, signal.SIGKILL)  # the whole run, driver and workers, dies
            run.wait(30)
        assert {r["ref"].rsplit("/", 1)[-1] for r in read_results(out)} == {"clean.mp4", "frozen.mp4"}
        with open(out, "ab") as handle:  # as if it had died in the middle of writing a line
            handle.write(b'{"kind": "probes", "ref": "half')
        server.release()
        resumed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert "cut off a torn last line" in resumed.stderr
    assert "this run: 1 probed, 2 already done" in resumed.stdout
    records = read_results(out)
    assert len(records) == 3 and len({r["ref"] for r in records}) == 3 and len({r["key"] for r in records}) == 3
    assert out.read_bytes().endswith(b"\n") and out.read_bytes().count(b"\n") == 3
    assert stable(records) == stable(clean_run)
