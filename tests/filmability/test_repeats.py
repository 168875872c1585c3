"""A list that repeats a term is flagged on both judges' paths and never reaches EXCELLENT; output that is an
error page, markup or a number is named as such (issue 47, item 3)."""

import json

import pytest

from support.fake_gemini import json_reply
from reeljudge.assertions.filmability import get_assert
from reeljudge.filmability.repeats import find_repeats
from reeljudge.filmability.terms import parse_terms
from reeljudge.errors import BadInputError

pytestmark = pytest.mark.usefixtures("offline_judge_data")  # judges offline: norms and bank vectors made once per run

REDIS = "Redis stores everything in memory, making it blazingly fast"
SAME = json.dumps(["server room", "Server rooms!", "room, server"])
ERROR_PAGE = ("<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n<body><center><h1>502 Bad Gateway</h1>"
              "</center><hr><center>nginx</center></body></html>")


def ctx(narration=REDIS, **config):
    return {"vars": {"narration": narration}, "config": config, "test": {"description": "repeat-case"}}


def test_case_punctuation_plural_and_word_order_are_one_term():
    r = find_repeats(["server room", "Server rooms!", "room, server", "the server room", "server rack", "data centers"])
    assert r.distinct == ["server room", "server rack", "data centers"] and r.count == 3
    assert "'server room' 4 times" in r.describe()


def test_parse_terms_keeps_a_repeat_for_the_judge_to_flag():
    assert parse_terms('["server room", "server room", "Server Room"]') == ["server room", "server room", "Server Room"]


EXCELLENT = ["server room", "computer RAM", "data center lights", "fast motion blur"]


def test_an_excellent_list_with_a_repeat_offline_is_capped_at_good_and_says_why():
    result = get_assert(json.dumps(EXCELLENT + ["Server rooms", "server room"]), ctx(judge="local"))
    assert result["score"] == 0.8 and result["pass"] is True, result["reason"]
    assert "'server room' 3 times" in result["reason"] and "never reaches EXCELLENT" in result["reason"]
    assert "1.0 is lowered to 0.8 GOOD" in result["reason"]
    assert result["namedScores"]["film_repeats"] == 2.0 and result["metadata"]["repeat_capped"] is True
    assert result["metadata"]["repeats"]["distinct_terms"] == 4


def test_three_identical_terms_never_reach_excellent():
    result = get_assert(json.dumps(["fast motion blur"] * 3), ctx(judge="local"))
    assert result["score"] < 1.0 and "'fast motion blur' 3 times" in result["reason"], result["reason"]


def test_repeated_terms_fail_fails_a_generator_that_repeats_itself():
    result = get_assert(SAME, ctx(judge="local", repeated_terms="fail"))
    assert result["pass"] is False and "repeated terms" in result["reason"].splitlines()[0]
    assert "repeated_terms is 'fail'" in result["reason"]


def test_a_distinct_list_is_not_flagged():
    result = get_assert(json.dumps(EXCELLENT), ctx(judge="local", repeated_terms="fail"))
    assert result["pass"] is True and result["score"] == 1.0 and result["namedScores"]["film_repeats"] == 0.0


def test_gemini_sees_the_distinct_terms_and_its_excellent_is_capped_the_same_way(gemini_env):
    gemini_env.on("Grade these search terms", json_reply({
        "breakdown": {"relevance": 3, "filmability": 3, "variety": 1}, "criterionReasons": {}, "unfilmableTerms": [],
        "reason": "fine"}))
    result = get_assert(json.dumps(["server room", "Server rooms", "computer RAM"]), ctx(judge="gemini"))
    assert result["score"] == 0.8 and result["metadata"]["repeat_capped"] is True, result["reason"]
    sent = gemini_env.calls()[-1].text
    assert "computer RAM" in sent and "Server rooms" not in sent
    failed = get_assert(json.dumps(["server room", "Server rooms", "computer RAM"]), ctx(judge="gemini", repeated_terms="fail"))
    assert failed["pass"] is False and "repeated_terms is 'fail'" in failed["reason"]


def test_the_starter_config_fails_a_generator_that_repeats_itself():
    import yaml

    from reeljudge.package_data import init_templates_folder

    starter = yaml.safe_load((init_templates_folder() / "filmability.yaml").read_text(encoding="utf-8").replace("$", "x"))
    config = starter["defaultTest"]["assert"][0]["config"]
    assert config["repeated_terms"] == "fail"


@pytest.mark.parametrize("output,named", [
    (ERROR_PAGE, "an HTML page titled '502 Bad Gateway'"),
    ("<?xml version='1.0'?><terms><t>a</t><t>b</t></terms>", "XML or other markup"),
    ("42", "a number (42)"),
    ("[1, 2, 3]", "numbers, not search terms"),
])
def test_output_that_is_a_page_markup_or_a_number_is_named(output, named):
    result = get_assert(output, ctx(judge="local"))
    assert result["pass"] is False and named in result["reason"] and "English" not in result["reason"], result["reason"]


def test_a_number_or_a_page_as_the_narration_is_named():
    result = get_assert(json.dumps(["server room"]), ctx(narration=42, judge="local"))
    assert result["pass"] is False and "var 'narration' is a number (42)" in result["reason"]
    page = get_assert(json.dumps(["server room"]), ctx(narration=ERROR_PAGE, judge="local"))
    assert "is an HTML page titled '502 Bad Gateway'" in page["reason"]


def test_parse_terms_names_an_error_page():
    with pytest.raises(BadInputError, match="HTML page"):
        parse_terms(ERROR_PAGE)
