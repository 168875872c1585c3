"""Which work the parallel runner hands out next: a pytest plugin (registered by ``tests/conftest.py``).

pytest-xdist's ``--dist loadscope`` hands out work units (a module, or a class in it), biggest first, to whichever
process is free. A few modules spend their time waiting in real time (a server's deadlines and holds, a rater's
viewing, a killed process), not computing. Biggest-first starts them last, and the run ended with every process
waiting and the cores idle. Here, a free process takes a waiting module while fewer than half the processes hold one,
and otherwise the next module that computes. The waits run from the start, beside work.

What a test checks never depends on this order (every test is safe in any order, in any process: tests/conftest.py).
"""

from __future__ import annotations

from typing import Any

import pytest

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


def _scheduling(config: pytest.Config, log: Any) -> Any:
    """loadscope's scheduling, with :func:`waits` units pulled forward while fewer than half the processes hold one."""
    from xdist.scheduler.loadscope import LoadScopeScheduling

    class WaitsBesideWork(LoadScopeScheduling):  # type: ignore[misc]
        def _assign_work_unit(self, node: Any) -> None:
            limit = max(1, len(self.assigned_work) // 2)
            held = sum(any(waits(scope) and not all(tests.values()) for scope, tests in units.items())
                       for units in self.assigned_work.values())
            queued = [scope for scope in self.workqueue if waits(scope) == (held < limit)]
            if queued:
                self.workqueue.move_to_end(queued[0], last=False)
            super()._assign_work_unit(node)

    return WaitsBesideWork(config, log)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """The scheduling of ``--dist loadscope`` (``scripts/test.sh``); None (xdist's own) for any other mode."""
    return _scheduling(config, log) if config.getvalue("dist") == "loadscope" else None
