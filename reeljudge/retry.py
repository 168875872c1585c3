"""The one retry policy: attempts, per-attempt timeout, total deadline, jittered backoff or the
server's ``retryDelay``, built on tenacity.

Every call that can fail for a passing reason goes through :func:`call`: judge requests, Files API
lookups and uploads, Veo operations, stock-footage search requests. Waiting for something to
finish (an uploaded file to become ACTIVE, a Veo operation to be done) goes through :func:`poll`,
whose every lookup is itself a :func:`call`. Callers say what a failure means with a
``classify`` function; when the policy runs out, :class:`GaveUp` carries the attempts made and
the last problem, and the caller turns it into the judge's own error.

**The clock.** Every deadline, backoff and poll interval of reeljudge is measured on one clock,
:func:`clock` (real time: ``time.monotonic`` and ``time.sleep``), and every absolute deadline is
made by :func:`deadline_in`. A test installs another clock with :func:`use_clock`, one that moves
only when the code under test sleeps, so whether a deadline passes never depends on how fast or
loaded the machine is. (Latencies reported in results are measurements, read from real time.)
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterator, Protocol, TypeVar

if TYPE_CHECKING:  # pragma: no cover - typing only
    import tenacity

T = TypeVar("T")


class Clock(Protocol):
    """What deadlines and waits are measured on: seconds on a monotonic scale, and waiting."""

    def now(self) -> float:
        """Seconds since an arbitrary start; never goes back."""
        ...

    def sleep(self, seconds: float) -> None:
        """Wait ``seconds``."""
        ...


class SystemClock:
    """Real time: ``time.monotonic`` and ``time.sleep``."""

    def now(self) -> float:
        """``time.monotonic()``."""
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        """``time.sleep(seconds)``."""
        time.sleep(seconds)


_CLOCKS: list[Clock] = [SystemClock()]


def clock() -> Clock:
    """The clock in force: real time, unless a test installed another with :func:`use_clock`."""
    return _CLOCKS[-1]


def deadline_in(seconds: float) -> float:
    """The absolute deadline ``seconds`` from now, on the clock in force."""
    return clock().now() + seconds


@contextmanager
def use_clock(replacement: Clock) -> Iterator[Clock]:
    """Measure every deadline, backoff and poll interval on ``replacement`` inside the block."""
    _CLOCKS.append(replacement)
    try:
        yield replacement
    finally:
        _CLOCKS.remove(replacement)


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to try: attempts per call, seconds per attempt, seconds in all, backoff bounds."""

    max_attempts: int = 4
    timeout_s: float = 60.0
    deadline_s: float = 240.0
    backoff_initial_s: float = 1.0
    backoff_max_s: float = 20.0

    def backoff(self, attempt: int, hint_s: float | None = None) -> float:
        """Seconds to wait after failed attempt ``attempt``: the server's hint, else jittered exponential."""
        if hint_s is not None:
            return min(hint_s, self.backoff_max_s)
        import random  # here: a cache hit never waits

        base = self.backoff_initial_s * (2 ** (attempt - 1))
        return min(base * (0.5 + random.random() / 2), self.backoff_max_s)


@dataclass(frozen=True)
class Problem:
    """What one failure was: whether to try again, a one-line description, the server's delay hint."""

    retryable: bool
    text: str
    retry_after_s: float | None = None
    timed_out: bool = False


class GaveUp(Exception):
    """The policy ran out (or the failure was not worth retrying); why, after how many attempts."""

    def __init__(self, problem: Problem, attempts: int, why: str) -> None:
        super().__init__(problem.text)
        self.problem = problem
        self.attempts = attempts
        self.why = why  # "not retryable" | "attempts" | "deadline"

    def __str__(self) -> str:
        if self.why == "not retryable":
            return self.problem.text
        if self.why == "deadline":
            return f"gave up after {self.attempts} attempt(s): the deadline passed; last problem: {self.problem.text}"
        return f"gave up after {self.attempts} attempts: {self.problem.text}"


def call(
    fn: Callable[[float], T],
    policy: RetryPolicy,
    classify: Callable[[BaseException], Problem],
    *,
    deadline: float | None = None,
) -> tuple[T, int]:
    """``fn(seconds for this attempt)`` and the number of attempts it took; GaveUp when it keeps failing.

    A retryable failure is tried again after the backoff unless the attempts are used up or the
    wait would pass ``deadline`` (absolute, on :func:`clock`; default: ``deadline_in(policy.deadline_s)``).
    """
    import tenacity  # here, not at the top: a cache hit never retries, and importing tenacity costs ~100 ms

    on = clock()
    end = deadline if deadline is not None else on.now() + policy.deadline_s
    last: dict[str, Problem] = {}

    def attempt() -> T:
        remaining = end - on.now()
        if remaining <= 0:
            raise _DeadlinePassed()
        return fn(min(policy.timeout_s, remaining))

    def retryable(exc: BaseException) -> bool:
        if isinstance(exc, _DeadlinePassed):
            return False
        last["problem"] = classify(exc)
        return last["problem"].retryable

    def wait(state: tenacity.RetryCallState) -> float:
        return policy.backoff(state.attempt_number, last["problem"].retry_after_s)

    def stop(state: tenacity.RetryCallState) -> bool:
        return state.attempt_number >= policy.max_attempts or on.now() + state.upcoming_sleep >= end

    retrying = tenacity.Retrying(
        stop=stop, wait=wait, retry=tenacity.retry_if_exception(retryable), sleep=on.sleep, reraise=True
    )
    try:
        value = retrying(attempt)
    except _DeadlinePassed:
        attempts = retrying.statistics.get("attempt_number", 1) - 1
        problem = last.get("problem") or Problem(False, "no attempt fitted in the deadline", timed_out=True)
        raise GaveUp(problem, attempts, "deadline") from None
    except Exception as exc:  # noqa: BLE001 - classified, re-raised as GaveUp
        attempts = retrying.statistics.get("attempt_number", 1)
        problem = last.get("problem") or classify(exc)
        why = "not retryable" if not problem.retryable else ("attempts" if attempts >= policy.max_attempts else "deadline")
        raise GaveUp(problem, attempts, why) from exc
    return value, retrying.statistics.get("attempt_number", 1)


def poll(
    fetch: Callable[[float], T],
    finished: Callable[[T], bool],
    policy: RetryPolicy,
    classify: Callable[[BaseException], Problem],
    *,
    interval_s: float,
    deadline: float,
    first: T | None = None,
) -> tuple[T, int]:
    """The first fetched state that is ``finished``, and how many requests it took (retries included).

    Starts from ``first`` when given (no fetch needed if it is already finished), waits
    ``interval_s`` between fetches, and retries each fetch under ``policy``. GaveUp with why
    ``deadline`` (problem text naming the last state, ``timed_out``) when ``deadline`` passes
    first, whether during a wait or before the next fetch could start.
    """
    state, polls = first, 0
    while state is None or not finished(state):
        if state is not None or polls:
            if clock().now() + interval_s > deadline:
                raise _unfinished(polls)
            clock().sleep(interval_s)
        try:
            state, attempts = call(fetch, policy, classify, deadline=deadline)
        except GaveUp as gave_up:
            if gave_up.why == "deadline" and gave_up.attempts == 0:
                raise _unfinished(polls) from None
            raise
        polls += attempts
    return state, polls


def _unfinished(polls: int) -> GaveUp:
    """The deadline passed while polling, after ``polls`` requests."""
    return GaveUp(Problem(True, f"still not finished after {polls} poll(s)", timed_out=True), polls, "deadline")


class _DeadlinePassed(Exception):
    """No time is left for another attempt."""
