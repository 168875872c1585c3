"""The per-frame measures are exact where they are made cheaper: order statistics as numpy sorts them,
and the analysis leaves OpenCV's thread count as it found it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from reeljudge.probes import ProbeOptions
from reeljudge.probes.measures import order_statistics, quartiles
from reeljudge.probes.signals import measure
from support.corpus import REPO


def _arrays() -> list[np.ndarray]:
    """Float32 arrays of the shapes flow statistics meet: smooth, heavy-tailed, tied, constant, tiny."""
    rng = np.random.default_rng(21)
    out = [rng.normal(size=int(n)).astype(np.float32) * 3 for n in rng.integers(1, 40_000, size=40)]
    out += [(rng.standard_cauchy(size=30_000) * 1e3).astype(np.float32), rng.integers(-3, 3, size=29_000).astype(np.float32)]
    tied = np.full(5_000, 1.5, np.float32)
    tied[:1_700] = -2.0
    out += [tied, np.zeros(7, np.float32), np.array([4.0], np.float32), np.array([1e-30, -1e30, 0.0, 3e38], np.float32)]
    return out


@pytest.mark.parametrize("array", _arrays(), ids=lambda a: f"n{a.size}")
def test_quartiles_equal_numpy_percentiles(array: np.ndarray) -> None:
    assert quartiles(array) == tuple(float(v) for v in np.percentile(array.astype(np.float64), [25, 50, 75]))


def test_order_statistics_are_the_sorted_values_at_every_rank() -> None:
    rng = np.random.default_rng(5)
    values = (rng.normal(size=3_001) * rng.choice([1e-3, 1.0, 1e3], size=3_001)).astype(np.float32)
    ranks = list(range(0, values.size, 7))
    got = order_statistics(values, ranks)
    assert [got[r] for r in ranks] == list(np.sort(values)[ranks])


def test_order_statistics_of_non_finite_values_sort_as_numpy_does() -> None:
    values = np.array([3.0, np.nan, -1.0, np.inf, 0.5], np.float32)
    got = order_statistics(values, [0, 1, 2, 3])
    assert [got[r] for r in range(4)] == [-1.0, 0.5, 3.0, np.inf]


def test_integer_arrays_are_ranked_by_value() -> None:
    values = np.array([9, -4, 7, 7, 0, 12], np.int64)
    assert quartiles(values) == tuple(float(v) for v in np.percentile(values, [25, 50, 75]))


def test_the_analysis_restores_opencvs_thread_count() -> None:
    before = cv2.getNumThreads()
    cv2.setNumThreads(2)
    try:
        measure(REPO / "datasets" / "clips" / "gen_cut.mp4", ProbeOptions())
        assert cv2.getNumThreads() == 2
    finally:
        cv2.setNumThreads(before)
