"""``reeljudge.judge_terms``: the filmability judge as one Python call."""

from __future__ import annotations

from typing import Any, Sequence

from reeljudge.errors import JudgeError, MediaError
from reeljudge.filmability.judge import FilmabilityVerdict, check_narration, judge
from reeljudge.filmability.options import load
from reeljudge.filmability.terms import parse_terms
from reeljudge.not_judged import NotJudged


def judge_terms(narration: str, terms: Sequence[str] | str, **options: Any) -> FilmabilityVerdict | NotJudged:
    """Judge B-roll search ``terms`` for ``narration``: relevance, filmability, variety and our score.

    ``terms`` is a list or a generator's raw output (JSON, comma or line separated). ``options``
    are the assertion's options and Gemini settings (``threshold=0.8``, ``judge="local"``,
    ``model=…``). Returns the verdict, or ``NotJudged`` saying why the judge did not judge; bad
    options or input raise BadInputError.

    Example::

        verdict = reeljudge.judge_terms("Redis keeps data in memory", ["server room", "RAM"], judge="local")
        verdict.score, verdict.breakdown.filmability, verdict.unfilmable_terms
    """
    opts, settings = load(options)
    parsed = parse_terms(list(terms) if not isinstance(terms, str) else terms, max_terms=opts.max_terms)
    try:
        return judge(check_narration(str(narration), opts, "judge_terms"), parsed, opts, settings)
    except (JudgeError, MediaError) as error:
        return NotJudged.from_error("filmability", error)
