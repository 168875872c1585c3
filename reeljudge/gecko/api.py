"""``reeljudge.score_gecko``: the Gecko judge as one Python call, with a typed result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reeljudge.errors import JudgeError, MediaError
from reeljudge.gecko.pipeline import GeckoOutcome
from reeljudge.gecko.scoring import QuestionOutcome
from reeljudge.not_judged import NotJudged


@dataclass(frozen=True)
class GeckoVerdict:
    """How well a clip or image shows its prompt: score, coverage, per-tag scores and every question."""

    outcome: GeckoOutcome
    threshold: float
    min_coverage: float

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
    def passed(self) -> bool:
        """Score at or above the threshold, with enough coverage."""
        return self.coverage >= self.min_coverage and self.score >= self.threshold


def score_gecko(prompt: str, media: str, *, qas: list[dict[str, Any]] | None = None, **options: Any) -> GeckoVerdict | NotJudged:
    """Gecko-score a clip or image (path, dataset id, ``gs://`` or ``https://``) against ``prompt``.

    ``qas`` declares the questions (used as is); ``options`` are the assertion's options and Gemini
    settings (``threshold=0.7``, ``scoring="probability"``, ``model=…``). Returns the verdict, or
    ``NotJudged`` saying why the judge did not judge; bad options raise BadInputError.

    Example::

        verdict = reeljudge.score_gecko("A red apple on a table", "apple.png")
        verdict.score, verdict.per_tag
    """
    from reeljudge.gecko.options import load
    from reeljudge.gecko.pipeline import judge_media
    from reeljudge.gecko.questions import declared_questions

    opts, settings = load(options)
    declared = declared_questions(qas, test="score_gecko", var="qas") if qas is not None else None
    try:
        outcome = judge_media(prompt, media, opts, settings, declared=declared)
    except (JudgeError, MediaError) as error:
        return NotJudged.from_error("gecko", error)
    return GeckoVerdict(outcome, opts.threshold, opts.min_coverage)
