"""Which work the parallel runner hands out next: a pytest plugin (registered by ``tests/conftest.py``).

pytest-xdist's ``--dist loadscope`` hands out work units (a module, or a class in it), biggest first, to whichever
process is free. A few modules spend their time waiting in real time (a server's deadlines and holds, a rater's
viewing, a killed process), not computing. Biggest-first starts them last, and the run ended with every process
waiting and the cores idle. Here, a free process takes a waiting module while fewer than half the processes hold one,
and otherwise the next module that computes. The waits run from the start, beside work.

Among the units of the kind it takes, a process takes the one that took longest in the last runs (the tests'
durations kept in ``durations.json`` of ``$REELJUDGE_TEST_KEEP_DIR``, written by the controlling process at the end
of each run): the longest first and the shortest last, so the processes finish close together. A unit with a test
never timed goes first (it may be long); without any record the order is xdist's, biggest unit first.

What a test checks never depends on this order (every test is safe in any order, in any process: tests/conftest.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from reeljudge.atomic import write_json
from support.run_once import KEEP_DIR

#: the tests' durations of the last runs (seconds, setup to teardown), in the keep folder of scripts/test.sh
DURATIONS_FILE = "durations.json"

#: modules whose time goes to waiting in real time, not to computing (measured per test: wall ÷ CPU above 5)
WAITING_MODULES = frozenset({
    "tests/ab/test_ab_hardening.py",
    "tests/ab/test_ab_hostile_edge.py",
    "tests/ab/test_ab_hostile_raters.py",
    "tests/ab/test_ab_hostile_store.py",
    "tests/ab/test_ab_hostile_transport.py",
    "tests/ab/test_ab_kill.py",
    "tests/ab/test_ab_postgres.py",
    "tests/ab/test_ab_server.py",
})


def waits(scope: str) -> bool:
    """Whether the work unit ``scope`` (a node id without its last part) belongs to one of :data:`WAITING_MODULES`."""
    return scope.split("::", 1)[0] in WAITING_MODULES


def read_durations(keep_dir: str | None) -> dict[str, float]:
    """The recorded durations by test id ({} without a keep folder, a record, or a readable one)."""
    try:
        data = json.loads((Path(keep_dir) / DURATIONS_FILE).read_text(encoding="utf-8")) if keep_dir else {}
    except (OSError, ValueError):
        return {}
    return {k: float(v) for k, v in data.items() if isinstance(v, (int, float))} if isinstance(data, dict) else {}


def expected_s(tests: dict[str, bool], durations: dict[str, float]) -> float:
    """How long a unit's tests took in the last runs (infinite when one of them was never timed)."""
    return sum(durations.get(test, float("inf")) for test in tests) if durations else 0.0


def _scheduling(config: pytest.Config, log: Any, durations: dict[str, float]) -> Any:
    """loadscope's scheduling, with :func:`waits` units pulled forward while fewer than half the processes hold one,
    the longest unit first within each kind (``durations``; xdist's order among equals)."""
    from xdist.scheduler.loadscope import LoadScopeScheduling

    class WaitsBesideWork(LoadScopeScheduling):
        def _assign_work_unit(self, node: Any) -> None:
            limit = max(1, len(self.assigned_work) // 2)
            held = sum(any(waits(scope) and not all(tests.values()) for scope, tests in units.items())
                       for units in self.assigned_work.values())
            queued = [scope for scope in self.workqueue if waits(scope) == (held < limit)]
            if queued:
                longest = max(queued, key=lambda scope: expected_s(self.workqueue[scope], durations))
                self.workqueue.move_to_end(longest, last=False)
            super()._assign_work_unit(node)

    return WaitsBesideWork(config, log)


class Durations:
    """The controlling process's record of each test's duration (every phase), merged into the kept record."""

    def __init__(self, keep_dir: str) -> None:
        self.keep_dir = keep_dir
        self.seen: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Add the phase's duration to its test's."""
        self.seen[report.nodeid] = self.seen.get(report.nodeid, 0.0) + report.duration

    def pytest_sessionfinish(self) -> None:
        """Write the record: this run's durations over the last runs' (other tests keep theirs)."""
        if not self.seen:
            return
        merged = {**read_durations(self.keep_dir), **{k: round(v, 3) for k, v in self.seen.items()}}
        write_json(Path(self.keep_dir) / DURATIONS_FILE, merged, sync=False, sort_keys=True)  # rebuilt by any run


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """The scheduling of ``--dist loadscope`` (``scripts/test.sh``); None (xdist's own) for any other mode."""
    return _scheduling(config, log, read_durations(KEEP_DIR)) if config.getvalue("dist") == "loadscope" else None


def pytest_configure(config: pytest.Config) -> None:
    """In the controlling process of a parallel run with a keep folder: record the tests' durations."""
    if KEEP_DIR and not os.environ.get("PYTEST_XDIST_WORKER") and config.getoption("dist", None) == "loadscope":
        config.pluginmanager.register(Durations(KEEP_DIR), "reeljudge-durations")
