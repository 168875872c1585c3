"""promptfoo adapter of the video probes: find the clip a test names, probe it, build the result."""

from __future__ import annotations

from typing import Any, Mapping

from reeljudge.errors import MediaError
from reeljudge.options import flat_values
from reeljudge.probes.options import ProbeOptions, load
from reeljudge.probes.report import ProbesVerdict
from reeljudge.promptfoo.identity import IDENTITY_KEY, PROBES_ENGINE, judge_identity
from reeljudge.promptfoo.context import TestContext
from reeljudge.promptfoo.results import Result, grading_result, invert_verdict, run_judged

JUDGE = "video_probes"


def verdict_result(verdict: ProbesVerdict, clip: str, metadata: Mapping[str, Any]) -> Result:
    """promptfoo's grading result for the probes' verdict on one clip (not judged when no probe could fail it)."""
    probes = {r.name: {"passed": r.passed, "gating": r.gating, "score": r.score, **r.details} for r in verdict.results}
    return grading_result(
        passed=verdict.passed,
        score=verdict.score,
        reason=verdict.reason(clip),
        named_scores={r.name: r.score for r in verdict.results},
        breakdown=verdict.part_reasons(),
        part_status={r.name: r.passed for r in verdict.results if r.gating},
        metadata={**metadata, **({} if verdict.gating else {"judged": False}), "probes": probes},
    )


def _display_name(located: Any) -> str:
    """How the clip is named in the reason: its file name (with the dataset id), or its store reference or URL."""
    media = located.media.ref
    if located.opened.carrier != "file" or media.path is None:
        return located.label
    return media.path.name if media.dataset_id is None else f"{media.dataset_id} ({media.path.name})"


def changed_options(options: ProbeOptions) -> dict[str, Any]:
    """The probe options that differ from the defaults, by the keys a config names them with (what a result
    records of how it was probed)."""
    defaults = flat_values(ProbeOptions())
    return {key: value for key, value in flat_values(options).items() if value != defaults[key]}


def get_assert(output: Any, context: Mapping[str, Any] | None) -> Result:
    """promptfoo entry: probe the test's clip; a clip that cannot be probed fails with the reason."""
    def body(ctx: TestContext) -> Result:
        from reeljudge.promptfoo.clips import locate_media
        from reeljudge.probes import probe_clip

        assertion, options = load(ctx.config)
        located = locate_media(ctx, output, var=assertion.var, kinds=("video",), base_dir=assertion.base_dir)
        media = located.media.ref
        prompt = str(ctx.vars.get(assertion.prompt_var) or ctx.prompt or "")
        try:
            if media.path is None:
                raise MediaError(f"{located.label}: remote clips are not probed offline; download it first")
            verdict = probe_clip(media.path, options, prompt)
        except MediaError as error:
            raise MediaError(f"{located.described()}: {error.message}") from None
        info = verdict.info
        metadata = {"judge": JUDGE, "test": ctx.label, "clip": located.opened.file_name(), "media": located.metadata(),
                    "clip_info": info.as_metadata(),
                    IDENTITY_KEY: judge_identity(JUDGE, PROBES_ENGINE, options=changed_options(options))}
        if info.capped:
            metadata["bounded"] = info.capped
        name = _display_name(located)
        result = verdict_result(verdict, name, metadata)
        return invert_verdict(result, expected="a planted fault (expect_fail: true) to be found") if assertion.expect_fail else result

    return run_judged(JUDGE, context, body)
