"""Off-topic never passes (issue 27): ``min_relevance`` on the offline judge, and its cap on a list
holding a term it reads as unrelated (the Gemini path is in test_filmability_gemini.py)."""

from __future__ import annotations

import json

from reeljudge.assertions.filmability import get_assert
from reeljudge.filmability.judge_local import judge_terms_locally
from reeljudge.filmability.relevance import TermRelevance, list_level

TEACHER = "A good teacher notices when a student is falling behind."
UNRELATED = ["fishing boat", "car engine", "mountain lake"]
WHALES = "Humpback whales travel thousands of miles to warmer waters each winter."


def _ctx(narration: str, **config) -> dict:
    return {"vars": {"narration": narration}, "config": {"judge": "local", "findability": "off", **config},
            "test": {"description": "off-topic"}}


def _reading(level: int) -> TermRelevance:
    return TermRelevance(f"t{level}", level, "", 0.0, 0.0, 0.0, None, 0.0, 0.0, 0.0, "")


def test_an_unrelated_list_fails_offline_with_the_reason(model) -> None:
    result = get_assert(json.dumps(UNRELATED), _ctx(TEACHER))
    # the table alone: relevance 0 + filmability 3 + variety 1 = 4 points → 0.8, which passed before
    assert result["score"] == 0.8 and result["pass"] is False
    assert "relevance 0/3 is under min_relevance 1" in result["reason"]
    assert result["metadata"]["relevance_short"] is True


def test_min_relevance_0_restores_the_table_alone_offline(model) -> None:
    result = get_assert(json.dumps(UNRELATED), _ctx(TEACHER, min_relevance=0))
    assert result["score"] == 0.8 and result["pass"] is True and "min_relevance" not in result["reason"]


def test_one_unrelated_term_caps_the_list_below_direct() -> None:
    assert list_level([_reading(3), _reading(3), _reading(3)]) == 3
    assert list_level([_reading(3), _reading(3), _reading(3), _reading(0)]) == 2  # was 3: half the terms reach 3
    assert list_level([_reading(2), _reading(1), _reading(0)]) == 1  # below the cap: unchanged
    assert list_level([_reading(3), _reading(3), _reading(1)]) == 3  # a loose term is not an unrelated one


def test_the_offline_reason_says_the_cap_applied(model) -> None:
    j = judge_terms_locally(WHALES, ["food chain", "ocean temperature", "migration route", "whale tail"])
    assert j.breakdown.relevance == 2  # the labelled set says 1; it read 3 before the cap
    assert j.breakdown.criterion_reasons["relevance"].startswith("a term is unrelated (food chain), so the list is at most generally related → 2/3")
