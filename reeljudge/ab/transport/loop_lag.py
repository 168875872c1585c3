"""How late the rating server's event loop runs: a periodic tick's lag, the largest over the last minute.

Nothing a request triggers may hold the event loop (``docs/ab.md``, "No request stops the loop"):
work over a request's bytes runs in linear time and off the loop. This is the figure that shows it:
a task on the loop sleeps ``TICK_S`` and notes how much later than asked it woke. A loop held by any
work for a second wakes the tick a second late. A host too busy to run the server at all wakes it
late too, so beside the lag the figure keeps the *busy* lag: each tick's lag counted only up to
the CPU time the server's process spent meanwhile (a stall of the server's own making spends it;
a process the host did not run spends none). ``/healthz`` answers the figure, and the server writes
it to ``<study>/loop-lag.json`` every ``WRITE_EVERY_S`` for ``reeljudge ab status``.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

from reeljudge.ab.store.records import now_iso
from reeljudge.atomic import write_json

TICK_S = 0.1
WINDOW_S = 60.0
WRITE_EVERY_S = 10.0
#: the stall the server is held to: no request may hold the loop longer (the tests' bound under attack)
BUDGET_MS = 250
FILE_NAME = "loop-lag.json"


class LoopLag:
    """The lag of a periodic tick on the running loop, kept for the last ``WINDOW_S`` seconds."""

    def __init__(self, write_to: Path | None = None) -> None:
        self._lags: deque[tuple[float, float, float]] = deque()
        self._write_to = write_to
        self.started = False

    def note(self, at: float, lag_s: float, cpu_s: float | None = None) -> None:
        """Record one tick's lag (seconds) at monotonic time ``at`` and the process's CPU time meanwhile (None: as much as
        the lag); forget ticks older than the window."""
        lag = max(0.0, lag_s)
        self._lags.append((at, lag, lag if cpu_s is None else min(lag, max(0.0, cpu_s))))
        while self._lags and self._lags[0][0] < at - WINDOW_S:
            self._lags.popleft()

    def figure(self) -> dict[str, Any]:
        """The figure ``/healthz`` and ``ab status`` show: the largest and the latest lag (ms) over the last minute."""
        worst = max((lag for _, lag, _ in self._lags), default=0.0)
        busy = max((lag for _, _, lag in self._lags), default=0.0)
        last = self._lags[-1][1] if self._lags else 0.0
        return {"loop_lag_ms": {"worst_last_minute": _ms(worst), "worst_busy_last_minute": _ms(busy), "last": _ms(last),
                                "tick_ms": round(TICK_S * 1000), "budget_ms": BUDGET_MS, "measuring": self.started}}

    async def run(self) -> None:
        """Tick forever (until cancelled), noting each tick's lag and writing the figure every ``WRITE_EVERY_S``."""
        loop = asyncio.get_running_loop()
        self.started, written = True, loop.time()
        while True:
            asked, cpu = loop.time(), time.process_time()
            await asyncio.sleep(TICK_S)
            now = loop.time()
            self.note(now, now - asked - TICK_S, time.process_time() - cpu)
            if self._write_to is not None and now - written >= WRITE_EVERY_S:
                written = now
                await asyncio.to_thread(self._write, self.figure())

    def _write(self, figure: dict[str, Any]) -> None:
        """Put the figure, with the time it was taken, in the study folder (best effort: a full disk costs no request)."""
        assert self._write_to is not None
        try:
            write_json(self._write_to, {**figure, "written_at": now_iso()}, sync=False)
        except OSError:
            pass

    @asynccontextmanager
    async def lifespan(self, app: Any) -> AsyncIterator[None]:
        """The ASGI lifespan that runs the tick while the server runs, from after the first request's one-time set-up
        (a worker thread started: anyio imports its event-loop backend then), done here before any request comes."""
        from starlette.concurrency import run_in_threadpool

        await run_in_threadpool(lambda: None)
        task = asyncio.get_running_loop().create_task(self.run())
        try:
            yield
        finally:
            task.cancel()


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def read_figure(study: Path) -> dict[str, Any] | None:
    """The figure a server serving ``study`` last wrote, or None (no server has run there; an unreadable file)."""
    try:
        figure = json.loads((study / FILE_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return figure if isinstance(figure, dict) else None

