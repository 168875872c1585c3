"""Validity filter, verdict parsing and scoring: drops with reasons, verdict formats, missing and
misnumbered verdicts, coverage, probability scoring from scripted log-probabilities."""

from __future__ import annotations

import math

import pytest

from support.fake_gemini import json_reply, text_reply
from reeljudge.assertions.gecko import get_assert
from reeljudge.gecko.questions import Question
from reeljudge.gecko.question_gen import USER_MARKER as GEN
from reeljudge.gecko.scoring import score_verdicts
from reeljudge.gecko.validity import USER_MARKER as FILTER, drop_malformed
from reeljudge.gecko.vqa import parse_verdicts
from reeljudge.gemini.replies import ReplyInvalid
from support.paths import ROOT

CLIP = str(ROOT / "datasets" / "clips" / "gen_clean.mp4")
PROMPT = "A red kite over a green meadow"
VQA = "Answer every question"

RUBRIC = {
    "keywords": "A {1}[red, color, 1.0] {2}[kite, object, 1.0] {3}[over a green meadow, scene, 1.0]",
    "qas": [
        {"question_id": 1, "question": "What colour is the kite?", "choices": ["a) blue", "b) red", "c) yellow", "d) green"],
         "justification": "({1})", "answer": "b"},
        {"question_id": 2, "question": "What flies in the sky?", "choices": ["a) kite", "b) balloon", "c) bird", "d) drone"],
         "justification": "({2})", "answer": "a"},
        {"question_id": 3, "question": "Where is it?", "choices": ["a) beach", "b) city", "c) meadow", "d) lake"],
         "justification": "({3})", "answer": "c"},
        {"question_id": 4, "question": "What colour is the kite?", "choices": ["a) blue", "b) red"],
         "justification": "({1})", "answer": "b"},
        {"question_id": 5, "question": "Is it windy?", "choices": ["a) yes"], "justification": "", "answer": "a"},
        {"question_id": 6, "question": "What is the kite's tail?", "choices": ["a) ribbon", "b) ribbon", "c) string"],
         "justification": "", "answer": "a"},
        {"question_id": 7, "question": "How many kites?", "choices": ["a) one", "b) two"], "justification": "", "answer": "d"},
    ],
}
QS = [Question(q["question"], q["choices"], q["answer"], tag=t) for q, t in zip(RUBRIC["qas"][:3], ["color", "object", "scene"])]


def blocks(*items):
    return "\n".join(f"<question>\nNumber: {n}\nQuestion: {q}\nVerdict: {v}\n</question>" for n, q, v in items)


#: these verdicts are written for the choices in the generator's order
ORDER = {"shuffle_choices": False}


def ctx(**config):
    return {"vars": {"prompt": PROMPT, "video": CLIP}, "config": {**ORDER, **config}, "test": {"description": "kite"}}


def test_shape_checks_drop_duplicates_too_few_and_repeated_choices_and_bad_answers():
    from reeljudge.gecko.question_gen import questions_from_reply

    question_set = drop_malformed(questions_from_reply(PROMPT, RUBRIC))
    assert [q.question_id for q in question_set.kept] == [1, 2, 3]
    checks = {d.question.question_id: d.check for d in question_set.dropped}
    assert checks == {4: "duplicate_question", 5: "too_few_choices", 6: "duplicate_choices", 7: "answer_not_a_choice"}


def test_filter_drops_what_the_prompt_alone_does_not_answer_and_says_why(gemini_env):
    gemini_env.on(GEN, json_reply(RUBRIC))
    gemini_env.on(FILTER,
                  json_reply({"answers": [{"number": 1, "answer": "b"}, {"number": 2, "answer": "b"},
                                          {"number": 3, "answer": "none"}]}))
    gemini_env.on(VQA, text_reply(blocks((1, QS[0].question, "b"))))
    result = get_assert(CLIP, ctx())
    dropped = {d["question"]: (d["dropped_by"], d["why"]) for d in result["metadata"]["questions_dropped"]}
    assert dropped["What flies in the sky?"][0] == "answer_differs" and "'b'" in dropped["What flies in the sky?"][1]
    assert dropped["Where is it?"][0] == "not_supported_by_prompt"
    assert len(dropped) == 6 and result["metadata"]["questions_kept"] == 1
    assert result["pass"] is True and result["namedScores"] == {"gecko": 1.0, "gecko_coverage": 1.0, "gecko_color": 1.0}
    filter_call = next(c for c in gemini_env.calls() if FILTER in c.text)
    assert "What colour is the kite?" in filter_call.text and "How many kites?" not in filter_call.text  # malformed never asked
    assert [q["status"] for q in result["metadata"]["questions"]].count("dropped") == 6


def test_all_questions_dropped_fails_with_the_reasons(gemini_env):
    gemini_env.on(GEN, json_reply(RUBRIC))
    gemini_env.on(FILTER, json_reply({"answers": [{"number": n, "answer": "none"} for n in (1, 2, 3)]}))
    result = get_assert(CLIP, ctx())
    assert (result["pass"] is False and "all_questions_dropped" in result["reason"]
            and "What colour is the kite?" in result["reason"])
    assert not any(VQA in c.text for c in gemini_env.calls())


def test_filter_off_makes_no_filter_call(gemini_env):
    gemini_env.on(GEN, json_reply(RUBRIC))
    gemini_env.on(VQA, text_reply(blocks(*[(n, q.question, q.answer) for n, q in enumerate(QS, 1)])))
    result = get_assert(CLIP, ctx(validity_filter=False))
    assert result["pass"] is True and result["metadata"]["questions_kept"] == 3
    assert not any(FILTER in c.text for c in gemini_env.calls()) and len(gemini_env.calls()) == 2


def test_missing_and_unreadable_verdicts_are_unanswered_and_lower_coverage():
    text = blocks((1, QS[0].question, "b"), (3, QS[2].question, "probably a meadow"))
    parsed = parse_verdicts(text, QS)
    score = score_verdicts(QS, parsed["verdicts"])
    assert [o.verdict for o in score.outcomes] == ["b", None, None]
    assert score.score == pytest.approx(1 / 3) and score.coverage == pytest.approx(1 / 3)
    assert score.per_tag == {"color": 1.0, "object": 0.0, "scene": 0.0}


def test_wrong_question_numbers_fall_back_to_the_question_text():
    text = blocks((2, QS[0].question, "b"), (7, QS[1].question, "a"), (3, QS[2].question, "d"))
    verdicts = parse_verdicts(text, QS)["verdicts"]
    assert verdicts["1"]["letter"] == "b" and verdicts["1"]["matched_by"].startswith("question text")
    assert verdicts["2"]["letter"] == "a" and verdicts["2"]["matched_by"] == "question text"
    assert verdicts["3"]["letter"] == "d" and verdicts["3"]["matched_by"] == "number"


def test_numbered_lines_without_blocks_still_parse():
    text = "1. Question: What colour is the kite? Verdict: b\n2. Question: What flies in the sky? Verdict: (a)\n"
    verdicts = parse_verdicts(text, QS)["verdicts"]
    assert verdicts["1"]["letter"] == "b" and verdicts["2"]["letter"] == "a" and "3" not in verdicts


def test_a_letter_that_is_not_a_choice_is_unanswered():
    verdicts = parse_verdicts(blocks((1, QS[0].question, "e"), (2, QS[1].question, "a")), QS)["verdicts"]
    assert verdicts["1"]["letter"] is None and "names no choice" in verdicts["1"]["note"]


def test_no_readable_verdict_at_all_is_invalid():
    with pytest.raises(ReplyInvalid):
        parse_verdicts("The video shows a kite.", QS)


def _declared(qs):
    return [{"question": q.question, "choices": q.choices, "answer": q.answer, "tag": q.tag} for q in qs]


def test_vqa_without_readable_verdicts_is_retried_then_fails(gemini_env):
    gemini_env.on(VQA, text_reply("It is a nice video."))
    result = get_assert(CLIP, {"vars": {"prompt": PROMPT, "video": CLIP, "qas": _declared(QS)}, "config": ORDER})
    assert result["pass"] is False and "unparseable" in result["reason"]
    assert len(gemini_env.calls()) == 2


def test_low_coverage_fails_even_when_the_answered_questions_are_right(gemini_env):
    gemini_env.on(VQA, text_reply(blocks((1, QS[0].question, "b"))))
    result = get_assert(CLIP,
                        {"vars": {"prompt": PROMPT, "video": CLIP, "qas": _declared(QS)}, "config": {**ORDER, "threshold": 0.3}})
    assert result["score"] == pytest.approx(1 / 3) and result["namedScores"]["gecko_coverage"] == pytest.approx(1 / 3)
    assert result["pass"] is False and "below min_coverage" in result["reason"]


def _logprobs_reply(questions, letters, probs):
    """A reply whose tokens spell the blocks, with top candidates at each verdict letter."""
    chosen, top = [], []
    for n, (q, letter, p) in enumerate(zip(questions, letters, probs), 1):
        head = f"<question>\nNumber: {n}\nQuestion: {q.question}\nVerdict: "
        chosen.append({"token": head, "logProbability": 0.0})
        top.append({"candidates": [{"token": head, "logProbability": 0.0}]})
        chosen.append({"token": letter, "logProbability": math.log(p[letter])})
        top.append({"candidates": [{"token": k, "logProbability": math.log(v)} for k, v in p.items()]})
        tail = "\n</question>\n"
        chosen.append({"token": tail, "logProbability": 0.0})
        top.append({"candidates": [{"token": tail, "logProbability": 0.0}]})
    text = "".join(c["token"] for c in chosen)
    return text_reply(text, logprobs={"chosenCandidates": chosen, "topCandidates": top})


def test_probability_scoring_uses_log_probabilities_of_the_choice_letters(gemini_env):
    gemini_env.on(VQA, _logprobs_reply(QS[:2], ["b", "b"], [{"b": 0.6, "a": 0.3, "c": 0.1}, {"b": 0.5, "a": 0.25, "c": 0.25}]))
    result = get_assert(CLIP,
                        {"vars": {"prompt": PROMPT, "video": CLIP, "qas": _declared(QS[:2])},
                         "config": {**ORDER, "scoring": "probability"}})
    assert result["metadata"]["scoring"] == "probability"
    assert result["score"] == pytest.approx((0.6 + 0.25) / 2, abs=1e-6)
    body = gemini_env.calls()[0].body
    assert body["generationConfig"]["responseLogprobs"] is True


def test_probability_scoring_without_log_probabilities_falls_back_to_hard_and_says_so(gemini_env):
    gemini_env.on(VQA, text_reply(blocks((1, QS[0].question, "b"), (2, QS[1].question, "b"))))
    result = get_assert(CLIP,
                        {"vars": {"prompt": PROMPT, "video": CLIP, "qas": _declared(QS[:2])},
                         "config": {**ORDER, "scoring": "probability", "threshold": 0.4}})
    assert result["metadata"]["scoring"] == "hard" and result["score"] == 0.5
    assert "no log-probabilities" in result["reason"] and result["metadata"]["scoring_notes"]
