"""Correlations between judge scores and human scores (scipy), each with a bootstrap interval.

Pearson (linear), Spearman (ranks) and Kendall's tau-b (pair order, ties corrected), as
``scipy.stats`` computes them. A correlation of constant values is undefined: NaN, never 0.
Intervals resample items with the shared bootstrap (``reeljudge.stats.bootstrap``); every
correlation is computed on the same resamples.
"""

from __future__ import annotations

import warnings
from typing import Callable

import numpy as np

from reeljudge.stats.bootstrap import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, DEFAULT_SEED, Interval, bootstrap_weighted

#: the correlations reported, in order
CORRELATIONS = ("pearson", "spearman", "kendall_tau_b")


def _pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r of each row pair (rows = resamples)."""
    from scipy import stats

    return np.asarray(stats.pearsonr(x, y, axis=-1).statistic)


def _spearman(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho of each row pair: Pearson's r of average ranks."""
    from scipy import stats

    return np.asarray(stats.pearsonr(stats.rankdata(x, axis=-1), stats.rankdata(y, axis=-1), axis=-1).statistic)


def _kendall_b(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of each row pair."""
    from scipy import stats

    return np.array([stats.kendalltau(a, b, variant="b").statistic for a, b in zip(np.atleast_2d(x), np.atleast_2d(y))])


_FUNCTIONS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "pearson": _pearson,
    "spearman": _spearman,
    "kendall_tau_b": _kendall_b,
}


def _rows(name: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The named correlation per row; NaN for rows where either side is constant."""
    x, y = np.atleast_2d(x), np.atleast_2d(y)
    constant = (x == x[:, :1]).all(axis=1) | (y == y[:, :1]).all(axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = np.asarray(_FUNCTIONS[name](x, y), dtype=float).reshape(-1)
    return np.where(constant, np.nan, values)


def correlation(name: str, x: np.ndarray, y: np.ndarray) -> float:
    """The named correlation of two score vectors; NaN when undefined (constant input, < 2 items)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size < 2:
        return float("nan")
    return float(_rows(name, x, y)[0])


def correlations_with_intervals(
    judge: np.ndarray,
    human: np.ndarray,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int = DEFAULT_SEED,
) -> dict[str, Interval]:
    """Every correlation of ``judge`` with ``human`` and its percentile interval over item resamples.

    The resamples are the shared bootstrap's item weights (``bootstrap_weighted``), expanded to the
    drawn items so scipy's vectorised functions compute all resamples of a correlation at once.
    """
    x, y = np.asarray(judge, dtype=float), np.asarray(human, dtype=float)
    items = np.arange(x.size)

    def drawn(weights: np.ndarray) -> np.ndarray:
        return np.vstack([np.repeat(items, row) for row in np.rint(weights).astype(int)])

    def resampled(name: str) -> Callable[[np.ndarray], np.ndarray]:
        return lambda w: _rows(name, x[drawn(w)], y[drawn(w)])

    return {
        name: bootstrap_weighted(
            resampled(name),
            x.size,
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
        )
        for name in CORRELATIONS
    }
