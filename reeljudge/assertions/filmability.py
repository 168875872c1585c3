"""promptfoo adapter of the filmability judge: options and inputs from the context, a verdict, a result.

Named scores ``film_score``, ``film_relevance``, ``film_filmability``, ``film_variety`` and, when the
stock APIs were asked, ``film_findability``; each criterion's reason (and each term's clip counts) a
line of the breakdown under the verdict; unfilmable terms and terms with no clips in the reason.
"""

from __future__ import annotations

from typing import Any, Mapping

from reeljudge.errors import BadInputError
from reeljudge.filmability.judge import FilmabilityVerdict, check_narration, judge
from reeljudge.filmability.options import load
from reeljudge.filmability.score_table import CRITERIA_MAX
from reeljudge.filmability.terms import parse_terms
from reeljudge.promptfoo.context import TestContext
from reeljudge.promptfoo.results import Result, grading_result, run_judged

JUDGE_NAME = "filmability"
METRIC_PREFIX = "film_"


def get_assert(output: Any, context: Mapping[str, Any] | None) -> Result:
    """promptfoo entry: grade the search terms in ``output`` for the test's narration."""
    return run_judged(JUDGE_NAME, context, lambda ctx: _grade(output, ctx))


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


def verdict_result(v: FilmabilityVerdict) -> Result:
    """The promptfoo result of a verdict: our score, criteria as named scores with their reasons."""
    b = v.breakdown
    named = {f"{METRIC_PREFIX}score": v.score, **{f"{METRIC_PREFIX}{name}": getattr(b, name) / top for name, top in CRITERIA_MAX.items()}}
    if v.findability is not None and v.findability.score is not None:
        named[f"{METRIC_PREFIX}findability"] = v.findability.score
    metadata = {
        **v.metadata,
        "terms": v.terms,
        "points": v.table.points,
        "level": v.table.level,
        "capped_at_0_8": v.table.capped,
        "min_relevance": v.min_relevance,
        "relevance_short": v.relevance_short,
        "unfilmable_terms": v.unfilmable_terms,
        "judge_disagreements": v.disagreements,
    }
    if v.judge_reported:
        metadata["judge_reported"] = v.judge_reported
    if v.findability is not None:
        metadata["findability"] = v.findability.as_dict()
    return grading_result(
        passed=v.passed,
        score=v.score,
        reason=v.reason(),
        named_scores=named,
        breakdown={f"{METRIC_PREFIX}{name}": text for name, text in v.part_reasons().items()},
        tokens=v.tokens,
        metadata=metadata,
    )
