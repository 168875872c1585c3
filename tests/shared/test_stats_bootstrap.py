"""The shared bootstrap: intervals cover the truth, are reproducible, and report undefined resamples."""

from __future__ import annotations

import math

import numpy as np
import pytest

from reeljudge.stats.bootstrap import bootstrap_mean, bootstrap_units


def test_mean_interval_contains_the_sample_mean_and_is_seeded():
    values = np.random.default_rng(7).normal(2.0, 1.0, 400)
    a, b = bootstrap_mean(values), bootstrap_mean(values)
    assert a == b
    assert a.low < values.mean() < a.high
    # the normal-theory half width is 1.96 * sd / sqrt(n) ~ 0.098; the bootstrap agrees within 25 %
    half = (a.high - a.low) / 2
    assert abs(half - 1.96 * values.std(ddof=1) / math.sqrt(values.size)) < 0.025


def test_constant_values_give_a_zero_width_interval():
    interval = bootstrap_mean(np.full(10, 0.3))
    assert interval.low == interval.high == interval.estimate == pytest.approx(0.3)


def test_units_bootstrap_counts_undefined_resamples():
    labels = np.array([0] * 9 + [1])

    def share_of_ones_if_any(idx: np.ndarray) -> float:
        sample = labels[idx]
        return float(sample.mean()) if sample.any() else math.nan

    interval = bootstrap_units(share_of_ones_if_any, labels.size, n_resamples=400)
    # P(no "1" drawn in 10 draws) = 0.9 ** 10 ~ 0.35
    assert 0.25 < interval.undefined_share < 0.45
    assert interval.estimate == 0.1 and interval.low >= 0.1
