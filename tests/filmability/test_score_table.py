"""The scoring table and the relevance-3 cap are ours, whatever the judge says."""

import itertools

import pytest

from reeljudge.filmability.score_table import Breakdown, breakdown_from_reply, judge_disagreements, score_breakdown


@pytest.mark.parametrize(
    "r,f,v,points,score,level",
    [
        (3, 3, 1, 7, 1.0, "EXCELLENT"),
        (2, 3, 1, 6, 0.8, "GOOD"),  # the spec's closures example: 6 points but capped
        (3, 2, 1, 6, 1.0, "EXCELLENT"),
        (3, 3, 0, 6, 1.0, "EXCELLENT"),
        (2, 2, 1, 5, 0.8, "GOOD"),
        (2, 2, 0, 4, 0.8, "GOOD"),
        (1, 2, 0, 3, 0.6, "ACCEPTABLE"),
        (1, 1, 0, 2, 0.6, "ACCEPTABLE"),
        (1, 0, 0, 1, 0.3, "POOR"),  # the spec's POOR example
        (0, 0, 0, 0, 0.3, "POOR"),
    ],
)
def test_table(r, f, v, points, score, level):
    result = score_breakdown(Breakdown(r, f, v))
    assert (result.points, result.score, result.level) == (points, score, level)


def test_every_combination_is_in_a_band_and_1_0_needs_relevance_3():
    for r, f, v in itertools.product(range(4), range(4), range(2)):
        result = score_breakdown(Breakdown(r, f, v))
        assert result.score in (1.0, 0.8, 0.6, 0.3)
        assert (result.score == 1.0) == (r == 3 and r + f + v >= 6)
        assert result.capped == (r < 3 and r + f + v >= 6)


@pytest.mark.parametrize("bad", [(4, 0, 0), (0, -1, 0), (0, 0, 2)])
def test_out_of_range_criteria_are_rejected(bad):
    with pytest.raises(ValueError):
        score_breakdown(Breakdown(*bad))


def test_both_spellings_of_unfilmable_terms_are_read():
    base = {"breakdown": {"relevance": 1, "filmability": 0, "variety": 0}, "reason": "r"}
    assert breakdown_from_reply({**base, "unfimableTerms": ["efficiency"]}).unfilmable_terms == ["efficiency"]
    assert breakdown_from_reply({**base, "unfilmableTerms": ["caching"]}).unfilmable_terms == ["caching"]


def test_a_judge_whose_total_disagrees_with_its_breakdown_is_flagged():
    computed = score_breakdown(Breakdown(1, 0, 0))
    notes = judge_disagreements({"points": 7, "score": 1.0}, computed)
    assert len(notes) == 2 and "points=7" in notes[0] and "score=1.0" in notes[1]
    assert judge_disagreements({"points": 1, "score": 0.3}, computed) == []
