"""Where library jobs run: in this process, or a local process pool (pebble); Dask is in ``dask_engine``.

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

    def run(self, fn: WorkerFn, payloads: Sequence[Any], context: Any,
            init: Callable[[], None] | None = None) -> Iterator[Outcome]:
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

    def run(self, fn: WorkerFn, payloads: Sequence[Any], context: Any,
            init: Callable[[], None] | None = None) -> Iterator[Outcome]:
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
        # no more processes than jobs: each one costs an interpreter start and the probes' imports
        processes = max(1, min(self.size, len(payloads)))
        pool = ProcessPool(max_workers=processes, initializer=_init_local, initargs=(context, init), context=spawn)
        try:
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
                        outcome: dict[str, Any] | BaseException = future.result()
                    except ProcessExpired as error:
                        if attempts[index] < self.max_attempts:
                            pending.append(index)
                            continue
                        outcome = WorkerDied(_died(attempts[index], f"exit code {error.exitcode}"))
                    except Exception as error:  # the worker function raised: report it for this job only
                        outcome = error
                    yield index, outcome
        except BaseException:  # interrupted (Ctrl-C, the consumer stopped): end the workers now
            pool.stop()
            pool.join()
            raise
        pool.close()
        pool.join()


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
    from reeljudge.media.container import set_decoder_threads

    set_decoder_threads(1)
    try:
        import cv2

        cv2.setNumThreads(1)
    except ImportError:  # pragma: no cover - OpenCV is a dependency
        pass


def _died(attempts: int, detail: str) -> str:
    """The reason given for a job whose worker kept dying."""
    return f"the worker process died while handling this item, {attempts} time(s) ({detail}); not retried further"


def single_threaded() -> None:
    """One compute thread per worker process: the pool, not the libraries, spreads work over the cores."""
    _single_threaded()
