"""promptfoo adapter of the filmability judge: the narration, terms and options from the test, the verdict
as promptfoo's result (``reeljudge.promptfoo.results.verdict_result``).

Named scores ``film_score``, ``film_relevance``, ``film_filmability``, ``film_variety`` and, when the
stock APIs were asked, ``film_findability``; each criterion's reason (and each term's clip counts) a
line of the breakdown under the verdict; unfilmable terms and terms with no clips in the reason
(``FilmabilityVerdict``).
"""

from __future__ import annotations

from typing import Any, Mapping

from reeljudge.errors import BadInputError
from reeljudge.filmability.judge import check_narration, judge
from reeljudge.filmability.options import load
from reeljudge.filmability.terms import parse_terms
from reeljudge.judging import FILMABILITY
from reeljudge.promptfoo.context import TestContext
from reeljudge.promptfoo.results import Result, run_judged, verdict_result


def get_assert(output: Any, context: Mapping[str, Any] | None) -> Result:
    """promptfoo entry: grade the search terms in ``output`` for the test's narration."""
    return run_judged(FILMABILITY.name, context, lambda ctx: _grade(output, ctx))


def _grade(output: Any, ctx: TestContext) -> Result:
    """The full grading of one test."""
    test = ctx.label
    options, settings = load(ctx.config)
    narration = check_narration(str(ctx.require_var(options.narration_var)), options, test)
    try:
        terms = parse_terms(output, max_terms=options.max_terms)
    except BadInputError as error:
        raise BadInputError(f"test {test!r}: {error.message}") from None
    return verdict_result(judge(narration, terms, options, settings))
