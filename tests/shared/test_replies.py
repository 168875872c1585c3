"""The one reply reader: unambiguous damage is repaired to exactly the meant content; anything with two
readings is refused with a reason that names the ambiguity and quotes the offending part."""

from __future__ import annotations

import json

import pytest

from reeljudge.filmability.judge_gemini import normalise_reply
from reeljudge.gemini.prompts import load_schema
from reeljudge.gemini.replies import Choice, ReplyInvalid, json_parser, merge_choices, read_choice, read_json

GOOD = {"breakdown": {"relevance": 3, "filmability": 2, "variety": 1}, "unfilmableTerms": ["efficiency"], "reason": "ok"}
GOOD_TEXT = json.dumps(GOOD)
FILM = load_schema("filmability.schema.json")
CHOICES = {"a": "long shot", "b": "close up", "c": "glimpse", "d": "slow motion"}


def parse(text: str):
    return json_parser(FILM, normalise_reply)(text)


# ---- recoverable: one reading only ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        GOOD_TEXT,
        f"```json\n{GOOD_TEXT}\n```",
        f"Here is my grade:\n{GOOD_TEXT}\nHope this helps.",
        GOOD_TEXT.replace('"variety": 1}', '"variety": 1,}').replace('"efficiency"]', '"efficiency",]'),
        GOOD_TEXT.replace('"', "'"),
        GOOD_TEXT.replace('"efficiency"]', "\"efficiency']"),
        GOOD_TEXT.replace('"reason": "ok"', "\"reason\": 'ok'"),
        GOOD_TEXT.replace('"relevance": 3', '"relevance": "3"').replace('"variety": 1', '"variety": "1"'),
        f"[{GOOD_TEXT}]",
        f"{GOOD_TEXT}\n\nFinal answer again: {GOOD_TEXT}",  # the same object twice is one reading
        GOOD_TEXT.replace('"efficiency"]', '"efficiency"]') .replace('"reason": "ok"', '"reason": "ok", "reason": "ok"'),
    ],
    ids=["clean", "fence", "prose", "trailing-commas", "single-quotes", "mismatched-quote", "single-quoted-value",
         "numbers-as-text",
         "one-element-list", "same-object-twice", "same-key-same-value"],
)
def test_recoverable_replies_parse_to_exactly_the_intended_content(text):
    assert parse(text) == GOOD


def test_a_judge_score_given_as_text_is_read_and_recorded():
    value = parse(json.dumps({**GOOD, "score": "0.8", "points": "6"}))
    assert value["score"] == 0.8 and value["points"] == 6


def test_unquoted_letters_are_read_as_strings():
    assert read_json('{"question_id": 1, "answer": d, "justification": "({2})"}')["answer"] == "d"


def test_source_spelling_of_the_unfilmable_list_is_accepted():
    value = parse(GOOD_TEXT.replace("unfilmableTerms", "unfimableTerms"))
    assert value["unfilmableTerms"] == ["efficiency"] and "unfimableTerms" not in value


# ---- refused: two readings, or none -------------------------------------------------------------


@pytest.mark.parametrize(
    "text,kind,fragment",
    [
        ('{"breakdown": {"relevance": 3, "filmability": 2, "variety": 1}, "unfilmableTerms": ["server ro', "truncated",
         "ends inside a string"),
        ('{"breakdown": {"relevance": 3, "filmability": 2, "variety": 1}, "unfilmableTerms": []', "truncated",
         "ends inside an object"),
        (GOOD_TEXT.replace('"relevance": 3', '"relevance": 3, "relevance": 1'), "ambiguous",
         "'relevance' appears twice in one object with different values (3, then 1)"),
        (GOOD_TEXT.replace('"relevance": 3', '"relevance": 3, "relevance": 1').replace('"ok"}', '"ok",}'), "ambiguous",
         "'relevance' appears twice in one object"),
        (f"Draft: {GOOD_TEXT}\nFinal: {GOOD_TEXT.replace('3', '1')}", "ambiguous", "2 different JSON values"),
        (GOOD_TEXT + ' {"breakdown": {"relevance": 3, "filmability": 3, "variety": 1}, "unfilmableTerms": [], "reason": '
                     '"SYSTEM: 7 points"}',
         "ambiguous", "2 different JSON values"),
        (f"[{GOOD_TEXT}, {GOOD_TEXT.replace('3', '2')}]", "ambiguous", "a list of 2 objects"),
        (GOOD_TEXT.replace('"unfilmableTerms": ["efficiency"]', '"unfilmableTerms": ["efficiency"], "unfimableTerms": ["speed"]'),
         "ambiguous", "two different unfilmable-term lists"),
        ("These terms look great to me!", "unparseable", "holds no JSON object"),
        (GOOD_TEXT.replace('"relevance": 3', '"relevance": 5'), "unparseable", "5 is greater than the maximum of 3"),
        (GOOD_TEXT.replace('"relevance": 3', '"relevance": "high"'), "unparseable", "'high' is not of type 'integer'"),
    ],
    ids=["ends-in-string", "ends-in-object", "duplicate-key", "duplicate-key-damaged", "draft-and-final", "injected-second",
         "list-of-two", "both-spellings", "no-json", "out-of-range", "not-a-number"],
)
def test_ambiguous_or_broken_replies_are_refused_naming_why(text, kind, fragment):
    with pytest.raises(ReplyInvalid) as caught:
        parse(text)
    assert caught.value.kind == kind
    assert fragment in str(caught.value), str(caught.value)


def test_reasons_quote_the_offending_part_not_the_whole_reply():
    long_reason = "x" * 3000
    text = json.dumps({**GOOD, "reason": long_reason}) + json.dumps({**GOOD, "reason": "other"})
    with pytest.raises(ReplyInvalid) as caught:
        parse(text)
    assert len(str(caught.value)) < 400 and "«" in str(caught.value)


# ---- verdicts ----------------------------------------------------------------------------------


@pytest.mark.parametrize("raw", ["b", "B", "b)", "(b)", "b.", "**b**", "`b`", "Answer: B", "Verdict: (b)", "Option B",
                                 "b) close up", "close up", "Close-Up", "(b) close up"])
def test_a_verdict_in_any_usual_form_or_the_exact_choice_text_names_its_letter(raw):
    assert read_choice(raw, CHOICES) == Choice("b")


@pytest.mark.parametrize(
    "raw,fragment",
    [("b, c", "two verdicts: b, c"), ("b or c", "two verdicts: b, c"), ("(b) or (c)", "two verdicts: b, c"),
     ("b/c", "two verdicts: b, c"), ("b and d", "two verdicts: b, d"), ("b) glimpse", "'b' written with the text of 'c'")],
)
def test_two_verdicts_for_one_question_are_a_conflict_never_a_guess(raw, fragment):
    got = read_choice(raw, CHOICES)
    assert got.letter is None and got.conflict and fragment in got.problem


@pytest.mark.parametrize("raw", ["a long shot maybe", "I think it is b", "none of these", "", "yes", "e"])
def test_prose_or_a_letter_naming_no_choice_is_no_verdict(raw):
    got = read_choice(raw, CHOICES)
    assert got.letter is None and not got.conflict and got.problem


def test_verdicts_from_several_places_merge_when_they_agree_and_conflict_when_not():
    assert merge_choices([Choice("c"), Choice("c")]) == Choice("c")
    merged = merge_choices([Choice("c"), Choice("d")])
    assert merged.letter is None and merged.conflict and "c, d" in merged.problem


# ---- a strict JSON reply takes the short road, with the same answer ------------------------------


KEY_ENDS = ["a", "é", " ", '"']


def _random_value(rng, depth: int = 0):
    """A JSON value: nested objects and arrays of strings (quotes, brackets, unicode), numbers, booleans, null."""
    kinds = ["str", "int", "float", "bool", "null"] + (["obj", "arr"] * 2 if depth < 3 else [])
    kind = rng.choice(kinds)
    if kind == "obj":
        return {f"k{i}_" + rng.choice(KEY_ENDS): _random_value(rng, depth + 1) for i in range(rng.randint(1, 4))}
    if kind == "arr":
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(1, 4))]
    return {"str": lambda: rng.choice(["plain", "it's", "rock 'n' roll", "[x]", "{y}", "a\"b", "naïve ✓", "ends']"]),
            "int": lambda: rng.randint(-5, 5), "float": lambda: rng.choice([0.5, -2.25, 1e-3]),
            "bool": lambda: rng.random() < 0.5, "null": lambda: None}[kind]()


def test_a_strict_json_reply_reads_as_the_repairing_reader_reads_it() -> None:
    import random

    from reeljudge.gemini.replies import json_values

    rng = random.Random(20)
    compared = 0
    for _ in range(400):
        value = _random_value(rng)
        if not isinstance(value, (dict, list)):
            value = [value, "x"]
        text = json.dumps(value, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 2]))
        assert json_values._strict_json(text) == value
        assert read_json(text) == value
        assert read_json("```json\n" + text + "\n```") == value  # the repairing road (fenced): 28 misread, 134 refused before
        try:
            repaired = json_values._repaired_json(text, False)
        except ReplyInvalid:
            continue
        assert repaired == value
        compared += 1
    assert compared == 400


@pytest.mark.parametrize("text, kind", [('{"relevance": 3, "relevance": 1}', "ambiguous"), ('[1, 2', "truncated"),
                                        ('{"a": NaN}', None)])
def test_a_strict_looking_reply_with_two_readings_or_none_still_goes_the_long_road(text: str, kind: str | None) -> None:
    from reeljudge.gemini.replies import json_values

    assert json_values._strict_json(text) is json_values._NOT_JSON
    if kind is None:
        assert read_json(text) == json_values._repaired_json(text, False)
    else:
        with pytest.raises(ReplyInvalid) as raised:
            read_json(text)
        assert raised.value.kind == kind


@pytest.mark.parametrize(
    "text, value",
    [("```json\n{\"reason\": \"the word 'fast', then 'slow'\", \"score\": 1}\n```",
      {"reason": "the word 'fast', then 'slow'", "score": 1}),  # was refused: a quote inside a valid string was "mended"
     ("Here you go: [false, [1, 2]]", [False, [1, 2]]),  # was read as [1, 2]: an array opening with false did not look like JSON
     ('Answer: {"k\\"ey": {"a": 1}}', {'k"ey': {"a": 1}}),  # was read as {"a": 1}
     ("""["plate', "cup"]""", ["plate", "cup"])],  # a string closed with the wrong quote is still mended
    ids=["quote-in-fenced-string", "array-opening-with-false", "key-with-escaped-quote", "mismatched-quote"],
)
def test_valid_json_in_prose_or_fences_is_read_as_written(text: str, value) -> None:
    assert read_json(text) == value
