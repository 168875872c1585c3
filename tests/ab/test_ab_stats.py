"""Agreement and ranking statistics against values computed by hand on small fixtures."""

from __future__ import annotations

import math

import pytest

from reeljudge.stats.agreement import (
    agreement_with_majority, cohen_kappa, fleiss_kappa, krippendorff_alpha, majority_label, pairwise_agreement,
    specific_agreement,
)
from reeljudge.stats.rankings import bradley_terry, bradley_terry_intervals, win_probability, win_rates, wilson_interval

# Two raters, ten samples: 4 both "a", 4 both "b", 2 split (a/b).
TWO = {**{f"s{i}": {"r1": "a", "r2": "a"} for i in range(4)}, **{f"s{i}": {"r1": "b", "r2": "b"} for i in range(4, 8)},
       "s8": {"r1": "a", "r2": "b"}, "s9": {"r1": "b", "r2": "a"}}
FAST = {"n_resamples": 200, "seed": 1}


def test_pairwise_agreement_pools_rater_pairs():
    assert pairwise_agreement(TWO, **FAST).rate == pytest.approx(0.8)
    three = {"u1": {"x": "a", "y": "a", "z": "b"}, "u2": {"x": "a", "y": "a"}}  # pairs: 3 (1 agrees) + 1 (agrees)
    r = pairwise_agreement(three, **FAST)
    assert (r.agree, r.pairs) == (2, 4)
    assert r.interval.low <= 0.5 <= r.interval.high


def test_cohen_kappa_by_hand():
    # po = 0.8; pe = 0.5·0.5 + 0.5·0.5 = 0.5; κ = (0.8 − 0.5) / (1 − 0.5) = 0.6
    k = cohen_kappa(TWO, "r1", "r2", ["a", "b", "tie"], **FAST)
    assert k.estimate == pytest.approx(0.6)
    assert k.low < 0.6 < k.high and k.n_units == 10


def test_cohen_kappa_unbalanced_by_hand():
    # 6 both a, 1 both b, 3 r1=a/r2=b: po = 0.7; r1 a 0.9 b 0.1; r2 a 0.6 b 0.4; pe = 0.54 + 0.04 = 0.58; κ = 0.12/0.42
    labels = {**{f"s{i}": {"r1": "a", "r2": "a"} for i in range(6)}, "s6": {"r1": "b", "r2": "b"},
              **{f"t{i}": {"r1": "a", "r2": "b"} for i in range(3)}}
    assert cohen_kappa(labels, "r1", "r2", ["a", "b"], **FAST).estimate == pytest.approx(0.12 / 0.42)


def test_fleiss_kappa_by_hand():
    # p_a = p_b = 0.5 → Pe = 0.5; P_i = 1 on 8 agreeing units, 0 on 2 → P̄ = 0.8; κ = 0.6
    assert fleiss_kappa(TWO, ["a", "b", "tie"], **FAST).estimate == pytest.approx(0.6)


def test_krippendorff_alpha_nominal_by_hand():
    # coincidences: o_aa = o_bb = 8, o_ab = o_ba = 2; n = 20, n_a = n_b = 10
    # D_o = 4/20 = 0.2; D_e = 2·10·10 / (20·19) = 0.5263; α = 1 − 0.2/0.5263 = 0.62
    assert krippendorff_alpha(TWO, "nominal", **FAST).estimate == pytest.approx(0.62)


def test_krippendorff_alpha_ordinal_by_hand():
    # values 1,1 | 2,3 | 3,3: n_1 = 2, n_2 = 1, n_3 = 3, n = 6
    # ordinal δ²(c,k) = (Σ_{g=c..k} n_g − (n_c + n_k)/2)²: δ²(1,2) = 2.25, δ²(1,3) = 12.25, δ²(2,3) = 4
    # observed Σ o·δ² = 2·4 = 8; expected Σ n_c·n_k·δ² = 2·(2·1·2.25 + 2·3·12.25 + 1·3·4) = 180
    # α = 1 − (n − 1)·8/180 = 1 − 40/180 = 0.7778 (unused values 4, 5 change nothing)
    labels = {"u1": {"r1": 1, "r2": 1}, "u2": {"r1": 2, "r2": 3}, "u3": {"r1": 3, "r2": 3}}
    assert krippendorff_alpha(labels, "ordinal", value_domain=[1, 2, 3, 4, 5], **FAST).estimate == pytest.approx(1 - 40 / 180)


def test_undefined_statistics_are_nan_not_numbers():
    same = {f"s{i}": {"r1": "a", "r2": "a"} for i in range(5)}
    assert math.isnan(krippendorff_alpha(same, "nominal", **FAST).estimate)
    assert math.isnan(cohen_kappa(same, "r1", "r2", ["a", "b"], **FAST).estimate)
    assert math.isnan(pairwise_agreement({}, **FAST).rate)


def test_specific_agreement_and_majority():
    presence = {"u1": {"x": True, "y": True}, "u2": {"x": True, "y": False}, "u3": {"x": False, "y": False}}
    assert specific_agreement(presence) == {"both": 1, "one_only": 1, "agreement": pytest.approx(2 / 3)}
    assert majority_label(["a", "a", "b"]) == "a" and majority_label(["a", "b"]) is None


def test_agreement_with_majority():
    labels = {
        "u1": {"m": "a", "h1": "a", "h2": "a"},  # agrees
        "u2": {"m": "b", "h1": "a", "h2": "a"},  # disagrees
        "u3": {"m": "a", "h1": "a", "h2": "b"},  # no majority among humans
        "u4": {"m": "tie", "h1": "b", "h2": "b"},  # disagrees (tie)
        "u5": {"h1": "a", "h2": "a"},  # not judged by m
    }
    result = agreement_with_majority(labels, "m", tie_label="tie", **FAST)
    assert (result.units, result.agree, result.no_majority) == (3, 1, 1)
    assert result.interval.estimate == pytest.approx(1 / 3)
    assert result.without_ties.rate == pytest.approx(0.5)  # u1 agrees, u2 does not


def test_wilson_interval_by_hand():
    # z = 1.959964; p = 0.75, n = 4: centre = (p + z²/2n)/(1 + z²/n); half = z·√(p(1−p)/n + z²/4n²)/(1 + z²/n)
    z, p, n = 1.959964, 0.75, 4
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low, high = wilson_interval(3, 4)
    assert (low, high) == (pytest.approx(centre - half, abs=1e-6), pytest.approx(centre + half, abs=1e-6))
    assert low == pytest.approx(0.3006, abs=1e-4)


def test_win_rates_count_a_tie_as_half():
    outcomes = [("x", "y", 1.0), ("x", "y", 0.5), ("x", "y", 0.0), ("x", "y", 1.0)]
    rates = {r.system: r for r in win_rates(outcomes)}
    assert (rates["x"].wins, rates["x"].ties, rates["x"].losses) == (2, 1, 1)
    assert rates["x"].rate == pytest.approx(2.5 / 4) and rates["y"].rate == pytest.approx(1.5 / 4)
    assert (rates["x"].low, rates["x"].high) == pytest.approx(wilson_interval(2.5, 4))


def test_bradley_terry_by_hand():
    # two systems, x wins 3 of 4: MLE s_x − s_y = ln 3 (the weak prior moves it by < 0.01)
    s = bradley_terry([("x", "y", 1.0)] * 3 + [("x", "y", 0.0)])
    assert s["x"] - s["y"] == pytest.approx(math.log(3), abs=0.01) and s["x"] + s["y"] == pytest.approx(0)
    assert win_probability(s, "x", "y") == pytest.approx(0.75, abs=0.002)
    # ties are half wins: 1 win, 2 ties, 1 loss → equal strengths
    t = bradley_terry([("x", "y", 1.0), ("x", "y", 0.5), ("y", "x", 0.5), ("y", "x", 1.0)])
    assert t["x"] == pytest.approx(t["y"], abs=1e-6)
    # a chain x > y > z (each 2 of 3) keeps the order, and x–z is about twice x–y
    chain = bradley_terry([("x", "y", 1.0), ("x", "y", 1.0), ("x", "y", 0.0), ("y", "z", 1.0), ("y", "z", 1.0), ("y", "z", 0.0)])
    assert chain["x"] > chain["y"] > chain["z"]
    assert chain["x"] - chain["z"] == pytest.approx(2 * (chain["x"] - chain["y"]), rel=0.05)


def test_bradley_terry_intervals_cover_the_estimate_and_stay_finite():
    outcomes = [("x", "y", 1.0)] * 8 + [("x", "y", 0.0)] * 2 + [("y", "z", 0.5)] * 6
    intervals = bradley_terry_intervals(outcomes, n_resamples=300, seed=3)
    for interval in intervals.values():
        assert interval.low <= interval.estimate <= interval.high and math.isfinite(interval.high)
    assert intervals["x"].low > intervals["z"].low


def test_resampled_formulas_match_the_libraries_on_random_data():
    """The vectorised resample statistics equal the library's value on the full data (weights all 1)."""
    import numpy as np

    from reeljudge.stats import agreement as ag

    rng = np.random.default_rng(4)
    labels = {f"u{i}": {r: int(rng.integers(1, 6))
                        for r in rng.choice(["r1", "r2", "r3", "r4"], size=int(rng.integers(2, 5)), replace=False)}
                        for i in range(60)}
    for level in ("nominal", "ordinal", "interval"):
        interval = ag.krippendorff_alpha(labels, level, value_domain=[1, 2, 3, 4, 5], n_resamples=50)
        data_counts = np.array([[sum(1 for v in labels[u].values() if v == c) for c in range(1, 6)] for u in labels], dtype=float)
        batch = ag._alpha_batch(data_counts, [1.0, 2.0, 3.0, 4.0, 5.0], level, np.ones((1, len(labels))))[0]
        assert batch == pytest.approx(interval.estimate, abs=1e-9), level
    pairs = rng.integers(0, 3, size=(80, 2))
    assert ag._kappa_batch(pairs, 3, np.ones((1, 80)))[0] == pytest.approx(ag._kappa_of(pairs, 3), abs=1e-12)
    table = np.array([np.bincount(rng.integers(0, 3, size=3), minlength=3) for _ in range(40)], dtype=float)
    assert ag._fleiss_batch(table, 3, np.ones((1, 40)))[0] == pytest.approx(ag._fleiss_of(table), abs=1e-12)
