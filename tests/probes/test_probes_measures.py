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


def _planes(seed: int, shape: tuple[int, ...]) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, size=shape).astype(np.uint8)


@pytest.mark.parametrize("seed", range(6))
def test_the_chroma_means_equal_numpys_mean_of_the_int16_differences(seed: int) -> None:
    from reeljudge.probes.signals import _mean_abs_difference

    uv, previous = _planes(seed, (2, 64, 114)), _planes(seed + 100, (2, 64, 114))
    neutral = np.full_like(uv, 128)
    assert _mean_abs_difference(uv, neutral) == float(np.abs(uv.astype(np.int16) - 128).mean())
    assert _mean_abs_difference(uv, previous) == float(np.abs(uv.astype(np.int16) - previous).mean())


@pytest.mark.parametrize("seed", range(6))
def test_difference_stats_equal_numpys_median_and_deviations(seed: int) -> None:
    from reeljudge.probes.measures import difference_stats

    first, second = _planes(seed, (112, 211)), _planes(seed + 50, (112, 211))
    if seed % 2:  # mostly alike, as a shifted pair is, with an odd count (a whole median) or an even one
        second = cv2.add(first, _planes(seed + 7, (112, 211)) // 40)
    d = first.astype(np.float64) - second
    median = float(np.median(d))
    assert difference_stats(first, second) == (median, float(np.abs(d - median).mean()), float(np.median(np.abs(d - median))))


def test_the_correlated_shift_reads_a_known_move_as_the_real_output_inverse_does() -> None:
    from reeljudge.probes.shift import ShiftMeter, _fraction, measure_shift

    rng = np.random.default_rng(8)
    world = cv2.GaussianBlur(rng.integers(0, 256, size=(300, 520)).astype(np.uint8), (0, 0), 1.5)
    meter = ShiftMeter(456, 256)
    meter.add(world[20:276, 30:486])
    moved = meter.add(world[20 + 4 : 276 + 4, 30 - 6 : 486 - 6])  # the picture moves 6 px right and 4 px up
    assert moved is not None and abs(moved.x - 6) < 0.3 and abs(moved.y + 4) < 0.3 and moved.peak > 0.5

    first, second = (meter.spectrum(world[20:276, 30:486]), meter.spectrum(world[24:280, 24:480]))
    cross = cv2.mulSpectrums(second, first, 0, conjB=True)
    cross /= (cv2.magnitude(cross[..., 0], cross[..., 1]) + 1e-9)[..., None]
    surface = cv2.idft(cross, flags=cv2.DFT_REAL_OUTPUT | cv2.DFT_SCALE)  # what measure_shift computed before
    got = measure_shift(first, second)
    _, top, _, (px, py) = cv2.minMaxLoc(surface)
    h, w = surface.shape
    xs, ys = [surface[py, (px + d) % w] for d in (-1, 0, 1)], [surface[(py + d) % h, px] for d in (-1, 0, 1)]
    x, y = (px if px <= w // 2 else px - w) + _fraction(*xs), (py if py <= h // 2 else py - h) + _fraction(*ys)
    assert (got.x, got.y, got.peak) == pytest.approx((2 * x, 2 * y, sum(xs) + sum(ys) - top), abs=1e-4)
    assert abs(got.x - 6) < 0.3 and abs(got.y + 4) < 0.3
