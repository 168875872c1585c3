"""How late the rating server's event loop runs: a periodic tick's lag, the largest over the last minute.

Nothing a request triggers may hold the event loop (``docs/ab.md``, "No request stops the loop"):
work over a request's bytes runs in linear time and off the loop. This is the figure that shows it:
a task on the loop sleeps ``TICK_S`` and notes how much later than asked it woke. A loop held by any
work for a second wakes the tick a second late. ``/healthz`` answers the figure, and the server
writes it to ``<study>/loop-lag.json`` every ``WRITE_EVERY_S`` for ``reeljudge ab status``.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

from reeljudge.ab.records import now_iso
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
        self._lags: deque[tuple[float, float]] = deque()
        self._write_to = write_to
        self.started = False

    def note(self, at: float, lag_s: float) -> None:
        """Record one tick's lag (seconds) at monotonic time ``at``; forget ticks older than the window."""
        self._lags.append((at, max(0.0, lag_s)))
        while self._lags and self._lags[0][0] < at - WINDOW_S:
            self._lags.popleft()

    def figure(self) -> dict[str, Any]:
        """The figure ``/healthz`` and ``ab status`` show: the largest and the latest lag (ms) over the last minute."""
        worst = max((lag for _, lag in self._lags), default=0.0)
        last = self._lags[-1][1] if self._lags else 0.0
        return {"loop_lag_ms": {"worst_last_minute": round(worst * 1000, 1), "last": round(last * 1000, 1),
                                "tick_ms": round(TICK_S * 1000), "budget_ms": BUDGET_MS, "measuring": self.started}}

    async def run(self) -> None:
        """Tick forever (until cancelled), noting each tick's lag and writing the figure every ``WRITE_EVERY_S``."""
        loop = asyncio.get_running_loop()
        self.started, written = True, loop.time()
        while True:
            asked = loop.time()
            await asyncio.sleep(TICK_S)
            now = loop.time()
            self.note(now, now - asked - TICK_S)
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


def read_figure(study: Path) -> dict[str, Any] | None:
    """The figure a server serving ``study`` last wrote, or None (no server has run there; an unreadable file)."""
    try:
        figure = json.loads((study / FILE_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return figure if isinstance(figure, dict) else None

