"""promptfoo adapter of the A/B judge: is the clip this test's provider made at least as good as
the reference clip the test names (a baseline, a previous release), by the A/B protocol?

Passes when the new clip wins or ties (``pass_on``); ``expect_fail`` inverts a judged verdict for
a new clip with a planted fault. Named scores: ``ab_win`` (1 win, 0.5 tie, 0 loss), ``ab_consistent``
(both orders agreed, when asked in two) and, with Gemini, ``ab_new_<dimension>`` and
``ab_reference_<dimension>`` (the 1–5 ratings, mean over the orders); with ``judge: probes``,
``ab_probes_new_<group>`` / ``ab_probes_reference_<group>`` (the group's rating: 1 − the share of
the clip its faults ruin, each weighed by how bad it is; 1 without a fault). One line of the breakdown per order (or per clip for
the probes); tags in the reason.
"""

from __future__ import annotations

from typing import Any, Mapping

from reeljudge.ab_judge.options import load
from reeljudge.errors import BadInputError
from reeljudge.judging import AB_JUDGE
from reeljudge.options import with_value
from reeljudge.promptfoo.context import TestContext
from reeljudge.promptfoo.results import Result, run_judged, verdict_result

SYSTEMS = ("new", "reference")
PLANTED_FAULT_EXPECTED = "the new clip (with a planted fault) to fail against the reference"


def get_assert(output: Any, context: Mapping[str, Any] | None) -> Result:
    """promptfoo entry: judge the provider's clip against the test's reference clip."""
    return run_judged(AB_JUDGE.name, context, lambda ctx: grade(output, ctx))


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
        raise BadInputError(f"test {test!r} has no prompt: set the var {options.prompt_var!r} (the prompt both "
                            "clips were made from)")
    found = find_reference(ctx, output, var=options.media_var, kinds=("video",))
    reference = var_candidate(ctx, options.reference_var, ctx.require_var(options.reference_var))
    roles = (f"the new clip ({found.origin})", f"the reference clip ({reference.origin})")
    where = clip_where(options, settings)
    new = locate_clip(replace(found, origin=roles[0]), roles[0], where)
    ref = locate_clip(replace(reference, origin=roles[1]), roles[1], where)
    source = vars_.get(options.source_var) or None
    pair = pair_of(prompt, SYSTEMS, (new.media, ref.media), options, where, source=str(source).strip() if source else None,
                   roles=roles)
    read = {"test": test, "media": {"new": new.metadata(), "reference": ref.metadata()}}
    return verdict_result(judge(pair, options, settings), metadata=read,
                          expect_fail=PLANTED_FAULT_EXPECTED if options.expect_fail else None)
