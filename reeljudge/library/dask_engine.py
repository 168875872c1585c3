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
from typing import Any, Callable, Iterator, Sequence

import dask
from distributed import Client, LocalCluster, as_completed
from distributed.diagnostics.plugin import WorkerPlugin
from distributed.scheduler import KilledWorker

from reeljudge.library.engines import Outcome, WorkerDied, WorkerFn, single_threaded

_CONTEXTS: dict[str, list[Any]] = {}  # run token -> [context, init, warmed] inside a Dask worker


@dataclass(frozen=True)
class DaskEngine:
    """A Dask distributed cluster: an existing scheduler's address, or a local cluster of worker processes."""

    scheduler: str | None = None
    workers: int | None = None  # local cluster only
    max_attempts: int = 3  # local cluster only: an existing cluster keeps its own allowed-failures

    def describe(self) -> str:
        """A short label for summaries."""
        if self.scheduler:
            return f"dask cluster at {self.scheduler}"
        n = max(1, self.workers or os.cpu_count() or 1)
        return f"dask local cluster, {n} worker process{'es' if n != 1 else ''}"

    def run(self, fn: WorkerFn, payloads: Sequence[Any], context: Any, init: Callable[[], None] | None = None) -> Iterator[Outcome]:
        """Run ``fn(payload, context)`` for every payload on the cluster; yield outcomes as they finish."""
        settings = {
            # a dead worker's tasks are rescheduled until they have killed this many workers
            "distributed.scheduler.allowed-failures": max(0, self.max_attempts - 1),
            # the worker's statistical profiler samples every 10 ms and competes with the probes for the GIL
            "distributed.worker.profile.enabled": False,
        }
        with dask.config.set(settings):
            cluster = None
            if not self.scheduler:
                n = max(1, self.workers or os.cpu_count() or 1)
                cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None)
            try:
                with Client(self.scheduler or cluster) as client:
                    yield from _jobs(client, fn, payloads, context, init)
            finally:
                if cluster is not None:
                    cluster.close()


class RunContext(WorkerPlugin):
    """Hands a run's context to every worker of the cluster, including ones that start later."""

    idempotent = True

    def __init__(self, token: str, context: Any, init: Callable[[], None] | None) -> None:
        self.token, self.context, self.init = token, context, init

    def setup(self, worker: Any) -> None:
        """Keep the context in this worker process (warm-up waits for the first job)."""
        _CONTEXTS[self.token] = [self.context, self.init, False]

    def teardown(self, worker: Any) -> None:
        """Forget the context when the run ends."""
        _CONTEXTS.pop(self.token, None)


def call(fn: WorkerFn, payload: Any, token: str) -> dict[str, Any]:
    """One job inside a Dask worker: warm the worker up once per run, then call ``fn`` with the run's context."""
    entry = _CONTEXTS[token]
    if not entry[2]:
        single_threaded()
        if entry[1] is not None:
            entry[1]()
        entry[2] = True
    return fn(payload, entry[0])


def _jobs(client: Client, fn: WorkerFn, payloads: Sequence[Any], context: Any, init: Any) -> Iterator[Outcome]:
    """Submit payloads with a bounded window and yield their outcomes as they complete."""
    token = f"reeljudge-{uuid.uuid4().hex[:12]}"
    client.register_plugin(RunContext(token, context, init), name=token)
    try:
        window = max(8, 4 * len(client.scheduler_info().get("workers", {})))
        order = iter(range(len(payloads)))
        futures: dict[str, int] = {}
        stream = as_completed()

        def submit() -> None:
            index = next(order, None)
            if index is not None:
                future = client.submit(call, fn, payloads[index], token, key=f"{token}-{index}", pure=False)
                futures[future.key] = index
                stream.add(future)

        for _ in range(window):
            submit()
        for future in stream:
            index = futures.pop(future.key)
            try:
                outcome: dict[str, Any] | BaseException = future.result()
            except KilledWorker as error:
                outcome = WorkerDied(f"the worker process died while handling this item as many times as the cluster allows ({error})")
            except Exception as error:  # the worker function raised: report it for this job only
                outcome = error
            future.release()
            submit()
            yield index, outcome
    finally:
        client.unregister_worker_plugin(token)
