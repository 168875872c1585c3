"""Where library jobs run: a local process pool (pebble) or a Dask distributed cluster.

Both engines take the same three things — a module-level worker function ``fn(payload, context)``
returning a JSON-able record, the payloads, and one shared ``context`` (options, keys already done)
sent to each worker once — and yield ``(index, record or exception)`` as jobs finish, keeping at
most ``window`` jobs in flight so a library of any size streams.

A worker process that dies mid-job (killed, out of memory, a crashing decoder) loses only that
job, which is run again on a fresh worker, up to ``max_attempts`` times in all; after that the job
yields :class:`WorkerDied`. Locally pebble reports the dead worker's job as ``ProcessExpired`` and
replaces the process; on Dask the scheduler reschedules the dead worker's tasks itself (its
``allowed-failures``, set from ``max_attempts``) and finally raises ``KilledWorker``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

WorkerFn = Callable[[Any, Any], dict[str, Any]]
Outcome = tuple[int, "dict[str, Any] | BaseException"]

_CONTEXT: Any = None  # the run's shared context inside a local worker process


class WorkerDied(Exception):
    """A job's worker process died every time the job was tried."""


@dataclass(frozen=True)
class SerialEngine:
    """Every job in this process, one after another (for debugging, and to compare with the pools)."""

    def describe(self) -> str:
        """A short label for summaries."""
        return "this process, serially"

    def run(self, fn: WorkerFn, payloads: Sequence[Any], context: Any, init: Callable[[], None] | None = None) -> Iterator[Outcome]:
        """Run ``fn(payload, context)`` for every payload here; yield outcomes in order."""
        if init is not None:
            init()
        for index, payload in enumerate(payloads):
            try:
                yield index, fn(payload, context)
            except Exception as error:
                yield index, error


@dataclass(frozen=True)
class LocalEngine:
    """A pool of ``workers`` local processes (default: one per core)."""

    workers: int | None = None
    max_attempts: int = 3

    @property
    def size(self) -> int:
        """How many processes the pool runs."""
        return max(1, self.workers or os.cpu_count() or 1)

    def describe(self) -> str:
        """A short label for summaries, e.g. ``local pool, 2 processes``."""
        return f"local pool, {self.size} process{'es' if self.size != 1 else ''}"

    def run(self, fn: WorkerFn, payloads: Sequence[Any], context: Any, init: Callable[[], None] | None = None) -> Iterator[Outcome]:
        """Run ``fn(payload, context)`` for every payload in the pool; yield outcomes as they finish."""
        import multiprocessing
        from concurrent.futures import FIRST_COMPLETED, wait

        from pebble import ProcessExpired, ProcessPool

        window = self.size * 4
        attempts = [0] * len(payloads)
        pending = list(range(len(payloads)))[::-1]
        # spawn, not fork: a forked child of a process that already ran OpenCV or onnxruntime threads
        # can inherit a held lock and hang on its first call
        spawn = multiprocessing.get_context("spawn")
        with ProcessPool(max_workers=self.size, initializer=_init_local, initargs=(context, init), context=spawn) as pool:
            running: dict[Any, int] = {}
            while pending or running:
                while pending and len(running) < window:
                    index = pending.pop()
                    attempts[index] += 1
                    running[pool.schedule(_call_local, args=(fn, payloads[index]))] = index
                done, _ = wait(list(running), return_when=FIRST_COMPLETED)
                for future in done:
                    index = running.pop(future)
                    try:
                        yield index, future.result()
                    except ProcessExpired as error:
                        if attempts[index] < self.max_attempts:
                            pending.append(index)
                        else:
                            yield index, WorkerDied(_died(attempts[index], f"exit code {error.exitcode}"))
                    except Exception as error:  # the worker function raised: report it for this job only
                        yield index, error


def _init_local(context: Any, init: Callable[[], None] | None) -> None:
    """Pool initializer: keep the run's context in this worker process and warm it up."""
    global _CONTEXT
    _CONTEXT = context
    _single_threaded()
    if init is not None:
        init()


def _call_local(fn: WorkerFn, payload: Any) -> dict[str, Any]:
    """One job inside a local worker process."""
    return fn(payload, _CONTEXT)


def _single_threaded() -> None:
    """One compute thread per worker process: the pool, not the libraries, spreads work over the cores."""
    try:
        import cv2

        cv2.setNumThreads(1)
    except ImportError:  # pragma: no cover - OpenCV is a dependency
        pass


def _died(attempts: int, detail: str) -> str:
    """The reason given for a job whose worker kept dying."""
    return f"the worker process died while handling this item, {attempts} time(s) ({detail}); not retried further"


@dataclass(frozen=True)
class DaskEngine:
    """A Dask distributed cluster: an existing scheduler's address, or a local cluster of worker processes."""

    scheduler: str | None = None
    workers: int | None = None  # local cluster only
    max_attempts: int = 3

    def describe(self) -> str:
        """A short label for summaries."""
        if self.scheduler:
            return f"dask cluster at {self.scheduler}"
        n = max(1, self.workers or os.cpu_count() or 1)
        return f"dask local cluster, {n} worker process{'es' if n != 1 else ''}"

    def run(self, fn: WorkerFn, payloads: Sequence[Any], context: Any, init: Callable[[], None] | None = None) -> Iterator[Outcome]:
        """Run ``fn(payload, context)`` for every payload on the cluster; yield outcomes as they finish."""
        import dask
        from distributed import Client, LocalCluster, as_completed
        from distributed.scheduler import KilledWorker

        # a dead worker's tasks are rescheduled until they have killed this many workers
        with dask.config.set({"distributed.scheduler.allowed-failures": max(0, self.max_attempts - 1)}):
            cluster = None
            if not self.scheduler:
                n = max(1, self.workers or os.cpu_count() or 1)
                cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None)
            try:
                with Client(self.scheduler or cluster) as client:
                    yield from _dask_jobs(client, fn, payloads, context, init, as_completed, KilledWorker, self.max_attempts)
            finally:
                if cluster is not None:
                    cluster.close()


def _dask_jobs(client: Any, fn: WorkerFn, payloads: Sequence[Any], context: Any, init: Any, as_completed: Any, killed: type, attempts: int) -> Iterator[Outcome]:
    """Submit payloads with a bounded window and yield their outcomes as they complete."""
    import uuid

    if init is not None:
        client.run(init)
    shared = client.scatter(context, broadcast=True, hash=False)
    window = max(4, 4 * len(client.scheduler_info(n_workers=-1).get("workers", {}) or [1]))
    token = uuid.uuid4().hex[:8]
    order = iter(range(len(payloads)))
    futures: dict[str, int] = {}
    stream = as_completed()

    def submit() -> bool:
        index = next(order, None)
        if index is None:
            return False
        future = client.submit(fn, payloads[index], shared, key=f"reeljudge-{token}-{index}", pure=False)
        futures[future.key] = index
        stream.add(future)
        return True

    for _ in range(window):
        if not submit():
            break
    for future in stream:
        index = futures.pop(future.key)
        try:
            yield index, future.result()
        except killed as error:
            yield index, WorkerDied(_died(attempts, f"dask: {error}"))
        except Exception as error:
            yield index, error
        future.release()
        submit()
