"""The Gecko judge's question graphs and shuffled choices, through the real google-genai client against the fake server:
nested keywords make question graphs (DSG's rule), choices are shuffled by question, the answer
letters are recorded and an always-`a` judge is flagged; both options off give the recorded results.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from reeljudge.assertions.gecko import get_assert
from reeljudge.gecko.questions import Question, declared_questions
from reeljudge.gecko.shuffle import question_seed, shuffle_choices, shuffled
from support.gecko_scripts import NESTED, script_nested, verdict_text, vqa_match
from support.gecko_recorded import CLIP, RECORDED, normalised, scenario_results

# scenario → (question number → the parent named as failed), score under DSG's rule, score without it
EXPECTED = {
    "two_levels": ({4: 3}, 2 / 4, 3 / 4),
    "three_levels_two_children": ({2: 1, 3: 1, 4: 3}, 1 / 5, 3 / 5),
    "unclosed_mark": ({3: 2}, 1 / 3, 2 / 3),
}


def _ctx(prompt, **config):
    return {"vars": {"prompt": prompt, "video": CLIP}, "config": config, "test": {"description": prompt}}


def _reply(text):
    return {"kind": "text", "text": text, "finish": "STOP", "usage": (900, 50), "logprobs": None}


@pytest.mark.parametrize("name", list(NESTED))
def test_children_of_a_failed_question_are_skipped_and_named(gemini_env, name):
    skipped, with_rule, _ = EXPECTED[name]
    asked = script_nested(gemini_env, name)
    result = get_assert(CLIP, _ctx(NESTED[name]["prompt"]))
    assert result["score"] == pytest.approx(with_rule)
    kept = [q for q in result["metadata"]["questions"] if q["status"] == "kept"]
    lines = result["metadata"]["breakdown"]
    for number, meta in enumerate(kept, 1):
        line = lines[meta["name"]]
        if number in skipped:
            why = f"skipped: parent {skipped[number]} failed"
            assert meta["skipped"] == why and meta["name"].startswith(f"q{number} [") and line.startswith(why)
            assert f"{meta['name']}: {why}" in result["reason"]
            assert meta["correct"] is False and meta["score"] == 0.0
            assert meta["verdict"] == verdict_letter(asked[number - 1], NESTED[name]["right"][number - 1])  # recorded
        else:
            assert "skipped" not in meta and not line.startswith("skipped")
    listed = {q["number"]: q["why"] for q in result["metadata"]["questions_skipped"]}
    assert listed == {n: f"skipped: parent {p} failed" for n, p in skipped.items()}
    assert "because a question they depend on failed" in result["reason"]
    if name == "unclosed_mark":
        assert "{2} was never closed" in result["metadata"]["annotation_problems"][0]


def verdict_letter(question: Question, right: bool) -> str:
    return question.answer if right else next(l for l in question.letters() if l != question.answer)


@pytest.mark.parametrize("name", list(NESTED))
def test_dependencies_false_scores_every_question_alone(gemini_env, name):
    script_nested(gemini_env, name)
    result = get_assert(CLIP, _ctx(NESTED[name]["prompt"], dependencies=False))
    assert result["score"] == pytest.approx(EXPECTED[name][2])
    assert "questions_skipped" not in result["metadata"]
    assert not any("skipped" in q for q in result["metadata"]["questions"])


def test_a_declared_depends_on_is_an_explicit_parent(gemini_env):
    qas = [{"question": "Is there a kite?", "choices": ["yes", "no"], "answer": "a"},
           {"question": "What colour is the kite?", "choices": ["red", "blue", "green"], "answer": "a", "depends_on": 1},
           {"question": "Is there a meadow?", "choices": ["yes", "no"], "answer": "a"}]
    asked = shuffled(declared_questions(qas, test="t"))
    gemini_env.on(vqa_match(asked), _reply(verdict_text(asked, [False, True, True])))
    result = get_assert(CLIP,
                        {**_ctx("A red kite over a meadow"),
                         "vars": {"prompt": "A red kite over a meadow", "video": CLIP, "qas": qas}})
    assert result["score"] == pytest.approx(1 / 3)
    assert result["metadata"]["dependencies"] == {"2": [1]}
    assert result["metadata"]["questions_skipped"][0]["why"] == "skipped: parent 1 failed"


def test_both_options_off_give_the_results_recorded_before_the_change(gemini_env):
    fresh = normalised(scenario_results(gemini_env, {"dependencies": False, "shuffle_choices": False}))
    recorded = json.loads(RECORDED.read_text())
    for result in fresh.values():  # the answer-letter record is new in every result (the bias check's input)
        assert set(result["metadata"]["answer_letters"]) == {"judge", "truth"}
        for key in ("answer_letters", "letter_bias", "letter_bias_flag"):
            result["metadata"].pop(key, None)
    assert len(fresh) == len(recorded) == len(NESTED) + 2
    for result in fresh.values():  # who judged now says so: the two options off, as every judge records its verdict
        identity = result["metadata"].pop("judge_identity")  # its options; the recording named them by leaving them out
        assert identity["options"] == {"dependencies": False, "shuffle_choices": False}
    for result in recorded.values():
        result["metadata"].pop("judge_identity")
    assert {k: judged_content(v) for k, v in fresh.items()} == {k: judged_content(v) for k, v in recorded.items()}


def judged_content(result):
    """What a Gecko result says, whatever its shape: the recording has one component per question (as
    results were written before the assertion became one check); now each question is a record
    in ``metadata.questions`` and a line of ``metadata.breakdown``."""
    meta = dict(result["metadata"])
    records, lines = meta.pop("questions", None), meta.pop("breakdown", None)
    if records is None:
        records = [c["metadata"] for c in result["componentResults"]]
        lines = [c["reason"].split(": ", 1)[1] for c in result["componentResults"]]
        scores = [c["score"] for c in result["componentResults"]]
    else:
        lines, scores = [lines[q["name"]] for q in records], [q.get("score", 0.0) for q in records]
    keys = ("tag", "status", "verdict", "ground_truth", "question", "choices", "matched_by", "dropped_by")
    questions = [({k: q.get(k) for k in keys}, score, line) for q, score, line in zip(records, scores, lines)]
    assert questions, "a result with no questions proves nothing"
    return {"pass": result["pass"], "score": result["score"], "named": result.get("namedScores"),
            "verdict_line": result["reason"].split("\n")[0], "metadata": meta, "questions": questions}


def test_both_options_on_change_the_nested_scores(gemini_env):
    fresh = normalised(scenario_results(gemini_env, {}))
    recorded = json.loads(RECORDED.read_text())
    assert fresh["two_levels"]["score"] == 0.5 and recorded["two_levels"]["score"] == 0.75
    assert fresh["kite"]["score"] == recorded["kite"]["score"] == 1.0


def _question(n: int, answer: str = "a") -> Question:
    return Question(f"Which object is number {n}?", [f"a) lamp {n}", f"b) cup {n}", f"c) book {n}", f"d) shoe {n}"], answer)


def test_shuffling_is_seeded_by_the_question_idempotent_and_keeps_the_truth():
    question = _question(1, "c")
    once = shuffle_choices(question)
    assert shuffle_choices(once) == once
    assert once.answer_text() == "book 1" and sorted(once.choice_texts()) == sorted(question.choice_texts())
    reordered = Question(question.question, ["a) shoe 1", "b) book 1", "c) lamp 1", "d) cup 1"], "b")
    assert shuffle_choices(reordered).choices == once.choices  # the generator's order does not matter
    code = ("from reeljudge.gecko.questions import Question; from reeljudge.gecko.shuffle import shuffle_choices;"
            "print(shuffle_choices(Question('Which object is number 1?', ['a) lamp 1','b) cup 1','c) book 1','d) shoe "
            "1'], 'c')).choices)")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": "123"})
    assert other.stdout.strip() == str(once.choices)  # another process, another hash seed: the same order
    assert question_seed(question) != question_seed(_question(2, "c"))


def test_shuffling_spreads_a_generator_that_always_puts_the_truth_first():
    letters = [shuffle_choices(_question(n)).answer for n in range(400)]
    shares = {letter: letters.count(letter) / len(letters) for letter in "abcd"}
    assert all(0.18 < share < 0.32 for share in shares.values()), shares


def test_shuffled_requests_are_stable_across_runs_and_caches(gemini_env, tmp_path, monkeypatch):
    asked = script_nested(gemini_env, "two_levels")
    first = get_assert(CLIP, _ctx(NESTED["two_levels"]["prompt"]))
    vqa_body = gemini_env.calls()[-1].text
    assert all(f"{q.choices[0]}" in vqa_body for q in asked)
    calls = len(gemini_env.calls())
    again = get_assert(CLIP, _ctx(NESTED["two_levels"]["prompt"]))
    assert len(gemini_env.calls()) == calls and again["metadata"]["cache_hit"] is True
    monkeypatch.setenv("REELJUDGE_CACHE_DIR", str(tmp_path / "other-cache"))
    fresh = get_assert(CLIP, _ctx(NESTED["two_levels"]["prompt"]))
    assert gemini_env.calls()[-1].text == vqa_body  # a new cache asks the very same request
    assert fresh["metadata"]["stages"]["vqa"]["cache_key"] == first["metadata"]["stages"]["vqa"]["cache_key"]
    assert fresh["score"] == first["score"]
    truth = [q["ground_truth"] for q in first["metadata"]["questions"]]
    assert truth == [q.answer for q in asked]


PROMPTS = [f"A {animal} crossing a {place} beside a {thing} under {sky} weather" for animal, place, thing, sky in [
    ("heron", "bridge", "lantern", "stormy"), ("badger", "meadow", "tractor", "misty"), ("falcon", "harbour", "barrel", "sunny"),
    ("beaver", "glacier", "bicycle", "windy"), ("donkey", "orchard", "fountain", "cloudy"),
    ("walrus", "quarry", "scooter", "snowy"),
    ("magpie", "vineyard", "mailbox", "rainy"), ("lizard", "canyon", "suitcase", "foggy"),
    ("otter", "marina", "umbrella", "humid"),
]]


def _judge_suite(fake, always_a: bool) -> list[dict]:
    from support.gecko_scripts import filter_match, filter_reply, generation_match, synth_generation
    from reeljudge.gecko.question_gen import questions_from_reply

    results = []
    for prompt in PROMPTS:
        generated = synth_generation(prompt)
        asked = shuffled(questions_from_reply(prompt, generated).kept)
        fake.on(generation_match(prompt), _reply(json.dumps(generated)))
        fake.on(filter_match(prompt), _reply(json.dumps(filter_reply(generated, False))))
        text = ("\n".join(f"<question>\nNumber: {n}\nQuestion: {q.question}\nVerdict: a\n</question>" for n,
                          q in enumerate(asked, 1))
                if always_a else verdict_text(asked, True, shuffle=False))
        fake.on(vqa_match(asked), _reply(text))
        results.append(get_assert(CLIP, _ctx(prompt)))
    return results


def test_a_judge_that_always_answers_a_is_flagged(gemini_env):
    results = _judge_suite(gemini_env, always_a=True)
    first, last = results[0]["metadata"], results[-1]["metadata"]
    assert first["answer_letters"]["judge"]["a"] == 5 and sum(first["answer_letters"]["truth"].values()) == 5
    assert first["letter_bias"]["flagged"] is False  # 5 answers are no evidence yet
    assert last["letter_bias"]["flagged"] is True and last["letter_bias"]["letter"] == "a"
    assert last["letter_bias"]["judgements"] == len(PROMPTS) and last["letter_bias"]["answers"] == 5 * len(PROMPTS)
    assert "answer-letter bias" in last["letter_bias_flag"]
    truth = {k: sum(r["metadata"]["answer_letters"]["truth"][k] for r in results) for k in "abcd"}
    assert max(truth.values()) < 0.5 * sum(truth.values())  # the shuffled ground truth is spread


def test_a_fair_judge_is_not_flagged(gemini_env):
    results = _judge_suite(gemini_env, always_a=False)
    assert all(r["score"] == 1.0 for r in results)
    assert not any(r["metadata"]["letter_bias"]["flagged"] for r in results)
    assert results[-1]["metadata"]["letter_bias"]["judgements"] == len(PROMPTS)
    assert all("letter_bias_flag" not in r["metadata"] for r in results)
    again = get_assert(CLIP, _ctx(PROMPTS[0]))  # a re-run (cache hit) is not counted twice
    assert again["metadata"]["cache_hit"] is True and again["metadata"]["letter_bias"]["judgements"] == len(PROMPTS)
