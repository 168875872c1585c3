"""Pairwise accuracy with tie calibration ("acc23", Deutsch, Foster & Freitag 2023, arXiv 2305.14324).

Over all pairs of items, the share the metric orders as the humans do, where a pair the humans
tie counts as correct only if the metric ties it too. Metrics rarely produce exact ties, so the
metric's ties are *calibrated*: pairs whose metric scores differ by at most ``epsilon`` count as
metric ties, and ``epsilon`` is the value that maximises the accuracy (over 0 and every observed
pairwise difference), as in the paper's reference code (google-research/mt-metrics-eval, also
used by t2v_metrics).

The pairs are enumerated and sorted once; any bootstrap resample is then evaluated from item
weights (how often each item was drawn): a pair (i, j) weighs ``w_i * w_j`` and the
``C(w_i, 2)`` pairs of an item with its own copies are ties in both (always correct).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: beyond this many pairs (about 6,300 items) a seeded random subset of pairs is used
MAX_PAIRS = 20_000_000


@dataclass(frozen=True)
class TieCalibrated:
    """The accuracy at the best tie threshold."""

    accuracy: float
    epsilon: float
    n_pairs: int
    pair_sample_rate: float = 1.0


class PairwiseAccuracy:
    """acc23 of ``metric`` against ``human`` scores of the same items, for the data and any resample."""

    def __init__(self, metric: np.ndarray, human: np.ndarray, *, max_pairs: int = MAX_PAIRS, seed: int = 0) -> None:
        metric, human = np.asarray(metric, dtype=float), np.asarray(human, dtype=float)
        if metric.shape != human.shape or metric.ndim != 1:
            raise ValueError("metric and human scores must be vectors of the same length")
        if np.isnan(metric).any() or np.isnan(human).any():
            raise ValueError("scores must not contain NaN")
        self.n = n = metric.size
        i, j = np.triu_indices(n, 1)
        self.sample_rate = 1.0
        if i.size > max_pairs:
            self.sample_rate = max_pairs / i.size
            keep = np.sort(np.random.default_rng(seed).choice(i.size, max_pairs, replace=False))
            i, j = i[keep], j[keep]
        dm, dh = metric[i] - metric[j], human[i] - human[j]
        concordant, human_tie = (dm * dh) > 0, dh == 0
        useful = concordant | human_tie  # discordant and metric-only ties are never correct
        order = np.argsort(np.abs(dm[useful]), kind="stable")
        self._i = i[useful][order].astype(np.int32)
        self._j = j[useful][order].astype(np.int32)
        self._diff = np.abs(dm[useful])[order]
        self._concordant = concordant[useful][order]
        # flipping a pair to a metric tie: +1 if the humans tie it, -1 if it was concordant
        self._flip = np.where(human_tie[useful][order], 1, -1).astype(np.int8)
        last = np.flatnonzero(np.diff(self._diff) != 0)
        self._run_ends = np.append(last, self._diff.size - 1) if self._diff.size else np.array([], dtype=int)

    def __call__(self, weights: np.ndarray | None = None) -> TieCalibrated:
        """The accuracy at the best epsilon; ``weights`` = how often each item is in the resample."""
        if weights is None:
            pair_w = np.ones(self._diff.size, dtype=np.int32)
            total, self_pairs = float(self.n), 0.0
        else:
            w = np.asarray(weights).astype(np.int32)
            pair_w = np.take(w, self._i)
            pair_w *= np.take(w, self._j)
            total, self_pairs = float(w.sum()), float((w.astype(np.int64) * (w - 1) // 2).sum())
        n_pairs = total * (total - 1) / 2 * self.sample_rate
        if n_pairs <= 0:
            return TieCalibrated(float("nan"), 0.0, 0, self.sample_rate)
        correct0 = float(pair_w[self._concordant].sum(dtype=np.int64)) + self_pairs * self.sample_rate
        if not self._run_ends.size:
            return TieCalibrated(float(correct0 / n_pairs), 0.0, int(n_pairs), self.sample_rate)
        pair_w *= self._flip
        gains = np.cumsum(pair_w, dtype=np.int64)[self._run_ends].astype(float)
        thresholds = self._diff[self._run_ends]
        if thresholds[0] != 0:  # epsilon 0 flips nothing when no pair is an exact metric tie
            gains, thresholds = np.append(0.0, gains), np.append(0.0, thresholds)
        best = int(np.argmax(gains))  # the first maximum: the smallest best epsilon
        return TieCalibrated(float((correct0 + gains[best]) / n_pairs), float(thresholds[best]), int(n_pairs), self.sample_rate)


def pairwise_accuracy(metric: np.ndarray, human: np.ndarray) -> TieCalibrated:
    """acc23 with tie calibration of ``metric`` against ``human`` (one call, no resampling)."""
    return PairwiseAccuracy(metric, human)()
