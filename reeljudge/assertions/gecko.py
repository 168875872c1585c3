"""promptfoo adapter of the Gecko judge: does the clip or image show what its prompt asked for?

Reads the prompt, the declared questions, the media and the options from the test; the verdict
(``GeckoVerdict``: named scores ``gecko``, ``gecko_coverage``, ``gecko_<tag>``, a line of the breakdown
per question) becomes promptfoo's result through ``reeljudge.promptfoo.results.verdict_result``.
A counter-prompt (``expect: mismatch``) passes when the judge's verdict is a fail.
"""

from __future__ import annotations

from typing import Any, Mapping

from reeljudge.gecko.options import load
from reeljudge.judging import GECKO
from reeljudge.options import with_value
from reeljudge.promptfoo.context import TestContext
from reeljudge.promptfoo.results import Result, run_judged, verdict_result

MISMATCH_EXPECTED = "a counter-prompt (expect: mismatch) to score under threshold"


def get_assert(output: Any, context: Mapping[str, Any] | None) -> Result:
    """promptfoo entry: Gecko-score the media of this test against its prompt."""
    return run_judged(GECKO.name, context, lambda ctx: grade(output, ctx))


def grade(output: Any, ctx: TestContext) -> Result:
    """The full grading of one test."""
    from reeljudge.gecko.api import judge
    from reeljudge.gecko.pipeline import media_kinds
    from reeljudge.gecko.questions import declared_questions
    from reeljudge.promptfoo.clips import locate_media

    test = ctx.label
    options, settings = load(ctx.config)
    prompt = str(ctx.require_var(options.prompt_var))
    vars_ = ctx.vars
    if vars_.get(options.expect_var):
        options = with_value(options, "expect", vars_[options.expect_var], where=f"test {test!r}: var {options.expect_var!r}")
    declared = declared_questions(vars_[options.qas_var], test=test, var=options.qas_var) if vars_.get(options.qas_var) else None
    located = locate_media(ctx, output, var=options.media_var, kinds=media_kinds(options),
                           base_dir=options.base_dir, memo=settings.judge_cache())
    verdict = judge(prompt, located.media, options, settings, declared=declared, found=located.metadata())
    return verdict_result(verdict, expect_fail=MISMATCH_EXPECTED if options.expect == "mismatch" else None)
