"""promptfoo results files made by code, for gate tests and benchmarks.

The shape follows what ``promptfoo eval -o`` writes (0.121.x: ``evalId``, ``results.results[]`` with
``testCase``, ``vars``, ``provider``, ``prompt``, ``success``, ``score``, ``namedScores``,
``gradingResult`` (a judge's result, with its breakdown), ``failureReason``; ``config``; ``metadata``). Scores
are a per-test latent quality plus judging noise, so two runs of the same "system" differ only by
noise, and a planted effect moves one metric of the candidate. A test that did not judge carries
the very result ``reeljudge.promptfoo.results.failure`` builds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from reeljudge.errors import JudgeError
from reeljudge.identity import IDENTITY_KEY, judge_identity
from reeljudge.promptfoo.results import failure, grading_result

DEFAULT_METRICS = ("film_relevance", "film_filmability", "film_variety")
#: a live LLM judge (answers not from the cache): its verdicts carry judging noise
LIVE_GEMINI: Mapping[str, Any] = {"judge": "filmability", "engine": "gemini", "model": "gemini-2.5-flash", "version": "rubric-a1"}
#: the offline judge: the same answer for the same input
OFFLINE: Mapping[str, Any] = {"judge": "filmability", "engine": "local", "version": "3-synthetic"}


@dataclass(frozen=True)
class RunSpec:
    """What one synthetic run looks like.

    Attributes:
        n_tests: tests per provider.
        providers: provider labels (every test runs on each).
        metrics: namedScores each test gets (the score is their mean).
        effects: metric -> shift added to that metric in this run (a planted change).
        noise: standard deviation of the per-run judging noise.
        not_judged: test indices whose judge did not judge in this run.
        seed: the noise seed of this run (the latent qualities use ``quality_seed``).
        quality_seed: seed of the per-test latent quality, shared by runs of the same suite.
        threshold: a test passes when its score reaches this.
        description: the config description.
        promptfoo_version: written into ``metadata``.
        judge: the judge identity each judged result records (``reeljudge.identity.judge_identity``
            arguments); None: none recorded, as promptfoo's own assertions.
    """

    n_tests: int = 200
    providers: tuple[str, ...] = ("generator-a",)
    metrics: tuple[str, ...] = DEFAULT_METRICS
    effects: Mapping[str, float] = field(default_factory=dict)
    noise: float = 0.05
    not_judged: tuple[int, ...] = ()
    seed: int = 1
    quality_seed: int = 0
    threshold: float = 0.6
    description: str = "synthetic filmability suite"
    promptfoo_version: str = "0.121.20"
    judge: Mapping[str, Any] | None = field(default_factory=lambda: dict(LIVE_GEMINI))


def make_results(spec: RunSpec) -> dict[str, Any]:
    """A results JSON document for ``spec``."""
    quality = np.random.default_rng(spec.quality_seed).beta(5, 2, size=(spec.n_tests, len(spec.metrics)))
    noise = np.random.default_rng(spec.seed).normal(0, spec.noise, size=(len(spec.providers), *quality.shape))
    shift = np.array([spec.effects.get(m, 0.0) for m in spec.metrics])
    rows = []
    for p, provider in enumerate(spec.providers):
        values = np.clip(quality + shift + noise[p], 0.0, 1.0)
        for t in range(spec.n_tests):
            judged = t not in spec.not_judged
            rows.append(_row(spec, provider, p, t, values[t] if judged else None))
    return {
        "evalId": f"eval-synthetic-{spec.seed}",
        "results": {"version": 3, "timestamp": "2026-11-22T00:00:00.000Z", "prompts": [], "results": rows, "stats": _stats(rows)},
        "config": {"description": spec.description, "providers": list(spec.providers)},
        "shareableUrl": None,
        "metadata": {"promptfooVersion": spec.promptfoo_version, "nodeVersion": "v20.20.2"},
    }


def _row(spec: RunSpec, provider: str, p: int, t: int, values: np.ndarray | None) -> dict[str, Any]:
    description = f"narration-{t:05d}"
    vars_ = {"narration": f"Synthetic narration number {t} about servers and sunsets"}
    if values is None:
        error = JudgeError("the reply cache has no entry for this request (replay mode)", kind="cache_miss")
        grading = failure(error, judge="filmability", test=description)
        named: dict[str, float] = {}
        score, passed = 0.0, False
    else:
        named = {m: round(float(v), 4) for m, v in zip(spec.metrics, values)}
        score = round(float(np.mean(values)), 4)
        passed = score >= spec.threshold
        parts = {m: f"{v:.2f} for test {t}" for m, v in named.items()}
        identity = {IDENTITY_KEY: judge_identity(**spec.judge)} if spec.judge else None
        grading = grading_result(passed=passed, score=score, reason=f"{score:.2f}",
                                 named_scores=named, breakdown=parts, metadata=identity)
    return {
        "cost": 0,
        "gradingResult": grading,
        "id": f"{p}-{t}",
        "latencyMs": 5,
        "namedScores": named,
        "prompt": {"raw": f"Terms for: {vars_['narration']}", "label": "broll-terms"},
        "promptId": "p0",
        "promptIdx": 0,
        "provider": {"id": f"file://providers/{provider}.py", "label": provider},
        "response": {"output": "[\"server room\"]"},
        "score": score,
        "success": passed,
        "testCase": {"description": description, "vars": vars_, "assert": [{"type": "python"}]},
        "testIdx": t,
        "vars": vars_,
        "failureReason": 0 if passed else 1,
        **({} if passed else {"error": grading["reason"]}),
    }


def _stats(rows: list[dict[str, Any]]) -> dict[str, Any]:
    successes = sum(1 for r in rows if r["success"])
    return {"successes": successes, "failures": len(rows) - successes, "errors": 0}


def write_results(path: str | Path, spec: RunSpec) -> Path:
    """Write ``make_results(spec)`` as JSON to ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(make_results(spec)), encoding="utf-8")
    return path
