"""What a Gecko result carries beside its scores: questions skipped by DSG's rule, the answer letters, the bias flag.

``metadata.answer_letters`` = ``{"judge": {letter: n}, "truth": {letter: n}}`` over this result's
kept questions as asked (``reeljudge gecko report`` adds them up per suite). ``metadata.letter_bias``
is the check over the judge's tally (``letter_tally``); when it flags, ``metadata.letter_bias_flag``
says so in one line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from reeljudge.gecko.pipeline import GeckoOutcome
    from reeljudge.gecko.scoring import GeckoScore, QuestionOutcome

ANSWER_LETTERS = "answer_letters"
LETTER_BIAS = "letter_bias"


def skip_reason(outcome: QuestionOutcome) -> str | None:
    """``skipped: parent <n> failed`` for a question DSG's rule zeroed, else None."""
    return None if outcome.skipped_by is None else f"skipped: parent {outcome.skipped_by} failed"


def dependency_metadata(score: GeckoScore) -> dict[str, Any]:
    """The question graph used and the questions it zeroed, with their own (unused) verdicts."""
    return {
        "dependencies": {str(o.number): o.parents for o in score.outcomes if o.parents},
        "questions_skipped": [
            {"number": o.number, "question": o.question.question, "why": skip_reason(o), "parent": o.skipped_by,
             "verdict": o.verdict, "ground_truth": o.question.answer}
            for o in score.outcomes if o.skipped_by is not None
        ],
    }


def letter_metadata(outcome: GeckoOutcome) -> dict[str, Any]:
    """This result's answer letters and the bias check over the judge's tally (flag line when flagged)."""
    meta: dict[str, Any] = {ANSWER_LETTERS: outcome.answer_letters, LETTER_BIAS: outcome.letter_bias}
    if outcome.letter_bias.get("flagged"):
        meta["letter_bias_flag"] = f"answer-letter bias: {outcome.letter_bias['summary']} ({outcome.letter_bias['scope']})"
    return meta
