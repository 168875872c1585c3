"""promptfoo adapter of the video probes: find the clip a test names, probe it (``probe_clip``), and turn
the verdict into promptfoo's result (``reeljudge.promptfoo.results.verdict_result``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from reeljudge.errors import MediaError
from reeljudge.judging import VIDEO_PROBES
from reeljudge.probes.options import load
from reeljudge.promptfoo.context import TestContext
from reeljudge.promptfoo.results import Result, run_judged, verdict_result

if TYPE_CHECKING:  # pragma: no cover - typing only
    from reeljudge.media.resolver import Located

PLANTED_FAULT_EXPECTED = "a planted fault (expect_fail: true) to be found"


def _display_name(located: Located) -> str:
    """How the clip is named in the reason: its file name (with the dataset id), or its store reference or URL."""
    media = located.media.ref
    if located.opened.carrier != "file" or media.path is None:
        return located.label
    return media.path.name if media.dataset_id is None else f"{media.dataset_id} ({media.path.name})"


def get_assert(output: Any, context: Mapping[str, Any] | None) -> Result:
    """promptfoo entry: probe the test's clip; a clip that cannot be probed fails with the reason."""
    def body(ctx: TestContext) -> Result:
        from reeljudge.probes import probe_clip
        from reeljudge.promptfoo.clips import locate_media

        assertion, options = load(ctx.config)
        located = locate_media(ctx, output, var=assertion.var, kinds=("video",), base_dir=assertion.base_dir)
        media = located.media.ref
        prompt = str(ctx.vars.get(assertion.prompt_var) or ctx.prompt or "")
        try:
            if media.path is None:
                raise MediaError(f"{located.label}: remote clips are not probed offline; download it first")
            verdict = probe_clip(media.path, options, prompt, clip_name=_display_name(located))
        except MediaError as error:
            raise MediaError(f"{located.described()}: {error.message}") from None
        read = {"test": ctx.label, "clip": located.opened.file_name(), "media": located.metadata()}
        return verdict_result(verdict, metadata=read, expect_fail=PLANTED_FAULT_EXPECTED if assertion.expect_fail else None)

    return run_judged(VIDEO_PROBES.name, context, body)
