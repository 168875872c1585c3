"""The Dask engine's grouped tasks: every job's own outcome from a real local cluster, and a group whose
worker keeps dying split so that only the job that kills workers fails."""

from __future__ import annotations

import os

import pytest

from reeljudge.library.engines import WorkerDied
from support.jobs import echo_raise_or_die

# Dask is imported by each test, not by the module: every test process collects this module, and importing
# Dask and distributed costs 0.3 s of CPU that a process running none of these tests would pay for nothing.


def test_group_size_keeps_about_twelve_tasks_per_worker_and_at_most_sixteen_jobs() -> None:
    from reeljudge.library.dask_engine import group_size

    assert group_size(4, 2) == 1
    assert group_size(200, 2) == 8
    assert group_size(10_000, 2) == 16
    assert group_size(50, 0) == 4


@pytest.mark.slow  # starts a local Dask cluster
def test_grouped_jobs_on_a_local_cluster_each_report_their_own_outcome() -> None:
    from reeljudge.library.dask_engine import DaskEngine

    outcomes = dict(DaskEngine(workers=1, group=3).run(echo_raise_or_die, list(range(7)), {"raise": 4}))
    assert sorted(outcomes) == list(range(7))
    assert isinstance(outcomes[4], ValueError) and "bad payload 4" in str(outcomes[4])
    assert [outcomes[i]["n"] for i in (0, 1, 2, 3, 5, 6)] == [0, 1, 2, 3, 5, 6]  # 4's group mates unharmed
    assert len({outcomes[i]["pid"] for i in (0, 1, 2, 3, 5, 6)}) == 1


class _Killed:
    """A finished Dask future whose task killed its worker as often as the cluster allows."""

    def result(self) -> None:
        from distributed.scheduler import KilledWorker

        raise KilledWorker("task", _Worker(), 1)


class _Worker:
    """The last worker a killed task ran on, as the scheduler names it."""

    address = "tcp://127.0.0.1:1"


@pytest.mark.slow  # starts a local Dask cluster
def test_a_killed_group_goes_back_as_single_jobs_and_a_killed_single_job_is_a_dead_worker() -> None:
    from reeljudge.library.dask_engine import _group_outcomes

    pending: list[list[int]] = [[9]]
    assert _group_outcomes(_Killed(), [3, 4, 5], pending) == []
    assert pending == [[9], [5], [4], [3]]  # taken from the end: 3, 4, 5 run next, one per task
    [(index, outcome)] = _group_outcomes(_Killed(), [4], pending)
    assert index == 4 and isinstance(outcome, WorkerDied) and "died" in str(outcome)


@pytest.mark.slow  # starts a local Dask cluster
@pytest.mark.parametrize("start_method", ["forkserver", "spawn"])
def test_workers_start_with_one_compute_thread_and_no_malloc_trim(start_method: str) -> None:
    from reeljudge.library.dask_engine import DaskEngine
    from support.jobs import worker_settings

    outcomes = dict(DaskEngine(workers=1, start_method=start_method).run(worker_settings, [0, 1], {}))
    settings = [outcomes[0], outcomes[1]]
    assert all(s["malloc_trim"] is None for s in settings)  # Dask's default trim made the probes fault in pages
    assert all(s["omp_threads"] == "1" and s["opencv_threads"] == 1 and s["decoder_threads"] == 1 for s in settings)
    assert settings[0]["pid"] != os.getpid()
