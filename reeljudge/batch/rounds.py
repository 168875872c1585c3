"""Rounds: plan → submit → collect, repeated until an eval plans nothing.

A multi-stage judge can only plan its next stage once the previous stage's replies are in the
cache (Gecko: question generation → filter → VQA; a generator provider before the judge that
grades its output), so one eval in plan mode plans one stage. :func:`run_rounds` runs the eval in
plan mode, submits what it planned, waits for and collects the jobs, and runs the eval again,
until an eval plans nothing: that last eval read every reply from the cache (zero calls) and its
results are the suite's results. It stops early, and says why, when a round makes no progress
(every remaining request keeps failing) or after ``max_rounds``.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from dataclasses import dataclass
from typing import Callable

from reeljudge.batch.collect import collect, report, wait
from reeljudge.batch.store import BatchStore
from reeljudge.batch.submit import SubmitOptions, submit
from reeljudge.cache import CACHE_DIR_ENV, CACHE_MODE_ENV
from reeljudge.gemini.client import JudgeClient

#: promptfoo exits 100 when tests fail; in a planning eval that is expected (queued for batch)
EVAL_OK = (0, 100)


@dataclass
class RoundsResult:
    """How the rounds went: batch rounds done, eval runs, the last eval's exit code, why it stopped."""

    rounds: int
    evals: int
    exit_code: int
    stopped: str
    collected: int = 0
    cost_usd: float | None = 0.0
    online_cost_usd: float | None = 0.0


def waiting(store: BatchStore) -> int:
    """Planned requests not out in a submission: what the next submit would send."""
    out = store.open_submission_ids()
    return sum(1 for r in store.planned() if r.get("submission") not in out)


def run_rounds(client: JudgeClient, eval_command: list[str], *, max_rounds: int = 10, interval_s: float = 30.0,
               deadline_s: float = 86_400.0, options: SubmitOptions = SubmitOptions(),
               log: Callable[[str], None] = print) -> RoundsResult:
    """Run ``eval_command`` in plan mode and batch what it plans, round after round (see the module doc)."""
    store = BatchStore(client.settings.cache_dir)
    env = {**os.environ, CACHE_MODE_ENV: "plan", CACHE_DIR_ENV: client.settings.cache_dir}
    result = RoundsResult(0, 0, 0, "")
    while True:
        result.evals += 1
        log(f"== eval {result.evals} in plan mode: {shlex.join(eval_command)}")
        code = subprocess.run(eval_command, env=env, check=False).returncode
        result.exit_code = code
        if code not in EVAL_OK:
            result.stopped = f"the eval exited with {code}"
            break
        left = waiting(store)
        if left == 0:
            result.stopped = "nothing left to plan"
            break
        if result.rounds >= max_rounds:
            result.stopped = f"{left} request(s) still planned after {max_rounds} round(s) (--max-rounds)"
            break
        result.rounds += 1
        log(f"== round {result.rounds}: {left} planned request(s) to send")
        progressed = _one_round(client, options, interval_s, deadline_s, result, log)
        if not progressed:
            result.stopped = (f"round {result.rounds} made no progress: every request it sent failed "
                              "(see `reeljudge batch status --failed`)")
            break
    log(f"== batch run: {result.rounds} round(s), {result.evals} eval run(s); {result.collected} replies collected; "
        f"stopped: {result.stopped}")
    return result


def _one_round(client: JudgeClient, options: SubmitOptions, interval_s: float, deadline_s: float,
               result: RoundsResult, log: Callable[[str], None]) -> bool:
    """Submit, wait for and collect every open submission; whether any reply was collected or fed back."""
    submit(client, options, log=log)
    progressed = False
    store = BatchStore(client.settings.cache_dir)
    for submission in store.submissions():
        if submission.get("collected") or not submission.get("job"):
            continue
        job = wait(client, submission, interval_s=interval_s, deadline_s=deadline_s, progress=options.progress)
        outcome = collect(client, submission, job, progress=options.progress)
        report(outcome, log)
        result.collected += outcome.collected
        result.cost_usd = _add(result.cost_usd, outcome.usage.cost_usd)
        result.online_cost_usd = _add(result.online_cost_usd, outcome.online_cost_usd)
        progressed = progressed or outcome.collected > 0 or outcome.fed_back > 0
    return progressed


def _add(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a + b
