"""``reeljudge.score_gecko``: the Gecko judge as one Python call, with a typed result."""

from __future__ import annotations

from typing import Any

from reeljudge.errors import JudgeError, MediaError
from reeljudge.gecko.verdict import GeckoVerdict
from reeljudge.not_judged import NotJudged

__all__ = ["GeckoVerdict", "score_gecko"]


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
    return GeckoVerdict(outcome, opts.threshold, opts.min_coverage, opts.questions_file)
