"""QuestionSet generation: keyword tree, tags, damaged JSON from the judge, retry with the error, clear failure."""

from __future__ import annotations

import json

import pytest

from support.fake_gemini import json_reply, text_reply
from reeljudge.assertions.gecko import get_assert
from reeljudge.gecko.keywords import parse_annotation
from reeljudge.gecko.questions import Question
from reeljudge.gecko.question_gen import USER_MARKER as GEN, parse_generation_reply, questions_from_reply
from support.gecko_scripts import filter_reply, synth_generation, verdict_text
from reeljudge.gecko.tagging import assign_tag
from reeljudge.gecko.tags import TAGS, normalise_tag
from reeljudge.gecko.validity import USER_MARKER as FILTER
from reeljudge.gemini.replies import ReplyInvalid
from support.paths import ROOT

CLIP = str(ROOT / "datasets" / "clips" / "gen_clean.mp4")

# Damage copied in kind from Google's own few-shot examples (SPEC §2).
GRAPES = """Answer:
```json
{
  "keywords": "{1}[Close up, style, 1.0] of {2}[grapes, object, 1.0] {3}[on a {4}[rotating, action, 1.0] {5}[table, spatial relation, 1.0]",
  "qas": [
    {
      "question_id": 1, "question": " How is the object displayed in the video?", "choices": ["a) long shot", "b) close up", "c) glimpse", "d) slow motion"],
      "justification": "The grapes ({2}) are shown in close up ({1})."
      "answer": "b"
    },
    {
      "question_id": 2, "question": "Where are the grapes placed in the video?", "choices": ["a) table", "b) chair", "c) bowl", "d) plate'],
      "justification": "the grapes are placed on a table ({3}).",
      "answer": "a",

    },
    {
      "question_id": 3, "question": "What movement does the table follow?", "choices": ["a) it stays still", "b) it is moved to the right", "c) it is moved to the left", "d) it rotates"],
      "justification": "the table is rotating ({4}, {5}).",
      "answer": d,
    }
  ]
}
```"""  # noqa: E501 (captured output, kept verbatim)


def test_keyword_annotation_parses_nested_marks_into_a_tree():
    a = parse_annotation("A {1}[fat, attribute, 1.0] {2}[rabbit, entity, 1.0] {3}[wearing a {4}[purple, color, 0.5] "
                         "robe, attribute, 1.0]")
    assert a.text == "A fat rabbit wearing a purple robe"
    assert [k.id for k in a.roots] == [1, 2, 3]
    robe = a.by_id[3]
    assert robe.phrase == "wearing a purple robe" and [c.id for c in robe.children] == [4]
    assert a.by_id[4].parent_id == 3 and a.by_id[4].weight == 0.5 and a.by_id[4].tag == "color"
    assert a.problems == []


def test_unclosed_mark_and_missing_weight_are_repaired_and_reported():
    a = parse_annotation("{1}[Close up, style] of {2}[grapes, object, 1.0] {3}[on a {4}[rotating, action, 1.0] table")
    assert a.by_id[1].weight == 1.0 and a.by_id[1].tag == "style"
    assert a.by_id[3].phrase == "on a rotating table" and a.by_id[3].type == "other"
    assert len(a.problems) == 2 and any("never closed" in p for p in a.problems)


@pytest.mark.parametrize(
    "raw, tag",
    [("spatial relation", "spatial"), ("temporal relation", "temporal"), ("Colour", "color"), ("activity", "action"),
     ("counting", "counting"), ("location", "scene"), ("style", "style"), ("material", "material"), ("banana", "other")],
)
def test_keyword_types_normalise_to_the_fixed_vocabulary(raw, tag):
    assert normalise_tag(raw) == tag and tag in TAGS


def test_damaged_notebook_style_reply_is_repaired_and_tagged_from_citations():
    value = parse_generation_reply(GRAPES)
    question_set = questions_from_reply("Close up of grapes on a rotating table", value)
    got = [(q.answer, q.tag, q.tag_source) for q in question_set.kept]
    # q1 cites {2} and {1}: the correct choice "close up" picks {1}; q2 cites the unclosed {3}: its nested
    # {5} "table" matches the answer; q3 cites {4},{5}: "it rotates" matches {4} "rotating".
    assert got == [("b", "style", "cited {1}"), ("a", "spatial", "cited {5}"), ("d", "action", "cited {4}")]
    assert question_set.annotation_problems  # the unclosed {3} is reported


@pytest.mark.parametrize(
    "damage",
    [
        lambda s: s.replace('"answer": "c"', '"answer": c'),
        lambda s: s.replace('"d) autumn"]', "\"d) autumn']"),
        lambda s: s.replace('"answer": "c"}', '"answer": "c",}'),
        lambda s: "Here is the question_set:\n```json\n" + s + "\n```",
        lambda s: s.replace('"answer": "c"', '"answer": "C"'),
        lambda s: s.replace('"answer": "c"', '"answer": "(c)"'),
        lambda s: s.replace('"question_id": 1', '"question_id": "1"'),
    ],
    ids=["unquoted-letter", "mismatched-quote", "trailing-comma", "fenced-with-prose", "uppercase", "parenthesised", "string-id"],
)
def test_each_damaged_variant_parses_to_the_same_rubric(damage):
    clean = {"keywords": "{1}[winter, temporal relation, 1.0] scene", "qas": [
        {"question_id": 1, "question": "Which season is it?", "choices": ["a) spring", "b) summer", "c) winter", "d) autumn"],
         "justification": "({1})", "answer": "c"}]}
    text = json.dumps(clean)
    damaged = damage(text)
    assert damaged != text
    value = parse_generation_reply(damaged)
    assert value["qas"][0]["answer"] == "c" and value["qas"][0]["question_id"] == 1


def test_reply_without_keyword_marks_or_questions_is_invalid():
    with pytest.raises(ReplyInvalid, match="marks"):
        parse_generation_reply(json.dumps({"keywords": "no marks here",
                                           "qas": [{"question": "q?", "choices": ["a) x", "b) y"], "answer": "a"}]}))
    with pytest.raises(ReplyInvalid, match="schema"):
        parse_generation_reply(json.dumps({"keywords": "{1}[x, object, 1.0]", "qas": []}))


def test_question_citing_nothing_is_matched_to_a_keyword_else_other():
    a = parse_annotation("{1}[by Hokusai, style, 1.0] {2}[waves, scene, 1.0]")
    q = assign_tag(Question("Whose art is it like?", ["a) Utamaro", "b) Hokusai"], "b", justification="no citation"), a)
    assert (q.tag, q.tag_source) == ("style", "matched {1}")
    q = assign_tag(Question("How many birds?", ["a) one", "b) two"], "a", justification="nothing"), a)
    assert (q.tag, q.tag_source) == ("other", "none")


def test_invalid_rubric_is_retried_once_with_the_error_then_used(gemini_env):
    prompt = "A blue kite over a sandy beach"
    good = synth_generation(prompt)
    gemini_env.on(GEN, text_reply('{"keywords": "nothing marked", "qas": "oops"}'), json_reply(good))
    gemini_env.on(FILTER, json_reply(filter_reply(good, drop_last=False)))
    from reeljudge.gecko.question_gen import questions_from_reply as build

    kept = build(prompt, good).kept
    gemini_env.on("Answer every question", text_reply(verdict_text(kept, True)))
    result = get_assert(CLIP, {"vars": {"prompt": prompt, "video": CLIP}, "config": {}})
    assert result["pass"] is True, result["reason"]
    gen_calls = [c for c in gemini_env.calls() if GEN in c.text]
    assert len(gen_calls) == 2 and "could not be used" in gen_calls[1].text
    assert result["metadata"]["stages"]["generate"]["fed_back_error"]


def test_rubric_invalid_twice_fails_clearly_and_never_passes(gemini_env):
    gemini_env.on(GEN, text_reply("I cannot write questions for this."))
    result = get_assert(CLIP, {"vars": {"prompt": "A cat", "video": CLIP}, "config": {}, "test": {"description": "t1"}})
    assert result["pass"] is False and result["score"] == 0
    assert "did not judge (unparseable)" in result["reason"] and "'t1'" in result["reason"]
    assert len(gemini_env.calls()) == 2
