"""The tests' clock: one that moves only when the code under test sleeps (or a test moves it).

Installed for every test by ``conftest.fake_clock`` through ``reeljudge.retry.use_clock``, the one
place reeljudge reads time for deadlines, backoff and poll intervals: a deadline then passes after
the same waits on any machine, however slow or loaded, and a backoff costs no real time.
"""

from __future__ import annotations

import threading
import time


class FakeClock:
    """Seconds that pass only by :meth:`sleep` (recorded in ``sleeps``) or :meth:`advance`."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._lock = threading.Lock()
        self.sleeps: list[float] = []

    def now(self) -> float:
        """The clock's time: ``start`` plus every sleep and advance so far."""
        with self._lock:
            return self._now

    def sleep(self, seconds: float) -> None:
        """Move the clock ``seconds`` on at once (recorded), and let other threads run meanwhile."""
        with self._lock:
            self.sleeps.append(seconds)
            self._now += max(0.0, seconds)
        time.sleep(0)

    def advance(self, seconds: float) -> None:
        """Move the clock ``seconds`` on, as if the code under test had spent them working."""
        with self._lock:
            self._now += seconds
