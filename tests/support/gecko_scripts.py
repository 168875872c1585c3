"""Scripted judge replies for the fake Gemini server: a plausible question_set, filter answers and verdicts
for any prompt, so the Gecko suite, its tests and the call-count benchmark run offline.

Not a judge: the question set is built mechanically from the prompt's words (one 4-choice question per
content word, answer letters rotating), and the verdicts are right for a matched prompt and wrong
for a counter-prompt, as a real judge should answer.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reeljudge.gemini.prompts import data_block
from reeljudge.gecko import question_gen, validity, vqa
from reeljudge.gecko.questions import Question
from reeljudge.gecko.question_gen import questions_from_reply
from reeljudge.gecko.shuffle import shuffled

if TYPE_CHECKING:
    from support.fake_gemini import MatchFunction

_STOP = set(
    "a an the of in on at to is are was were be by with and or for from as it its this that into through "
    "along behind between while their they them some few two three get caught going home high elevated".split()
)
_COLOURS = {"red", "green", "blue", "purple", "white", "black", "yellow", "grey", "gray", "orange", "pink", "brown"}
_DISTRACTORS = ["a lighthouse", "a bicycle", "a snowman", "a violin", "a tractor", "a parrot", "a teapot", "a kite"]


def content_words(prompt: str, limit: int = 5) -> list[str]:
    """Up to ``limit`` distinct content words of a prompt, in order."""
    words: list[str] = []
    for word in re.findall(r"[A-Za-z][A-Za-z'-]+", prompt):
        low = word.lower()
        if len(low) >= 4 and low not in _STOP and low not in [w.lower() for w in words]:
            words.append(word)
    return words[:limit]


def _type(word: str) -> str:
    low = word.lower()
    if low in _COLOURS:
        return "color"
    if low.endswith("ing"):
        return "action"
    if low.endswith(("ly", "ful", "ous")):
        return "attribute"
    return "entity" if low[0] in "abcdefghijklm" else "object"


def synth_generation(prompt: str) -> dict[str, Any]:
    """A generator reply (keywords + qas) for ``prompt``: one question per content word."""
    words = content_words(prompt) or ["scene"]
    annotated = prompt
    for i, word in enumerate(words, 1):
        annotated = re.sub(rf"\b{re.escape(word)}\b", f"{{{i}}}[{word}, {_type(word)}, 1.0]", annotated, count=1)
    qas = []
    for i, word in enumerate(words, 1):
        answer = "abcd"[(i - 1) % 4]
        others = [d for d in _DISTRACTORS if d != word][(i - 1) % 5 :][:3]
        options = others[:]
        options.insert("abcd".index(answer), word.lower())
        qas.append(
            {
                "question_id": i,
                "question": f"Which of these does the prompt's subject include (check {i}: {word.lower()})?",
                "choices": [f"{letter}) {text}" for letter, text in zip("abcd", options)],
                "justification": f"The description names {word.lower()} ({{{i}}}).",
                "answer": answer,
            }
        )
    return {"keywords": annotated, "qas": qas}


def kept_after_filter(prompt: str, question_set: dict[str, Any], drop_last: bool) -> list[Question]:
    """The questions the assertion will keep after the scripted filter answers."""
    questions = questions_from_reply(prompt, question_set).kept
    return questions[:-1] if drop_last and len(questions) >= 4 else questions


def filter_reply(question_set: dict[str, Any], drop_last: bool) -> dict[str, Any]:
    """Filter answers equal to the ground truth, the last one "none" when ``drop_last`` (4+ questions)."""
    qas = question_set["qas"]
    answers = [{"number": n, "answer": qa["answer"]} for n, qa in enumerate(qas, 1)]
    if drop_last and len(qas) >= 4:
        answers[-1]["answer"] = "none"
    return {"answers": answers}


def verdict_text(questions: list[Question], correct: bool | list[bool], *, shuffle: bool = True) -> str:
    """A VQA reply in the asked block format, each verdict right or wrong as told; ``shuffle``: for the
    questions as asked with ``shuffle_choices`` on (the default; shuffling is idempotent)."""
    flags = correct if isinstance(correct, list) else [correct] * len(questions)
    questions = shuffled(questions) if shuffle else questions
    blocks = []
    for n, (question, ok) in enumerate(zip(questions, flags), 1):
        letter = question.answer if ok else next(l for l in question.letters() if l != question.answer)
        blocks.append(f"<question>\nNumber: {n}\nQuestion: {question.question}\nVerdict: {letter}\n</question>")
    return "\n".join(blocks)


def generation_match(prompt: str) -> MatchFunction:
    """A fake-server matcher for the question set-generation request of ``prompt``."""
    block = data_block("description", prompt)
    return lambda body, text: question_gen.USER_MARKER in text and block in text


def filter_match(prompt: str) -> MatchFunction:
    """A fake-server matcher for the validity-filter request of ``prompt``."""
    block = data_block("description", prompt)
    return lambda body, text: validity.USER_MARKER in text and block in text


def vqa_match(questions: list[Question]) -> MatchFunction:
    """A fake-server matcher for the VQA request asking exactly ``questions``."""
    block = data_block("questions", validity.numbered_questions(questions))
    marker = vqa.USER_MARKER.split("{kind}")[0]
    return lambda body, text: marker in text and block in text


def script_prompt(fake: Any, prompt: str, *, matched: bool, drop_last: bool = True, shuffle: bool = True) -> list[Question]:
    """Register question_set, filter and verdict replies for ``prompt`` on a FakeGemini; the kept questions
    as the VQA request asks them (choices shuffled unless ``shuffle`` is false, as ``shuffle_choices``)."""
    import json

    question_set = synth_generation(prompt)
    kept = kept_after_filter(prompt, question_set, drop_last)
    kept = shuffled(kept) if shuffle else kept
    fake.on(generation_match(prompt),
            {"kind": "text", "text": json.dumps(question_set), "finish": "STOP", "usage": (300, 400), "logprobs": None})
    fake.on(filter_match(prompt),
            {"kind": "text", "text": json.dumps(filter_reply(question_set, drop_last)), "finish": "STOP",
             "usage": (350, 60), "logprobs": None})
    flags = [True] * len(kept) if matched else [i == 0 for i in range(len(kept))]
    fake.on(vqa_match(kept),
            {"kind": "text", "text": verdict_text(kept, flags, shuffle=False), "finish": "STOP",
             "usage": (1500, 120), "logprobs": None})
    return kept


LOCAL_PAIRS = Path(__file__).resolve().parents[2] / "datasets" / "gecko" / "local_pairs.yaml"


def script_local_suite(fake: Any) -> list[dict[str, Any]]:
    """Script replies for every matched and counter prompt of the local Gecko suite; its pairs."""
    import yaml

    pairs = yaml.safe_load(LOCAL_PAIRS.read_text())
    for pair in pairs:
        script_prompt(fake, pair["matched"], matched=True)
        script_prompt(fake, pair["counter"], matched=False)
    return pairs


def local_suite_env(fake_url: str, work: Path) -> dict[str, str]:
    """The environment for running the local Gecko suite against a fake server (on top of os.environ)."""
    import os

    return {
        **os.environ,
        "GEMINI_API_KEY": "test-key-not-real",
        "GOOGLE_GEMINI_BASE_URL": fake_url,
        "PROMPTFOO_CONFIG_DIR": str(work / "promptfoo"),
        "REELJUDGE_GECKO_PAIRS_REPORT": str(work / "pairs.txt"),
    }


#: Generated annotations with nested keywords, one question per keyword (question i cites {i}), and
#: which verdicts the scripted judge gets right. ``parents`` lists each question's expected parents.
NESTED: dict[str, dict[str, Any]] = {
    "two_levels": {
        "prompt": "A fat rabbit wearing a purple robe",
        "keywords": "A {1}[fat, attribute, 1.0] {2}[rabbit, entity, 1.0] {3}[wearing a {4}[purple, color, 1.0] "
                    "robe, attribute, 1.0]",
        "words": ["fat", "rabbit", "wearing a purple robe", "purple"],
        "right": [True, True, False, True],
    },
    "three_levels_two_children": {
        "prompt": "A wooden boat with a white sail on a lake",
        "keywords": "{1}[A {2}[wooden, material, 1.0] boat with {3}[a {4}[white, color, 1.0] sail, object, 1.0], entity, 1.0] on "
                    "a {5}[lake, scene, 1.0]",
        "words": ["wooden boat with a white sail", "wooden", "white sail", "white", "lake"],
        "right": [False, True, True, False, True],
    },
    "unclosed_mark": {
        "prompt": "A dog chasing a yellow ball",
        "keywords": "A {1}[dog, entity, 1.0] {2}[chasing a {3}[yellow, color, 1.0] ball",
        "words": ["dog", "chasing a yellow ball", "yellow"],
        "right": [True, False, True],
    },
}
_NESTED_DISTRACTORS = ["a lantern", "a harbour", "a violin", "a teapot", "a glacier", "a bicycle"]


def nested_generation(name: str) -> dict[str, Any]:
    """The generator reply of the ``NESTED`` scenario ``name``: question i asks about keyword {i}."""
    scenario = NESTED[name]
    qas = []
    for i, word in enumerate(scenario["words"], 1):
        answer = "abcd"[(i - 1) % 4]
        options = _NESTED_DISTRACTORS[(i - 1) % 3:][:3]
        options.insert("abcd".index(answer), word)
        qas.append({
            "question_id": i,
            "question": f"Which of these does the description show (check {i})?",
            "choices": [f"{letter}) {text}" for letter, text in zip("abcd", options)],
            "justification": f"The description names {word} ({{{i}}}).",
            "answer": answer,
        })
    return {"keywords": scenario["keywords"], "qas": qas}


def script_nested(fake: Any, name: str, *, shuffle: bool = True, verdicts: str | None = None) -> list[Question]:
    """Script generation, filter (keeps all) and verdicts (``right`` per question) for ``NESTED[name]``;
    the questions as asked (choices shuffled unless ``shuffle`` is false). ``verdicts``: this reply instead.
    """
    import json

    scenario = NESTED[name]
    question_set = nested_generation(name)
    kept = questions_from_reply(scenario["prompt"], question_set).kept
    asked = shuffled(kept) if shuffle else kept
    fake.on(generation_match(scenario["prompt"]),
            {"kind": "text", "text": json.dumps(question_set), "finish": "STOP", "usage": (300, 400), "logprobs": None})
    fake.on(filter_match(scenario["prompt"]),
            {"kind": "text", "text": json.dumps(filter_reply(question_set, False)), "finish": "STOP",
             "usage": (350, 60), "logprobs": None})
    text = verdicts if verdicts is not None else verdict_text(asked, list(scenario["right"]), shuffle=False)
    fake.on(vqa_match(asked), {"kind": "text", "text": text, "finish": "STOP", "usage": (1500, 120), "logprobs": None})
    return asked
