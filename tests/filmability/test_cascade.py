"""The offline judge's three answers (related, off-topic, unsure) and the cascade of ``judge: auto`` with Gemini:
the offline judge first, Gemini only for unsure lists and text it does not read (issue 47, items 1 and 2).
Gemini's calls are counted at the wire (the fake server)."""

import json

import pytest

from support.fake_gemini import json_reply
from reeljudge.assertions.filmability import get_assert

pytestmark = pytest.mark.usefixtures("offline_judge_data")  # judges offline: norms and bank vectors made once per run

MARATHON = "Marathon runners hit the wall around mile twenty, when their legs run out of fuel."
RELATED = ["exhausted runner slowing down", "marathon runners on a city road", "runner grabbing an energy gel",
           "mile marker sign"]  # list rank 0: related
OFF_TOPIC = ["birthday cake", "cat sleeping on a sofa", "snowy mountains"]  # list rank 108: off-topic
LOOSE = ["pasta dinner on a table", "sports drink bottles", "running shoes on a shelf"]  # list rank 14.8: loosely related
SLEEP = "Adults need seven to nine hours of sleep to stay healthy."
SLEEP_LIST = ["person sleeping in bed", "alarm clock on nightstand", "bedroom at night",
              "woman waking up stretching"]  # list rank 5.4: unsure, read as related
SPANISH = "Los corredores de maratón se quedan sin energía en el kilómetro treinta."


def ctx(narration=MARATHON, **config):
    return {"vars": {"narration": narration}, "config": config, "test": {"description": "cascade-case"}}


def gemini_says(fake, relevance=1, filmability=3, variety=1):
    fake.on("Grade these search terms", json_reply({
        "breakdown": {"relevance": relevance, "filmability": filmability, "variety": variety},
        "criterionReasons": {"relevance": "carb loading and gear relate to the race"}, "unfilmableTerms": [],
        "reason": "loosely related"}))


def test_offline_related_and_off_topic_lists_are_decided_with_no_unsure():
    related = get_assert(json.dumps(RELATED), ctx(judge="local"))
    off = get_assert(json.dumps(OFF_TOPIC), ctx(judge="local"))
    assert related["pass"] is True and related["metadata"]["offline_answer"] == "related"
    assert related["namedScores"]["film_unsure"] == 0.0
    assert off["pass"] is False and off["metadata"]["offline_answer"] == "off-topic" and off["namedScores"]["film_unsure"] == 0.0


def test_offline_unsure_fails_by_default_saying_why_and_what_settles_it():
    result = get_assert(json.dumps(LOOSE), ctx(judge="local"))
    reason = result["reason"]
    assert result["pass"] is False and result["metadata"]["offline_answer"] == "unsure", reason
    assert result["namedScores"]["film_unsure"] == 1.0
    assert reason.splitlines()[0].startswith("FAIL") and "unsure" in reason.splitlines()[0]
    assert "list rank 14.8" in reason and "between 2 and 60" in reason  # the evidence, and the band it falls in
    assert "cannot tell them apart" in reason  # why it is not enough
    assert "GEMINI_API_KEY" in reason and "unsure: pass" in reason  # what would settle it


def test_unsure_pass_scores_the_offline_reading():
    """In the band the breakdown is the offline reading (issue 35's list rule): a list under rank 13 read as related
    passes with unsure: pass, one above it stays unrelated and fails."""
    near = get_assert(json.dumps(SLEEP_LIST), ctx(SLEEP, judge="local", unsure="pass"))
    assert near["pass"] is True and near["metadata"]["offline_answer"] == "unsure", near["reason"]
    assert "scored by the offline reading, as unsure: pass asks" in near["reason"]
    assert get_assert(json.dumps(SLEEP_LIST), ctx(SLEEP, judge="local"))["pass"] is False
    far = get_assert(json.dumps(LOOSE), ctx(judge="local", unsure="pass"))
    assert far["pass"] is False and "relevance 0/3 is under min_relevance 1" in far["reason"]


def test_cascade_asks_gemini_nothing_for_lists_the_offline_judge_decides(gemini_env):
    gemini_says(gemini_env)
    related = get_assert(json.dumps(RELATED), ctx(judge="auto"))
    off = get_assert(json.dumps(OFF_TOPIC), ctx(judge="auto"))
    assert len(gemini_env.calls()) == 0
    assert related["pass"] is True and off["pass"] is False
    for result in (related, off):
        assert result["metadata"]["judge_identity"]["engine"] == "local"
        assert result["metadata"]["cascade"] == {"decided_by": "local", "gemini_asked": False}


def test_cascade_asks_gemini_once_for_an_unsure_list_and_records_both_verdicts(gemini_env):
    gemini_says(gemini_env, relevance=1)
    result = get_assert(json.dumps(LOOSE), ctx(judge="auto"))
    assert len(gemini_env.calls()) == 1
    assert result["pass"] is True and result["score"] == 0.8, result["reason"]  # Gemini's 1/3/1 = 5 points
    meta = result["metadata"]
    assert meta["judge_identity"]["engine"] == "gemini" and meta["judge"] == "gemini"
    cascade = meta["cascade"]
    assert cascade["decided_by"] == "gemini" and cascade["why"] == "unsure"
    assert cascade["offline"]["answer"] == "unsure" and cascade["offline"]["judge_identity"]["engine"] == "local"
    assert cascade["offline"]["relevance_list"]["list_rank"] == pytest.approx(14.76, abs=0.01)
    assert "the offline judge was unsure (list rank 14.76" in result["reason"] and "so Gemini decided" in result["reason"]
    assert result["namedScores"]["film_unsure"] == 1.0
    again = get_assert(json.dumps(LOOSE), ctx(judge="auto"))
    assert len(gemini_env.calls()) == 1 and again["metadata"]["cache_hit"] is True


def test_cascade_asks_gemini_for_text_the_offline_judge_does_not_read(gemini_env):
    gemini_says(gemini_env, relevance=3)
    result = get_assert(json.dumps(["corredores exhaustos", "botella de agua", "meta de la carrera"]),
                        ctx(SPANISH, judge="auto"))
    assert len(gemini_env.calls()) == 1 and result["metadata"]["judge_identity"]["engine"] == "gemini"
    assert result["metadata"]["cascade"]["why"] == "not_english" and "film_unsure" not in result["namedScores"]
    assert "the offline judge does not read it" in result["reason"]


def test_cascade_fails_when_gemini_does_not_answer_and_says_what_the_offline_judge_read(gemini_env):
    from support.fake_gemini import error_reply

    gemini_env.on("Grade these search terms", error_reply(400, "scripted refusal"))
    result = get_assert(json.dumps(LOOSE), ctx(judge="auto"))
    assert result["pass"] is False and len(gemini_env.calls()) == 1
    assert "400" in result["reason"] and "the offline judge was unsure (list rank 14.76" in result["reason"], result["reason"]
    assert "so Gemini was asked" in result["reason"]


def test_judge_gemini_is_not_a_cascade(gemini_env):
    gemini_says(gemini_env, relevance=3)
    result = get_assert(json.dumps(RELATED), ctx(judge="gemini"))
    assert len(gemini_env.calls()) == 1 and "cascade" not in result["metadata"]
