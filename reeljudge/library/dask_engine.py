"""The Dask distributed engine: library jobs on a cluster of worker processes.

Used by ``--engine dask`` (a local cluster of worker processes) and ``--scheduler ADDRESS`` (an
existing cluster, whose workers must have reeljudge installed and see the same clip paths).
The run's shared context reaches every worker through a worker plugin, so a worker that joins or
is restarted (by its nanny, after being killed mid-job) gets it too. A job whose worker dies is
rescheduled by Dask itself; after the scheduler's ``allowed-failures`` it fails as ``KilledWorker``.
Imported only when the Dask engine is used.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Iterator, Sequence

import dask
from distributed import Client, LocalCluster, as_completed
from distributed.diagnostics.plugin import WorkerPlugin
from distributed.scheduler import KilledWorker

from reeljudge.library.engines import Outcome, WorkerDied, WorkerFn, single_threaded

_WORKER_ENVIRON = {"OMP_NUM_THREADS": 1, "MKL_NUM_THREADS": 1, "OPENBLAS_NUM_THREADS": 1}  # Dask's, less the malloc trim
_CONTEXTS: dict[str, list[Any]] = {}  # run token -> [context, init, warmed] inside a Dask worker


@dataclass(frozen=True)
class DaskEngine:
    """A Dask distributed cluster: an existing scheduler's address, or a local cluster of worker processes."""

    scheduler: str | None = None
    workers: int | None = None  # local cluster only
    max_attempts: int = 3  # local cluster only: an existing cluster keeps its own allowed-failures
    group: int | None = None  # jobs per task; None: ``group_size`` of the run
    start_method: str = "spawn"  # how a local cluster's nannies start worker processes (Dask's default)

    def describe(self) -> str:
        """A short label for summaries."""
        if self.scheduler:
            return f"dask cluster at {self.scheduler}"
        n = max(1, self.workers or os.cpu_count() or 1)
        return f"dask local cluster, {n} worker process{'es' if n != 1 else ''}"

    def run(self, fn: WorkerFn, payloads: Sequence[Any], context: Any,
            init: Callable[[], None] | None = None) -> Iterator[Outcome]:
        """Run ``fn(payload, context)`` for every payload on the cluster; yield outcomes as they finish."""
        settings = {
            # a dead worker's tasks are rescheduled until they have killed this many workers
            "distributed.scheduler.allowed-failures": max(0, self.max_attempts - 1),
            # the worker's statistical profiler samples every 10 ms and competes with the probes for the GIL
            "distributed.worker.profile.enabled": False,
            # Dask's default MALLOC_TRIM_THRESHOLD_=65536 hands every freed block over 64 kB back to
            # the kernel: the probes' per-frame arrays then fault in fresh pages each frame
            "distributed.nanny.pre-spawn-environ": _WORKER_ENVIRON,
            # "forkserver" imports ``distributed`` once and forks each worker from that clean process;
            # measured against "spawn" on the library benchmark it was not reliably cheaper (its
            # server also preloads pandas and the other optional packages), so spawn stays the default
            "distributed.worker.multiprocessing-method": self.start_method,
        }
        with dask.config.set(settings):
            cluster = None
            if not self.scheduler:
                n = max(1, self.workers or os.cpu_count() or 1)
                cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None)
            try:
                with Client(self.scheduler or cluster) as client:
                    yield from _jobs(client, fn, payloads, context, init, self.group)
            finally:
                if cluster is not None:
                    cluster.close()


class RunContext(WorkerPlugin):
    """Hands a run's context to every worker of the cluster, including ones that start later."""

    idempotent = True

    def __init__(self, token: str, context: Any, init: Callable[[], None] | None) -> None:
        self.token, self.context, self.init = token, context, init

    def setup(self, worker: Any) -> None:
        """Keep the context in this worker process and set its compute threads now, for the worker's life
        (a restarted worker gets them again); the run's warm-up waits for the first job."""
        single_threaded()
        _CONTEXTS[self.token] = [self.context, self.init, False]

    def teardown(self, worker: Any) -> None:
        """Forget the context when the run ends."""
        _CONTEXTS.pop(self.token, None)


def call(fn: WorkerFn, payload: Any, token: str) -> dict[str, Any]:
    """One job inside a Dask worker: warm the worker up once per run, then call ``fn`` with the run's context."""
    entry = _CONTEXTS[token]
    if not entry[2]:
        if entry[1] is not None:
            entry[1]()
        entry[2] = True
    return fn(payload, entry[0])


def call_group(fn: WorkerFn, payloads: list[Any], token: str) -> list[Any]:
    """Several jobs in one Dask task, in order: each one's record, or the exception it raised."""
    outcomes: list[Any] = []
    for payload in payloads:
        try:
            outcomes.append(call(fn, payload, token))
        except Exception as error:  # reported for this job only, as a single task's error would be
            outcomes.append(error)
    return outcomes


def group_size(jobs: int, workers: int) -> int:
    """How many jobs one task carries: about 12 tasks per worker (so the last ones balance), at most 16."""
    return max(1, min(16, jobs // (12 * max(1, workers))))


def _jobs(client: Client, fn: WorkerFn, payloads: Sequence[Any], context: Any, init: Any, group: int | None) -> Iterator[Outcome]:
    """Submit payloads in groups with a bounded window and yield each job's outcome as its group completes.

    A group whose worker died as often as the cluster allows is split: its jobs run again one per
    task, so only the job that kills workers ends as :class:`WorkerDied`.
    """
    token = f"reeljudge-{uuid.uuid4().hex[:12]}"
    client.register_plugin(RunContext(token, context, init), name=token)
    try:
        workers = len(client.scheduler_info().get("workers", {}))
        size = group or group_size(len(payloads), workers)
        pending = [list(range(start, min(start + size, len(payloads)))) for start in range(0, len(payloads), size)][::-1]
        futures: dict[Hashable, list[int]] = {}  # a task's key (a string we give) -> its jobs
        stream = as_completed()

        def submit() -> None:
            if pending:
                group = pending.pop()
                future = client.submit(call_group, fn, [payloads[i] for i in group], token,
                                       key=f"{token}-{group[0]}-{len(group)}", pure=False)
                futures[future.key] = group
                stream.add(future)

        for _ in range(max(8, 4 * workers)):
            submit()
        for future in stream:
            jobs = futures.pop(future.key)
            outcomes = _group_outcomes(future, jobs, pending)
            future.release()
            submit()
            yield from outcomes
    finally:
        client.unregister_worker_plugin(token)


def _group_outcomes(future: Any, group: list[int], pending: list[list[int]]) -> list[Outcome]:
    """The finished group's (index, outcome) pairs; a killed group of several jobs goes back as single jobs."""
    try:
        return list(zip(group, future.result()))
    except KilledWorker as error:
        if len(group) > 1:
            pending.extend([i] for i in reversed(group))
            return []
        return [(group[0],
                 WorkerDied(f"the worker process died while handling this item as many times as the cluster allows ({error})"))]
    except Exception as error:  # the task itself failed (not a job inside it): every job of the group reports it
        return [(i, error) for i in group]
