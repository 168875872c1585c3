"""Bootstrap confidence intervals by resampling units (tests, items, samples) with scipy.

Every interval in reeljudge comes from here: resample the unit indices with replacement, compute
the statistic on each resample, take the percentile interval (``scipy.stats.bootstrap``). A
statistic that is undefined on a resample (NaN: e.g. a correlation of constant values) is left out
of that resample's distribution, and the share left out is reported, never hidden.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, TypedDict

import numpy as np

DEFAULT_RESAMPLES = 2000
DEFAULT_CONFIDENCE = 0.95
DEFAULT_SEED = 20261122


class IntervalJSON(TypedDict):
    """``Interval.as_dict``: the interval's fields, NaN as None."""

    estimate: float | None
    low: float | None
    high: float | None
    confidence: float | None
    n_units: int
    n_resamples: int
    undefined_share: float | None


@dataclass(frozen=True)
class Interval:
    """A point estimate with its bootstrap interval."""

    estimate: float
    low: float
    high: float
    confidence: float
    n_units: int
    n_resamples: int
    undefined_share: float = 0.0  # share of resamples on which the statistic was undefined

    def as_dict(self) -> IntervalJSON:
        """JSON-able values (NaN as None)."""
        return {"estimate": _json(self.estimate), "low": _json(self.low), "high": _json(self.high),
                "confidence": _json(self.confidence), "n_units": self.n_units, "n_resamples": self.n_resamples,
                "undefined_share": _json(self.undefined_share)}

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies inside the interval."""
        return self.low <= value <= self.high

    def text(self, digits: int = 3) -> str:
        """``0.412 [0.351, 0.470]``."""
        f = f"{{:.{digits}f}}"
        return f"{f.format(self.estimate)} [{f.format(self.low)}, {f.format(self.high)}]"


def _json(value: float) -> float | None:
    """A float as JSON holds it: NaN as None."""
    return None if isinstance(value, float) and math.isnan(value) else value


def bootstrap_units(
    statistic: Callable[[np.ndarray], float],
    n_units: int,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int = DEFAULT_SEED,
) -> Interval:
    """The percentile interval of ``statistic(indices)`` over resamples of ``range(n_units)``.

    ``statistic`` receives an array of unit indices (with repeats) and returns a float; it is
    called once on ``arange(n_units)`` for the estimate. Undefined (NaN) resample values are
    dropped and counted.
    """
    if n_units < 1:
        raise ValueError("bootstrap needs at least one unit")
    estimate = float(statistic(np.arange(n_units)))
    rng = np.random.default_rng(seed)
    values = np.empty(n_resamples)
    for i in range(n_resamples):
        values[i] = statistic(rng.integers(0, n_units, n_units))
    return _interval(estimate, values, confidence, n_units)


def bootstrap_weighted(
    statistic: Callable[[np.ndarray], np.ndarray],
    n_units: int,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int = DEFAULT_SEED,
) -> Interval:
    """Like ``bootstrap_units``, for statistics that are sums over units, all resamples at once.

    A resample is given as unit weights (how often each unit was drawn: one multinomial row), so
    ``statistic`` receives a (resamples × units) weight matrix and returns one value per row; it
    is called once on a single row of ones for the estimate.
    """
    if n_units < 1:
        raise ValueError("bootstrap needs at least one unit")
    estimate = float(np.asarray(statistic(np.ones((1, n_units))))[0])
    rng = np.random.default_rng(seed)
    weights = rng.multinomial(n_units, np.full(n_units, 1.0 / n_units), size=n_resamples).astype(np.float64)
    return _interval(estimate, np.asarray(statistic(weights), dtype=float), confidence, n_units)


def bootstrap_mean(
    values: np.ndarray,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int = DEFAULT_SEED,
) -> Interval:
    """The percentile interval of the mean of ``values`` (e.g. paired differences), vectorised."""
    from scipy.stats import bootstrap

    data = np.asarray(values, dtype=float)
    if data.size == 0:
        raise ValueError("bootstrap needs at least one value")
    estimate = float(data.mean())
    if data.size == 1 or np.all(data == data[0]):
        return Interval(estimate, estimate, estimate, confidence, int(data.size), 0)
    result = bootstrap(
        (data,),
        np.mean,
        n_resamples=n_resamples,
        confidence_level=confidence,
        method="percentile",
        vectorized=True,
        rng=np.random.default_rng(seed),
    )
    ci = result.confidence_interval
    return Interval(estimate, float(ci.low), float(ci.high), confidence, int(data.size), n_resamples)


def bootstrap_column_means(
    values: np.ndarray,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int = DEFAULT_SEED,
    chunk: int = 250,
) -> list[Interval]:
    """Percentile intervals of every column's mean, all columns resampled by the same rows.

    ``values`` is units × columns (e.g. tests × metrics of paired differences); NaN marks a value
    a unit does not have, which that column leaves out. A resample draws rows with replacement
    once for all columns (so the intervals of different metrics come from the same resamples),
    as weights times values: a BLAS product instead of a gather, fast on 10,000s of units.
    """
    data = np.asarray(values, dtype=float)
    if data.ndim != 2 or data.shape[0] == 0:
        raise ValueError("bootstrap needs a units x columns array with at least one unit")
    n, m = data.shape
    present = ~np.isnan(data)
    filled = np.where(present, data, 0.0)
    rng = np.random.default_rng(seed)
    sums, counts = np.empty((n_resamples, m)), np.empty((n_resamples, m))
    for start in range(0, n_resamples, chunk):
        b = min(chunk, n_resamples - start)
        draws = rng.integers(0, n, (b, n)) + (np.arange(b) * n)[:, None]
        weights = np.bincount(draws.ravel(), minlength=b * n).reshape(b, n).astype(float)
        sums[start : start + b] = weights @ filled
        counts[start : start + b] = weights @ present
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / counts
    intervals = []
    for j in range(m):
        column = data[present[:, j], j]
        if column.size == 0:
            intervals.append(Interval(math.nan, math.nan, math.nan, confidence, 0, 0, 1.0))
        elif np.all(column == column[0]):
            value = float(column[0])
            intervals.append(Interval(value, value, value, confidence, int(column.size), 0))
        else:
            interval = _interval(float(column.mean()), means[:, j], confidence, int(column.size))
            intervals.append(interval)
    return intervals


def _interval(estimate: float, values: np.ndarray, confidence: float, n_units: int) -> Interval:
    """The percentile interval of resampled values, NaNs left out and counted."""
    defined = values[~np.isnan(values)]
    undefined = 1.0 - defined.size / values.size
    if defined.size == 0:
        return Interval(estimate, math.nan, math.nan, confidence, n_units, int(values.size), undefined)
    tail = (1.0 - confidence) / 2 * 100
    low, high = np.percentile(defined, [tail, 100 - tail])
    return Interval(estimate, float(low), float(high), confidence, n_units, int(values.size), undefined)
