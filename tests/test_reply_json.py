"""Damaged judge replies are repaired where the meaning is clear, validated, and refused otherwise."""

import pytest

from reeljudge.filmability.gemini_judge import normalise_reply
from reeljudge.gemini.client import ReplyInvalid
from reeljudge.gemini.replies import json_reply_parser, load_schema, repair_json

GOOD = {"breakdown": {"relevance": 3, "filmability": 2, "variety": 1}, "unfilmableTerms": ["efficiency"], "reason": "ok"}


@pytest.mark.parametrize(
    "text",
    [
        '{"breakdown": {"relevance": 3, "filmability": 2, "variety": 1}, "unfilmableTerms": ["efficiency"], "reason": "ok"}',
        '```json\n{"breakdown": {"relevance": 3, "filmability": 2, "variety": 1}, "unfilmableTerms": ["efficiency"], "reason": "ok"}\n```',
        'Here is my grade:\n{"breakdown": {"relevance": 3, "filmability": 2, "variety": 1}, "unfilmableTerms": ["efficiency"], "reason": "ok"}',
        '{"breakdown": {"relevance": 3, "filmability": 2, "variety": 1,}, "unfilmableTerms": ["efficiency",], "reason": "ok",}',
        "{'breakdown': {'relevance': 3, 'filmability': 2, 'variety': 1}, 'unfilmableTerms': ['efficiency'], 'reason': 'ok'}",
        '{"breakdown": {"relevance": 3, "filmability": 2, "variety": 1}, "unfilmableTerms": ["efficiency\'], "reason": "ok"}',
    ],
)
def test_common_damage_is_repaired(text):
    assert repair_json(text) == GOOD


def test_unquoted_letter_answers_are_read_as_strings():
    assert repair_json('{"question_id": 1, "answer": d, "justification": "({2})"}')["answer"] == "d"


def test_source_spelling_is_accepted_by_the_filmability_parser():
    parse = json_reply_parser(load_schema("filmability.schema.json"), normalise_reply)
    value = parse('{"breakdown": {"relevance": 1, "filmability": 0, "variety": 0}, "unfimableTerms": ["caching"], "reason": "r"}')
    assert value["unfilmableTerms"] == ["caching"]


@pytest.mark.parametrize(
    "text,fragment",
    [
        ("I think these terms are fine.", "no JSON"),
        ('{"breakdown": {"relevance": 5, "filmability": 2, "variety": 1}, "unfilmableTerms": [], "reason": "r"}', "relevance"),
        ('{"breakdown": {"relevance": 3, "filmability": 2}, "unfilmableTerms": [], "reason": "r"}', "variety"),
        ('{"breakdown": {"relevance": "high", "filmability": 2, "variety": 1}, "unfilmableTerms": [], "reason": "r"}', "integer"),
    ],
)
def test_invalid_replies_raise_with_the_problem_named(text, fragment):
    parse = json_reply_parser(load_schema("filmability.schema.json"), normalise_reply)
    with pytest.raises(ReplyInvalid, match=fragment):
        parse(text)
