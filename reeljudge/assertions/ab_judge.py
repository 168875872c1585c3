"""promptfoo adapter of the A/B judge: is the clip this test's provider made at least as good as
the reference clip the test names (a baseline, a previous release), by the A/B protocol?

Passes when the new clip wins or ties (``pass_on``); ``expect_fail`` inverts a judged verdict for
a new clip with a planted fault. Named scores: ``ab_win`` (1 win, 0.5 tie, 0 loss), ``ab_consistent``
(both orders agreed, when asked in two) and, with Gemini, ``ab_new_<dimension>`` and
``ab_reference_<dimension>`` (the 1–5 ratings, mean over the orders); with ``judge: probes``,
``ab_probes_new_<group>`` / ``ab_probes_reference_<group>`` (the group's rating: 1 − the share of
the clip its faults ruin, each weighed by how bad it is; 1 without a fault). One line of the breakdown per order (or per clip for the probes); tags in the reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from reeljudge.ab_judge.options import ABJudgeOptions, load
from reeljudge.ab_judge.verdict import PairVerdict
from reeljudge.errors import BadInputError
from reeljudge.options import with_value
from reeljudge.promptfoo.context import TestContext
from reeljudge.promptfoo.identity import GEMINI_ENGINE, IDENTITY_KEY, PROBES_ENGINE, judge_identity
from reeljudge.promptfoo.results import Result, grading_result, invert_verdict, run_judged

if TYPE_CHECKING:  # the offline judge is loaded when its verdict is reported, not on a Gemini cache hit
    from reeljudge.ab_judge.probes_judge import ProbesPairVerdict

JUDGE_NAME = "ab_judge"
SYSTEMS = ("new", "reference")


def get_assert(output: Any, context: Mapping[str, Any] | None) -> Result:
    """promptfoo entry: judge the provider's clip against the test's reference clip."""
    return run_judged(JUDGE_NAME, context, lambda ctx: grade(output, ctx))


def grade(output: Any, ctx: TestContext) -> Result:
    """The full grading of one test."""
    from reeljudge.ab_judge.api import clip_where, judge, locate_clip, pair_of
    from dataclasses import replace
    from reeljudge.promptfoo.clips import find_reference, var_candidate

    test = ctx.label
    options, settings = load(ctx.config)
    vars_ = ctx.vars
    for key, var in (("family", options.family_var), ("expect_fail", options.expect_fail_var)):
        if vars_.get(var) not in (None, ""):
            options = with_value(options, key, vars_[var], where=f"test {test!r}: var {var!r}")
    prompt = vars_.get(options.prompt_var) or ctx.prompt
    if not isinstance(prompt, str) or not prompt.strip():
        raise BadInputError(f"test {test!r} has no prompt: set the var {options.prompt_var!r} (the prompt both clips were made from)")
    found = find_reference(ctx, output, var=options.media_var, kinds=("video",))
    reference = var_candidate(ctx, options.reference_var, ctx.require_var(options.reference_var))
    roles = (f"the new clip ({found.origin})", f"the reference clip ({reference.origin})")
    where = clip_where(options, settings)
    new = locate_clip(replace(found, origin=roles[0]), roles[0], where)
    ref = locate_clip(replace(reference, origin=roles[1]), roles[1], where)
    source = vars_.get(options.source_var) or None
    pair = pair_of(prompt, SYSTEMS, (new.media, ref.media), options, where, source=str(source).strip() if source else None,
                   roles=roles)
    result = verdict_result(judge(pair, options, settings), options, test)
    result.setdefault("metadata", {})["media"] = {"new": new.metadata(), "reference": ref.metadata()}
    if options.expect_fail:
        return invert_verdict(result, expected="the new clip (with a planted fault) to fail against the reference")
    return result


def verdict_result(verdict: PairVerdict | ProbesPairVerdict, options: ABJudgeOptions, test: str) -> Result:
    """The grading result of either judge's verdict."""
    if isinstance(verdict, PairVerdict):
        return gemini_result(verdict, options, test)
    return probes_result(verdict, options, test)


def gemini_result(v: PairVerdict, options: ABJudgeOptions, test: str) -> Result:
    """Gemini's verdict: named scores per dimension for both clips, each order's answer a line of the breakdown."""
    named: dict[str, float] = {"ab_win": v.score}
    if v.consistent is not None:
        named["ab_consistent"] = 1.0 if v.consistent else 0.0
    for system in v.systems:
        named.update({f"ab_{system}_{dim}": float(value) for dim, value in v.ratings[system].items()})
    orders = {f"order {i} ({o.layout})": o.reason() for i, o in enumerate(v.orders, 1)}
    metadata = {
        "judge": JUDGE_NAME, "mode": "gemini", "judged": True, "test": test, "prompt": v.prompt, "family": v.family,
        "protocol": v.protocol, "winner": v.winner, "inconsistent": v.inconsistent, "consistent": v.consistent,
        "orders_asked": len(v.orders), "pass_on": v.pass_on, "primary_tag": v.primary_tag, "secondary_tags": list(v.secondary_tags),
        "ratings": {s: dict(r) for s, r in v.ratings.items()}, "note": v.note, "orders": [o.as_dict() for o in v.orders],
        "model": v.orders[0].call.get("model"), "cache_hit": v.cache_hit,
        "cost_usd_estimate": None if v.usage.cost_usd is None else round(v.usage.cost_usd, 6),
    }
    metadata[IDENTITY_KEY] = _gemini_identity(v, options)
    return grading_result(passed=v.passed, score=v.score, reason=v.reason(), named_scores=named, breakdown=orders,
                          tokens=v.usage.tokens_used(), metadata=metadata)


def _gemini_identity(v: PairVerdict, options: ABJudgeOptions) -> dict:
    """Who judged: the model, the protocol's instruction and schema files (hashed), orders and sampling."""
    from reeljudge.ab_judge.rubric import rubric_name, schema_name
    from reeljudge.gemini.prompts import rubric_version

    version = f"{v.protocol}-{rubric_version(rubric_name(v.protocol), schema_name(v.protocol))}"
    chosen = {"orders": len(v.orders), "fps": getattr(options, "fps", None), "media_resolution": getattr(options, "media_resolution", None)}
    return judge_identity(JUDGE_NAME, GEMINI_ENGINE, model=v.orders[0].call.get("model"), version=version, options=chosen,
                          replayed=bool(v.cache_hit))


def probes_result(v: ProbesPairVerdict, options: ABJudgeOptions, test: str) -> Result:
    """The probes' comparison: probed groups as named scores; adherence and identity reported as not judged."""
    from reeljudge.ab_judge.probes_judge import GROUPS

    named: dict[str, float] = {"ab_win": v.score}
    for system in v.systems:
        named.update({f"ab_probes_{system}_{group}": rating for group, rating in v.ratings[system].items()})
    dimensions = {**{g: "judged by the probes" for g in GROUPS}, **{d: "not judged (abstained)" for d in v.abstained}}
    metadata = {
        "judge": JUDGE_NAME, "mode": "probes", "judged": True, "test": test, "winner": v.winner, "decided_by": v.decided_by,
        "primary_tag": v.primary_tag, "secondary_tags": list(v.secondary_tags), "abstained": list(v.abstained),
        "dimensions": dimensions, "faults": {s: {g: list(ps) for g, ps in f.items()} for s, f in v.faults.items()},
        "pass_on": v.pass_on, "fault_weights": {s: dict(w) for s, w in v.fault_weights.items()}, "ruined_share": dict(v.ruined),
        "ratings": v.ratings, "identical": v.identical,
        IDENTITY_KEY: judge_identity(JUDGE_NAME, PROBES_ENGINE, version=options.protocol),
    }
    return grading_result(passed=v.passed, score=v.score, reason=v.reason(),
                          named_scores=named, breakdown={f"{system} clip": text for system, text in v.clip_reasons().items()},
                          metadata=metadata)
