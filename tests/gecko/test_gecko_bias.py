"""The answer-letter bias check: a judge that leans to one letter is flagged, a fair or small one is not."""

from __future__ import annotations

import numpy as np
import pytest

from reeljudge.gecko.bias import letter_bias, merge_counts

BALANCED = {"a": 30, "b": 30, "c": 30, "d": 30}


def test_a_judge_that_always_answers_a_on_a_balanced_truth_is_flagged():
    bias = letter_bias({"a": 120}, BALANCED)
    assert bias.flagged and bias.letter == "a"
    assert bias.judge_share == 1.0 and bias.truth_share == 0.25
    # P(X >= 120 | Bin(120, 1/4)) = 0.25 ** 120, times 4 letters
    assert bias.p_value == pytest.approx(4 * 0.25 ** 120, rel=1e-6)
    assert "BIASED towards a" in bias.text()


def test_a_fair_judge_is_not_flagged():
    # judge letters drawn from the truth's own shares (a judge that is right or wrong evenly)
    truth = {"a": 40, "b": 25, "c": 20, "d": 15}
    for seed in range(20):
        drawn = np.random.default_rng(seed).choice(list(truth), size=200, p=np.array(list(truth.values())) / 100)
        judge = {k: int((drawn == k).sum()) for k in truth}
        assert not letter_bias(judge, truth).flagged, judge


def test_a_judge_that_matches_the_truth_exactly_is_not_flagged():
    bias = letter_bias(BALANCED, BALANCED)
    assert not bias.flagged and bias.excess == 0.0 and bias.p_value == 1.0


def test_small_counts_are_not_flagged_however_lopsided():
    bias = letter_bias({"a": 12}, {"a": 3, "b": 3, "c": 3, "d": 3})
    assert bias.letter == "a" and bias.judge_share == 1.0
    assert bias.p_value < 1e-5  # lopsided, but 12 answers are below min_answers
    assert not bias.flagged
    assert letter_bias({"a": 12}, {"a": 3, "b": 3, "c": 3, "d": 3}, min_answers=10).flagged


def test_always_a_judge_on_always_a_truth_is_not_flagged():
    bias = letter_bias({"a": 500}, {"a": 500})
    assert bias.letter == "a" and not bias.flagged and bias.p_value == 1.0


def test_a_significant_but_small_lean_on_a_large_suite_is_not_flagged():
    # 20,000 answers, a leaned to 28 % against 25 %: significant (p ~ 1e-20) but only 3 points
    judge = {"a": 5600, "b": 4800, "c": 4800, "d": 4800}
    truth = {"a": 5000, "b": 5000, "c": 5000, "d": 5000}
    bias = letter_bias(judge, truth)
    assert bias.letter == "a" and bias.p_value < 1e-10 and not bias.flagged
    assert letter_bias(judge, truth, min_excess=0.02).flagged


def test_a_letter_the_truth_never_has_counts_as_over_chosen():
    bias = letter_bias({"a": 30, "b": 30, "e": 40}, {"a": 50, "b": 50})
    assert bias.flagged and bias.letter == "e" and bias.truth_share == 0.0 and bias.p_value == 0.0


def test_nothing_to_compare_is_not_flagged():
    assert letter_bias({}, BALANCED).letter is None
    assert not letter_bias({"a": 40}, {}).flagged


def test_bad_counts_are_refused_with_the_entry_named():
    with pytest.raises(ValueError, match="'a' has count -1"):
        letter_bias({"a": -1}, BALANCED)
    with pytest.raises(ValueError, match="truth letter counts: 'b' has count 2.5"):
        letter_bias(BALANCED, {"b": 2.5})


def test_counts_add_up_across_results():
    assert merge_counts([{"b": 1, "a": 2}, {"a": 3, "c": 1}]) == {"a": 5, "b": 1, "c": 1}
