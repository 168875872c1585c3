"""``reeljudge.score_gecko``: the Gecko judge as one Python call, with a typed result; and ``judge``,
the one place a ``GeckoVerdict`` is made (the face and the promptfoo adapter both call it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from reeljudge.errors import JudgeError, MediaError
from reeljudge.gecko.options import GeckoOptions
from reeljudge.gecko.verdict import GeckoVerdict
from reeljudge.gemini.settings import JudgeSettings
from reeljudge.judging import GECKO

if TYPE_CHECKING:  # pragma: no cover - typing only (NotJudged is loaded when a face did not judge, not on a cache hit)
    from reeljudge.gecko.questions import Question
    from reeljudge.media.refs import ContentRef
    from reeljudge.not_judged import NotJudged

__all__ = ["GeckoVerdict", "judge", "score_gecko"]


def judge(prompt: str, media: ContentRef, options: GeckoOptions, settings: JudgeSettings, *,
          declared: list[Question] | None = None, found: Mapping[str, Any] | None = None) -> GeckoVerdict:
    """The verdict on opened ``media`` for ``prompt`` (``found``: how the media was found, for its record);
    JudgeError/MediaError when it cannot be judged."""
    from reeljudge.gecko.pipeline import run_gecko

    return GeckoVerdict(run_gecko(prompt, media, options, settings, declared=declared), options, dict(found or {}), settings)


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
    from reeljudge.gecko.pipeline import open_media
    from reeljudge.gecko.questions import declared_questions

    opts, settings = load(options)
    declared = declared_questions(qas, test="score_gecko", var="qas") if qas is not None else None
    try:
        return judge(prompt, open_media(media, opts, settings), opts, settings, declared=declared)
    except (JudgeError, MediaError) as error:
        from reeljudge.not_judged import NotJudged

        return NotJudged.from_error(GECKO.name, error)
