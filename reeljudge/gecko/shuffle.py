"""Choices in an order the question generator did not pick: position bias out of the ground truth.

A generator decides where the right answer goes and often leans to one letter; a judge leaning
the same way then scores well for the wrong reason. Before the VQA request each question's
choices are put in a pseudo-random order seeded by the question itself (its text and the set of
its choice texts, not their order), and the ground-truth letter moves with its choice. The same
question is therefore always asked the same way, in every run and process, so the judge cache
still hits; and two generations that differ only in choice order are asked identically.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from dataclasses import replace
from typing import Iterable

from reeljudge.gecko.questions import LETTERS, Question


def question_seed(question: Question) -> int:
    """The seed of a question's order: a hash of its text and its sorted choice texts."""
    key = json.dumps([question.question.strip(), sorted(question.choice_texts())], ensure_ascii=False)
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big")


def shuffle_choices(question: Question) -> Question:
    """The question with its choices re-ordered and re-lettered by its seed, the answer mapped along."""
    texts = question.choice_texts()
    if len(texts) > len(LETTERS):
        return question
    right = question.letters().index(question.answer) if question.answer in question.letters() else None
    order = sorted(range(len(texts)), key=lambda i: (texts[i], i))
    random.Random(question_seed(question)).shuffle(order)
    choices = [f"{LETTERS[new]}) {texts[old]}" for new, old in enumerate(order)]
    answer = LETTERS[order.index(right)] if right is not None else question.answer
    return replace(question, choices=choices, answer=answer)


def shuffled(questions: Iterable[Question]) -> list[Question]:
    """Every question with its choices shuffled (see ``shuffle_choices``)."""
    return [shuffle_choices(q) for q in questions]


def letter_counts(questions: list[Question], verdicts: Iterable[str | None]) -> dict[str, dict[str, int]]:
    """How often each choice letter is the judge's verdict and the ground truth: ``{"judge": {...}, "truth": {...}}``.

    Every letter any question offers is listed (0 when never given); unanswered verdicts are not counted.
    """
    letters = sorted({letter for q in questions for letter in q.letters()})
    judge = Counter(v for v in verdicts if v is not None)
    truth = Counter(q.answer for q in questions)
    return {"judge": {k: judge.get(k, 0) for k in letters}, "truth": {k: truth.get(k, 0) for k in letters}}
