"""The Gecko verdict: an outcome judged against the threshold and coverage asked for, and its reasons.

``GeckoVerdict`` (``reeljudge.score_gecko``'s result, the promptfoo adapter's input) passes when the
score reaches the threshold with enough coverage; ``reason()`` says why in one line, and
``question_line`` / ``dropped_line`` say how each question, scored or dropped, went.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reeljudge.gecko.results_extra import skip_reason

if TYPE_CHECKING:  # pragma: no cover - typing only: the verdict is read without loading the pipeline
    from reeljudge.gecko.pipeline import GeckoOutcome
    from reeljudge.gecko.scoring import QuestionOutcome


@dataclass(frozen=True)
class GeckoVerdict:
    """How well a clip or image shows its prompt: score, coverage, per-tag scores and every question."""

    outcome: GeckoOutcome
    threshold: float
    min_coverage: float
    questions_file: str | None = None  # where the questions came from, when from a file

    judged = True

    @property
    def score(self) -> float:
        """Mean over kept questions (unanswered count 0)."""
        return self.outcome.score.score

    @property
    def coverage(self) -> float:
        """Share of kept questions that got a readable verdict."""
        return self.outcome.score.coverage

    @property
    def per_tag(self) -> dict[str, float]:
        """Mean score per tag (entity, action, color, …)."""
        return self.outcome.score.per_tag

    @property
    def questions(self) -> list[QuestionOutcome]:
        """Every kept question with its verdict."""
        return self.outcome.score.outcomes

    @property
    def covered(self) -> bool:
        """Whether enough questions got a readable verdict (``min_coverage``)."""
        return self.coverage >= self.min_coverage

    @property
    def passed(self) -> bool:
        """Score at or above the threshold, with enough coverage."""
        return self.covered and self.score >= self.threshold

    def reason(self) -> str:
        """One line: score against threshold, correct and answered questions, tags, where the questions came
        from, questions zeroed by a failed parent or left unanswered, scoring notes."""
        s, question_set = self.outcome.score, self.outcome.question_set
        relation = ">=" if s.score >= self.threshold else "<"
        parts = [
            f"gecko {s.score:.2f} {relation} threshold {self.threshold:g}: "
            f"{s.correct}/{s.kept} correct, coverage {s.answered}/{s.kept} ({s.scoring} scoring) on {self.outcome.media.ref.name}"
        ]
        if not self.covered:
            parts.append(f"coverage {s.coverage:.2f} is below min_coverage {self.min_coverage:g}: the judge left too many questions unanswered")
        if s.per_tag:
            parts.append("tags: " + ", ".join(f"{t} {v:.2f}" for t, v in s.per_tag.items()))
        origin = {"generated": "questions generated", "declared": "questions declared by the test",
                  "file": f"questions from {self.questions_file}"}[question_set.source]
        if question_set.dropped:
            origin += f", {len(question_set.dropped)} question(s) dropped (see metadata.questions_dropped)"
        parts.append(origin)
        skipped = [f"q{o.number} ({skip_reason(o)})" for o in s.outcomes if o.skipped_by is not None]
        if skipped:
            parts.append(f"{len(skipped)} question(s) scored 0 because a question they depend on failed: " + ", ".join(skipped[:8]))
        unanswered = [f"q{o.number} ({o.note or 'no verdict'})" for o in s.outcomes if o.verdict is None]
        if unanswered:
            parts.append("unanswered: " + ", ".join(unanswered[:8]))
        parts.extend(s.notes)
        return ". ".join(parts)


def question_line(o: QuestionOutcome) -> str:
    """How a scored question went: the question and its choices, the truth, the judge's verdict (and why it
    scored 0 when a question it depends on failed)."""
    q = o.question
    if o.verdict is None:
        verdict = f"unanswered ({o.raw!r})" if o.raw else "unanswered (no verdict)"
    else:
        verdict = f"{o.verdict} {'correct' if o.correct else 'wrong'}"
    detail = f" p={o.probability:.2f}" if o.probability is not None else ""
    note = f"; {o.note}" if o.note else ""
    skipped = skip_reason(o)
    return (f"{skipped} (verdict recorded, not used) — " if skipped else "") + (
        f"{q.question} {' | '.join(q.choices)} — truth {q.answer}, verdict {verdict}{detail}{note}")


def dropped_line(d: Any) -> str:
    """Why a question the filter dropped was not scored."""
    q = d.question
    return f"not scored, dropped by {d.check}: {d.reason} — {q.question} {' | '.join(q.choices)} (truth {q.answer})"
