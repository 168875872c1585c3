"""Benchmark: ``reeljudge probes`` over a generated library, on 1, 2 and all cores and on a local Dask cluster.

    python -m benchmarks.library_probes [--clips 200] [--frames 72] [--keep DIR]

Generates ``--clips`` small clips (256×144, 24 fps, ``--frames`` frames; a fifth clean, the rest
with one of the fixture faults at a seed-dependent frame), then probes the whole folder into a
fresh JSONL output with the local process pool of 1 and 2 processes and one per core, and with
a Dask local cluster of one worker process per core (``LocalCluster(processes=True)``), each run
from a cold start (pool or cluster start-up included, as a user pays it). Prints clips per second,
the speed-up and efficiency against one process (speed-up ÷ processes), and checks that every run
recorded the same results. On a shared machine the wall-clock figures move with the load: the
load average is printed beside them, and so is the CPU time per clip (this process and its
finished workers), which the load does not inflate and which shows each engine's overhead.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from reeljudge.synth.clips import FaultKind

FAULTS: tuple[FaultKind, ...] = ("cut", "frozen", "black", "flicker", "shake")


def _spec(index: int, frames: int) -> Any:
    """The clip spec of library clip ``index``: seeded world, a fault on four clips out of five."""
    from reeljudge.synth.clips import ClipSpec, Fault

    spec = ClipSpec(frames=frames, seed=1000 + index)
    if index % 5 == 0:
        return spec
    kind = FAULTS[index % len(FAULTS)]
    start = frames // 4 + index % (frames // 4)
    length = {"cut": 1, "frozen": 10, "black": 6, "flicker": 12, "shake": 16}[kind]
    return replace(spec, faults=(Fault(kind, start, min(length, frames - start - 1)),))


def _write(args: tuple[Path, int, int]) -> None:
    """Write one library clip (a process pool job)."""
    from reeljudge.synth.clips import make_clip

    folder, index, frames = args
    make_clip(folder / f"clip_{index:04d}.mp4", _spec(index, frames))


def make_library(folder: Path, clips: int, frames: int) -> None:
    """Generate the library's clips in parallel."""
    folder.mkdir(parents=True, exist_ok=True)
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1, mp_context=get_context("spawn")) as pool:
        list(pool.map(_write, [(folder, i, frames) for i in range(clips)]))


class TreeCPU:
    """CPU seconds of this process and every descendant (workers, nannies, a fork server and its
    children), read from /proc by polling: a process's time counts up to its last sighting, so at most
    one poll interval per process is missed. Resource usage of waited children would miss the
    descendants that are not this process's own children (a fork server's workers)."""

    def __init__(self, interval: float = 0.1) -> None:
        import threading

        import psutil

        self.me, self.interval = psutil.Process(), interval
        self.seen: dict[tuple[int, float], float] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        """Record every descendant's CPU time until stopped."""
        import psutil

        while True:
            for child in self.me.children(recursive=True):
                try:
                    times = child.cpu_times()
                    self.seen[(child.pid, child.create_time())] = times.user + times.system
                except psutil.Error:
                    pass
            if self.stop.wait(self.interval):
                return

    def __enter__(self) -> "TreeCPU":
        own = self.me.cpu_times()
        self.start = own.user + own.system
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()
        own = self.me.cpu_times()
        self.seconds = own.user + own.system - self.start + sum(self.seen.values())


def _run(folder: Path, output: Path, engine: Any) -> tuple[float, float, dict[str, Any]]:
    """Wall and CPU seconds for one cold run of the probes over ``folder``, and its results without timings."""
    from reeljudge.library.jsonl import read_results
    from reeljudge.library.probe_library import probe_library_file

    started = time.perf_counter()
    with TreeCPU() as cpu_time:
        summary, stats = probe_library_file(folder, output, engine=engine)
    seconds, cpu = time.perf_counter() - started, cpu_time.seconds
    if stats.errors or stats.written != stats.items:
        raise SystemExit(f"{engine.describe()}: {stats.errors} errors, {stats.written} of {stats.items} written")
    results = {r["ref"]: {k: v for k, v in r.items() if k not in ("timings", "worker_pid")} for r in read_results(output)}
    return seconds, cpu, results


def main() -> None:
    """Generate the library, probe it on each engine, and print the table."""
    from reeljudge.library.dask_engine import DaskEngine
    from reeljudge.library.engines import LocalEngine

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clips", type=int, default=200)
    parser.add_argument("--frames", type=int, default=72)
    parser.add_argument("--keep", type=Path, help="generate the library here and keep it")
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp) / "library"
        t0 = time.perf_counter()
        make_library(folder, args.clips, args.frames)
        print(f"library: {args.clips} clips of {args.frames} frames at 256×144 generated in {time.perf_counter() - t0:.1f} s; "
              f"{cores} cores; load average before {os.getloadavg()[0]:.1f}")
        runs: list[tuple[str, int, Any]] = [("local pool, 1 process", 1, LocalEngine(workers=1)),
                                            ("local pool, 2 processes", 2, LocalEngine(workers=2))]
        runs.append((f"local pool, all cores ({cores})", cores, LocalEngine(workers=cores)))
        runs.append((f"dask local cluster, {cores} workers (spawned)", cores, DaskEngine(workers=cores)))
        runs.append((f"dask local cluster, {cores} workers (fork server)", cores,
                     DaskEngine(workers=cores, start_method="forkserver")))
        baseline, reference = None, None
        print(f"{'engine':<42} {'seconds':>8} {'clips/s':>8} {'speed-up':>9} {'efficiency':>11} {'cpu s/clip':>11}  load")
        for index, (label, processes, engine) in enumerate(runs):
            seconds, cpu, results = _run(folder, Path(tmp) / f"run{index}.jsonl", engine)
            rate = args.clips / seconds
            baseline = baseline or rate
            reference = reference or results
            same = "" if results == reference else "  RESULTS DIFFER from the first run"
            print(f"{label:<42} {seconds:8.1f} {rate:8.2f} {rate / baseline:8.2f}× {rate / baseline / processes:10.0%} "
                  f"{cpu / args.clips:11.3f}  {os.getloadavg()[0]:.1f}{same}")
        faulty = sum(1 for r in reference.values() if r["faults"]) if reference else 0
        print(f"every run recorded the same results: {faulty} of {args.clips} clips with a fault found")


if __name__ == "__main__":
    main()
