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
    parts = {f"{METRIC_PREFIX}{name}": f"{getattr(b, name)}/{top}. {b.criterion_reasons.get(name, '')}".strip()
             for name, top in CRITERIA_MAX.items()}
    if v.findability is not None and v.findability.score is not None:
        f, gate = v.findability, v.min_findability
        named[f"{METRIC_PREFIX}findability"] = f.score
        parts[f"{METRIC_PREFIX}findability"] = f"{f.score:.2f} of terms return clips{f' (min {gate:g})' if gate else ''}. {f.per_term()}"
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
        reason=_reason(v),
        named_scores=named,
        breakdown=parts,
        tokens=v.tokens,
        metadata=metadata,
    )


def _reason(v: FilmabilityVerdict) -> str:
    """One readable line: score, level, points per criterion, cap, unfilmable terms, judge's reason."""
    b, t = v.breakdown, v.table
    parts = [
        f"{t.score:.1f} {t.level} (threshold {v.threshold:g}; {v.judge} judge): "
        f"relevance {b.relevance}/3, filmability {b.filmability}/3, variety {b.variety}/1 = {t.points}/7"
    ]
    if v.relevance_short:
        parts.append(f"relevance {b.relevance}/3 is under min_relevance {v.min_relevance}: the judge reads these terms "
                     "as unrelated to the narration, so the test fails whatever its points")
    if t.capped:
        parts.append("capped at 0.8 because 1.0 needs relevance 3")
    parts.append(f"unfilmable: {', '.join(v.unfilmable_terms)}" if v.unfilmable_terms else "no unfilmable terms")
    if b.reason and v.judge != "local":  # the offline judge's summary restates the line; its one extra, below
        parts.append(f"judge: {b.reason}")
    unknown = (v.metadata.get("local_details") or {}).get("unknown_terms") or []
    if unknown:
        parts.append("no lexicon coverage (unknown, e.g. non-English or jargon): " + ", ".join(unknown))
    if v.disagreements:
        parts.append("judge's own total disagreed with its breakdown (" + "; ".join(v.disagreements) + "), ours used")
    if v.findability is not None:
        f = v.findability
        short = f"; {f.score:.2f} is under min_findability {v.min_findability:g}, so the test fails" if v.findability_short else ""
        parts.append(f.reason() + short)
    return ". ".join(part.rstrip().rstrip(".") for part in parts)  # a part's own full stop is not doubled
