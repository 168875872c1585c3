"""Search terms are read from every common output shape, and bad outputs are refused clearly."""

import json

import pytest

from reeljudge.errors import BadInputError
from reeljudge.filmability.terms import parse_terms

EXPECTED = ["server room", "computer RAM", "data center lights"]


@pytest.mark.parametrize(
    "output",
    [
        json.dumps(EXPECTED),
        EXPECTED,
        {"terms": EXPECTED},
        json.dumps({"search_terms": EXPECTED}),
        json.dumps({"whatever": EXPECTED}),
        "```json\n" + json.dumps(EXPECTED) + "\n```",
        "server room, computer RAM, data center lights",
        "server room\ncomputer RAM\ndata center lights\n",
        "- server room\n- computer RAM\n- data center lights",
        "1. server room\n2) computer RAM\n3. \"data center lights\"",
        "• server room\n* computer RAM\n+ 'data center lights',",
        "server room; computer RAM; data center lights",
    ],
)
def test_every_common_shape_gives_the_same_terms(output):
    assert parse_terms(output) == EXPECTED


def test_repeats_are_kept_in_order_for_the_judge_to_flag():
    assert parse_terms(["Sunset", "sunset ", "beach", "SUNSET"]) == ["Sunset", "sunset", "beach", "SUNSET"]


def test_object_items_with_a_term_field_are_read():
    assert parse_terms([{"term": "sunset"}, {"query": "beach"}]) == ["sunset", "beach"]


@pytest.mark.parametrize("output", ["", "   ", None, "[]", "- \n- "])
def test_empty_output_is_refused_with_a_reason(output):
    with pytest.raises(BadInputError, match="no search terms"):
        parse_terms(output)


def test_object_without_a_list_is_refused_naming_its_keys():
    with pytest.raises(BadInputError, match="keys: answer"):
        parse_terms(json.dumps({"answer": 42}))


def test_two_hundred_terms_are_refused_with_the_limit_named():
    with pytest.raises(BadInputError, match="200 search terms.*at most 50"):
        parse_terms([f"term {i}" for i in range(200)])
    assert len(parse_terms([f"term {i}" for i in range(200)], max_terms=200)) == 200


def test_a_paragraph_is_not_a_term():
    with pytest.raises(BadInputError, match="longer than 120"):
        parse_terms(["x" * 300])


def test_non_english_terms_pass_through_unchanged():
    assert parse_terms("salle des serveurs, 夕焼け, Rechenzentrum") == ["salle des serveurs", "夕焼け", "Rechenzentrum"]
