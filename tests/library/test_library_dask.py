"""``reeljudge probes`` on a real Dask cluster: a ``dask scheduler`` and two ``dask worker`` processes.

The cluster is started by the test as separate processes (each worker under its nanny, as on a
real cluster); the command connects to it with ``--scheduler``. Results must equal the local run's,
and a worker killed mid-clip must cost nothing but a retry.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Iterator

import psutil
import pytest

from support.clip_server import ClipServer, pid_with_port
from reeljudge.cli import main as cli_main
from reeljudge.library.jsonl import read_results
from reeljudge.synth.clips import write_fixtures

pytestmark = pytest.mark.slow  # starts a local Dask cluster for the module

CLIPS = ("clean", "frozen", "black", "cut")
VOLATILE = ("timings", "worker_pid")


class Cluster:
    """A scheduler and worker processes started with Dask's own command line."""

    def __init__(self, root: Path, workers: int = 2) -> None:
        self.file = root / "scheduler.json"
        common = {"cwd": root, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "start_new_session": True}
        dask = [sys.executable, "-m", "dask"]
        self.scheduler = subprocess.Popen(
            [*dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", str(self.file)], **common
        )
        self.workers = [
            subprocess.Popen(
                [*dask, "worker", "--scheduler-file", str(self.file), "--nworkers", "1", "--nthreads", "1", "--no-dashboard",
                 "--host", "127.0.0.1", "--local-directory", str(root / f"w{i}")], **common,
            )
            for i in range(workers)
        ]
        self.address = self._wait(workers)

    def _wait(self, workers: int) -> str:
        """The scheduler's address once it is up and every worker has joined."""
        from distributed import Client

        deadline = time.monotonic() + 90
        while not self.file.exists():
            if time.monotonic() > deadline or self.scheduler.poll() is not None:
                raise RuntimeError("the dask scheduler did not start")
            time.sleep(0.1)
        with Client(scheduler_file=str(self.file), timeout=60) as client:
            client.wait_for_workers(workers, timeout=90)
            return client.scheduler.address

    def worker_processes(self) -> list[psutil.Process]:
        """Every process of the workers (nannies and the worker processes they run)."""
        found = []
        for popen in self.workers:
            try:
                nanny = psutil.Process(popen.pid)
                found += [nanny, *nanny.children(recursive=True)]
            except psutil.NoSuchProcess:
                continue
        return found

    def stop(self) -> None:
        """End every process of the cluster."""
        for popen in [*self.workers, self.scheduler]:
            try:
                os.killpg(popen.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for popen in [*self.workers, self.scheduler]:
            try:
                popen.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(popen.pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """A running two-worker Dask cluster for this module's tests."""
    running = Cluster(tmp_path_factory.mktemp("dask"))
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four generated clips, three with a known fault."""
    root = tmp_path_factory.mktemp("library")
    write_fixtures(root, CLIPS)
    return root


def stable(records: list[dict]) -> dict[str, dict]:
    """Records by clip content, without timings and worker pids."""
    return {r["sha256"]: {k: v for k, v in r.items() if k not in (*VOLATILE, "ref", "key")} for r in records}


def test_the_cluster_gives_the_same_results_as_the_local_pool(cluster: Cluster, library: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["probes", str(library), "-o", str(tmp_path / "local.jsonl"), "-j", "2", "--no-progress"]) == 0
    local = capsys.readouterr().out
    assert (cli_main(["probes", str(library), "-o", str(tmp_path / "dask.jsonl"), "--scheduler",
                      cluster.address, "--no-progress"]) == 0)
    remote = capsys.readouterr().out
    on_cluster = read_results(tmp_path / "dask.jsonl")
    assert len(on_cluster) == 4
    assert {r["ref"]: r for r in map(dict, on_cluster)}.keys() == {f"{n}.mp4" for n in CLIPS}
    assert stable(on_cluster) == stable(read_results(tmp_path / "local.jsonl"))
    cluster_pids = {p.pid for p in cluster.worker_processes()}
    assert {r["worker_pid"] for r in on_cluster} <= cluster_pids  # really probed by the cluster's workers
    assert f"dask cluster at {cluster.address}" in remote
    table = lambda text: [line for line in text.splitlines() if line.startswith("  ")]  # noqa: E731
    assert table(local) == table(remote)
    # resumed on the cluster: nothing probed twice
    assert (cli_main(["probes", str(library), "-o", str(tmp_path / "dask.jsonl"), "--scheduler",
                      cluster.address, "--no-progress"]) == 0)
    assert "this run: 0 probed, 4 already done" in capsys.readouterr().out


def test_a_cluster_worker_killed_mid_clip_has_that_clip_redone_once(cluster: Cluster, library: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    with ClipServer(library) as server:
        manifest = tmp_path / "clips.txt"
        manifest.write_text(f"{library / 'clean.mp4'}\n{library / 'frozen.mp4'}\n{server.url}/stall/black.mp4\n")
        codes: list[int] = []
        args = ["probes", str(manifest), "-o", str(out), "--scheduler", cluster.address, "--no-progress",
                "--cache-dir", str(tmp_path / "dl")]
        runner = threading.Thread(target=lambda: codes.append(cli_main(args)))
        runner.start()
        deadline = time.monotonic() + 60
        victim = None
        while victim is None and time.monotonic() < deadline:
            if server.stalled_ports:
                victim = pid_with_port(cluster.worker_processes(), server.stalled_ports[0])
            time.sleep(0.05)
        assert victim is not None, "no cluster worker was caught downloading the stalled clip"
        os.kill(victim, signal.SIGKILL)  # the worker process dies mid-clip; its nanny starts a new one
        server.release()
        runner.join(180)
        assert not runner.is_alive()
    assert codes == [0]
    records = read_results(out)
    assert len(records) == 3 and len({r["ref"] for r in records}) == 3 and all(r["status"] == "ok" for r in records)
    black = next(r for r in records if r["ref"].endswith("/stall/black.mp4"))
    assert black["worker_pid"] != victim and "black_frames" in black["faults"]
    assert server.requests.count("/stall/black.mp4") >= 2


def test_filmability_bulk_on_the_cluster_equals_the_local_run(cluster: Cluster, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    rows = tmp_path / "n.jsonl"
    rows.write_text(
        '{"id": "a", "narration": "Redis stores everything in memory, making it blazingly fast", '
        '"terms": ["server room", "computer RAM", "data center lights", "fast motion blur"]}\n'
        '{"id": "b", "narration": "Redis stores everything in memory", "terms": ["performance", "efficiency", "caching"]}\n'
        '{"id": "c", "narration": "Add fresh basil just before serving the pasta"}\n'
    )
    common = ["filmability", "bulk", str(rows), "--generator", "keywords", "--cache", "off", "--no-progress"]
    assert cli_main([*common, "-o", str(tmp_path / "local.jsonl"), "-j", "1"]) == 0
    assert cli_main([*common, "-o", str(tmp_path / "dask.jsonl"), "--scheduler", cluster.address]) == 0
    drop = ("timings", "worker_pid", "model_instance")
    local, remote = ([{k: v for k, v in r.items() if k not in drop} for r in read_results(tmp_path / f)]
                     for f in ("local.jsonl", "dask.jsonl"))
    assert sorted(local, key=lambda r: r["id"]) == sorted(remote, key=lambda r: r["id"]) and len(local) == 3
    assert {r["worker_pid"] for r in read_results(tmp_path / "dask.jsonl")} <= {p.pid for p in cluster.worker_processes()}
    assert "dask cluster at" in capsys.readouterr().out
