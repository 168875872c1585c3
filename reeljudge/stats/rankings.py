"""Rankings from pairwise outcomes: win rates with Wilson intervals, Bradley–Terry strengths.

An outcome is ``(system_i, system_j, score_i)`` with score 1 (i won), 0 (j won) or 0.5 (tie:
half a win each, as arenas count it). Wilson intervals come from ``statsmodels``; Bradley–Terry
strengths are the maximum-likelihood log-strengths (``scipy.optimize``) under a weak Gaussian
prior that keeps them finite when a system never loses, centred to mean 0, with bootstrap
intervals over outcomes (``reeljudge.stats.bootstrap``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Sequence, TypedDict

from reeljudge.extras import require
from reeljudge.stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, Interval

Outcome = tuple[str, str, float]
BT_PRIOR = 1e-3  # precision of the Gaussian prior on log-strengths (weak: a few hundredths of a nat)


class WinRateJSON(TypedDict):
    """``WinRate.as_dict``."""

    system: str
    wins: int
    ties: int
    losses: int
    comparisons: int
    rate: float
    low: float
    high: float


@dataclass(frozen=True)
class WinRate:
    """Wins, ties and losses of one system, its win rate (tie = half) and Wilson interval."""

    system: str
    wins: int
    ties: int
    losses: int
    low: float
    high: float

    @property
    def comparisons(self) -> int:
        """Outcomes the system took part in."""
        return self.wins + self.ties + self.losses

    @property
    def rate(self) -> float:
        """(wins + ties / 2) / comparisons."""
        return (self.wins + 0.5 * self.ties) / self.comparisons if self.comparisons else math.nan

    def as_dict(self) -> WinRateJSON:
        """JSON form."""
        return {"system": self.system, "wins": self.wins, "ties": self.ties, "losses": self.losses,
                "comparisons": self.comparisons, "rate": self.rate, "low": self.low, "high": self.high}


def wilson_interval(successes: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a proportion (statsmodels ``proportion_confint``); (nan, nan) for n = 0."""
    if n <= 0:
        return (math.nan, math.nan)
    require("the Wilson interval", "statsmodels")
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(successes, n, alpha=1 - confidence, method="wilson")
    return float(low), float(high)


def win_rates(outcomes: Iterable[Outcome], confidence: float = 0.95) -> list[WinRate]:
    """Every system's win rate with its Wilson interval, best first."""
    tally: dict[str, list[int]] = {}
    for i, j, score in outcomes:
        for system, s in ((i, score), (j, 1.0 - score)):
            t = tally.setdefault(system, [0, 0, 0])
            t[0 if s == 1.0 else 1 if s == 0.5 else 2] += 1
    rates = []
    for system, (wins, ties, losses) in tally.items():
        low, high = wilson_interval(wins + 0.5 * ties, wins + ties + losses, confidence)
        rates.append(WinRate(system, wins, ties, losses, low, high))
    return sorted(rates, key=lambda r: (-r.rate, r.system))


def bradley_terry(outcomes: Sequence[Outcome], systems: Sequence[str] | None = None) -> dict[str, float]:
    """Centred Bradley–Terry log-strengths: P(i beats j) = 1 / (1 + exp(s_j − s_i))."""
    names = sorted(systems or {s for o in outcomes for s in o[:2]})
    pairs = _aggregate(outcomes, names)
    return dict(zip(names, _fit(pairs, len(names)).tolist()))


def _aggregate(outcomes: Sequence[Outcome], names: Sequence[str]) -> Any:
    """Rows (i, j, comparisons, score of i) per ordered pair of system indices."""
    import numpy as np

    index = {n: k for k, n in enumerate(names)}
    table: dict[tuple[int, int], list[float]] = {}
    for a, b, score in outcomes:
        i, j = index[a], index[b]
        if i > j:
            i, j, score = j, i, 1.0 - score
        row = table.setdefault((i, j), [0.0, 0.0])
        row[0] += 1
        row[1] += score
    return np.array([[i, j, n, w] for (i, j), (n, w) in sorted(table.items())], dtype=float).reshape(-1, 4)


def _fit(pairs: Any, k: int) -> Any:
    """Maximum a-posteriori log-strengths (weak Gaussian prior) for aggregated pair rows, centred."""
    import numpy as np
    from scipy.optimize import minimize
    from scipy.special import expit, log_expit

    if k < 2 or len(pairs) == 0:
        return np.zeros(k)
    i, j, n, w = pairs[:, 0].astype(int), pairs[:, 1].astype(int), pairs[:, 2], pairs[:, 3]

    def loss(s: Any) -> tuple[float, Any]:
        d = s[i] - s[j]
        nll = -(w * log_expit(d) + (n - w) * log_expit(-d)).sum() + 0.5 * BT_PRIOR * (s @ s)
        g = w - n * expit(d)
        return float(nll), -np.bincount(i, g, k) + np.bincount(j, g, k) + BT_PRIOR * s

    def hess(s: Any) -> Any:
        p = expit(s[i] - s[j])
        v = n * p * (1 - p)
        h = np.diag(np.bincount(i, v, k) + np.bincount(j, v, k) + BT_PRIOR)
        np.add.at(h, (i, j), -v)
        np.add.at(h, (j, i), -v)
        return h

    result = minimize(loss, np.zeros(k), jac=True, hess=hess, method="trust-exact", options={"gtol": 1e-9})
    return result.x - result.x.mean()


def bradley_terry_intervals(outcomes: Sequence[Outcome], *, n_resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95,
                            seed: int = DEFAULT_SEED) -> dict[str, Interval]:
    """Bradley–Terry log-strengths with percentile intervals from resampling the outcomes."""
    import numpy as np

    names = sorted({s for o in outcomes for s in o[:2]})
    estimate = bradley_terry(outcomes, names)
    rng = np.random.default_rng(seed)
    draws = np.empty((n_resamples, len(names)))
    n = len(outcomes)
    # each outcome's row in the aggregated table, so a resample only re-weights rows
    pair_of: dict[tuple[int, int, float], int] = {}
    rows: list[tuple[int, int, float]] = []
    index = {name: k for k, name in enumerate(names)}
    for a, b, score in outcomes:
        i, j = index[a], index[b]
        key = (i, j, score) if i < j else (j, i, 1.0 - score)
        pair_of.setdefault(key, len(pair_of))
        rows.append(key)
    kinds = np.array(list(pair_of), dtype=float).reshape(-1, 3)
    counts = np.bincount([pair_of[r] for r in rows], minlength=len(pair_of))
    for r in range(n_resamples):
        weights = rng.multinomial(n, counts / n)
        table = np.column_stack([kinds[:, 0], kinds[:, 1], weights, weights * kinds[:, 2]])[weights > 0]
        draws[r] = _fit(table, len(names))
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(draws, [tail, 100 - tail], axis=0)
    return {name: Interval(estimate[name], float(low[k]), float(high[k]), confidence, n, n_resamples) for k,
            name in enumerate(names)}


def win_probability(strengths: dict[str, float], a: str, b: str) -> float:
    """P(a beats b) under Bradley–Terry strengths."""
    return 1.0 / (1.0 + math.exp(strengths[b] - strengths[a]))
