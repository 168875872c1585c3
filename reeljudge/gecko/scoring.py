"""Gecko scores computed by our code from the verdicts: per question, per tag, overall, coverage.

Hard scoring: a question scores 1 when the verdict letter is exactly the ground-truth letter, else 0;
an unanswered question scores 0 (the notebook's convention). The score is the mean over every kept
question, and coverage = answered / kept is reported beside it so a judge that answered little
cannot pass for a bad clip. Probability scoring (the paper's): p(correct letter) / Σ p(choice
letters) at the verdict's token, from the reply's log-probabilities; where they are missing or do not
line up, the question falls back to its hard score and the reason is reported.

Dependencies (DSG's rule, ``reeljudge.gecko.dependencies``): given the question graph, a question
whose parent was not answered right (or was itself skipped) scores 0, ``skipped_by`` names that
parent, and its own verdict is kept for the record; it stays in the mean.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from reeljudge.gecko.dependencies import failed_ancestors
from reeljudge.gecko.questions import Question


@dataclass
class QuestionOutcome:
    """How one kept question fared."""

    number: int
    question: Question
    verdict: str | None
    raw: str
    matched_by: str | None
    score: float
    probability: float | None = None
    note: str | None = None
    parents: list[int] = field(default_factory=list)
    skipped_by: int | None = None  # the parent that failed, when DSG's rule zeroed this question

    @property
    def answered(self) -> bool:
        return self.verdict is not None

    @property
    def correct(self) -> bool:
        return self.verdict == self.question.answer


@dataclass
class GeckoScore:
    """The aggregate: score, coverage, per-tag means and how it was scored."""

    score: float
    coverage: float
    kept: int
    answered: int
    correct: int
    per_tag: dict[str, float]
    scoring: str
    outcomes: list[QuestionOutcome] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    skipped: int = 0


def _get(mapping: Mapping[str, Any], *names: str) -> Any:
    for name in names:
        if name in mapping:
            return mapping[name]
    return None


def token_offsets(logprobs: Mapping[str, Any]) -> tuple[str, list[int]]:
    """The text the chosen tokens spell and the start offset of each token in it."""
    chosen = _get(logprobs, "chosen_candidates", "chosenCandidates") or []
    text, starts = "", []
    for candidate in chosen:
        starts.append(len(text))
        text += str(candidate.get("token", ""))
    return text, starts


def letter_probability(logprobs: Mapping[str, Any], reply_text: str,
                       offset: int, question: Question) -> tuple[float | None, str | None]:
    """p(correct letter) / Σ p(choice letters) at the token holding the verdict at ``offset``, or (None, why)."""
    spelled, starts = token_offsets(logprobs)
    if not starts:
        return None, "the reply carried no chosen tokens"
    if spelled != reply_text:
        return None, "the log-probabilities do not line up with the reply text"
    index = max(i for i, s in enumerate(starts) if s <= offset)
    tops = _get(logprobs, "top_candidates", "topCandidates") or []
    if index >= len(tops):
        return None, "no top candidates at the verdict token"
    letters = set(question.letters())
    mass: dict[str, float] = {}
    for candidate in tops[index].get("candidates") or []:
        token = str(candidate.get("token", "")).strip().strip("()").lower()
        value = _get(candidate, "log_probability", "logProbability")
        if token in letters and value is not None:
            mass[token] = mass.get(token, 0.0) + math.exp(float(value))
    total = sum(mass.values())
    if total <= 0:
        return None, "no choice letter among the top candidates at the verdict token"
    return mass.get(question.answer, 0.0) / total, None


def score_verdicts(
    questions: list[Question],
    verdicts: Mapping[str, Mapping[str, Any]],
    *,
    scoring: str = "hard",
    logprobs: Mapping[str, Any] | None = None,
    reply_text: str = "",
    parents: Mapping[int, Sequence[int]] | None = None,
) -> GeckoScore:
    """Per-question outcomes and the aggregate for ``questions`` (numbered from 1) and parsed verdicts;
    ``parents`` (question number → parent numbers) applies DSG's rule."""
    notes: list[str] = []
    use_probability = scoring == "probability"
    if use_probability and not logprobs:
        notes.append("scoring: probability asked, but the judge returned no log-probabilities (this backend or model does not); "
                     "hard 0/1 scores used")
        use_probability = False
    outcomes = []
    fallbacks = 0
    for number, question in enumerate(questions, 1):
        verdict = verdicts.get(str(number)) or {}
        letter = verdict.get("letter")
        hard = 1.0 if letter == question.answer else 0.0
        outcome = QuestionOutcome(number, question, letter, verdict.get("raw", ""), verdict.get("matched_by"), hard,
                                  note=verdict.get("note"))
        if use_probability and letter is not None:
            p, why = letter_probability(logprobs or {}, reply_text, int(verdict.get("offset", -1)), question)
            if p is None:
                fallbacks += 1
                outcome.note = f"hard score used: {why}"
            else:
                outcome.probability, outcome.score = p, p
        outcomes.append(outcome)
    if fallbacks:
        notes.append(f"{fallbacks} question(s) scored hard 0/1: their log-probabilities could not be used")
    skipped = apply_dependencies(outcomes, parents or {})
    kept = len(outcomes)
    answered = sum(o.answered for o in outcomes)
    by_tag: dict[str, list[float]] = {}
    for outcome in outcomes:
        by_tag.setdefault(outcome.question.tag, []).append(outcome.score)
    return GeckoScore(
        score=sum(o.score for o in outcomes) / kept if kept else 0.0,
        coverage=answered / kept if kept else 0.0,
        kept=kept,
        answered=answered,
        correct=sum(o.correct and o.skipped_by is None for o in outcomes),
        per_tag={tag: sum(v) / len(v) for tag, v in sorted(by_tag.items())},
        scoring="probability" if use_probability else "hard",
        outcomes=outcomes,
        notes=notes,
        skipped=skipped,
    )


def apply_dependencies(outcomes: list[QuestionOutcome], parents: Mapping[int, Sequence[int]]) -> int:
    """Zero every outcome under a parent not answered right (DSG's rule); how many were skipped."""
    for outcome in outcomes:
        outcome.parents = list(parents.get(outcome.number, ()))
    zeroed = failed_ancestors({o.number: o.correct for o in outcomes}, parents)
    for outcome in outcomes:
        if outcome.number in zeroed:
            outcome.skipped_by, outcome.score = zeroed[outcome.number], 0.0
    return len(zeroed)
