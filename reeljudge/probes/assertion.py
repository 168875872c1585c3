"""The video-probes assertion: find the clip a test names, probe it, build promptfoo's result."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from reeljudge.errors import BadInputError, MediaError
from reeljudge.promptfoo import Result, assertion_config, component, grading_result, require_var, run_judged
from reeljudge.probes.options import ProbeOptions
from reeljudge.probes.report import ProbeResult

JUDGE = "video_probes"
DEFAULT_VAR = "clip"


def clip_reference(context: Mapping[str, Any], config: Mapping[str, Any], output: Any, test: str) -> tuple[str, str]:
    """The clip a test names and where it came from: config ``var``, else the clip provider's path,
    else var ``clip``, else the output."""
    var = config.get("var") or config.get("clip_var")
    if var:
        return str(require_var(context, str(var), test=test)), f"var {var!r}"
    response = context.get("providerResponse") or {}
    metadata = response.get("metadata") if isinstance(response, Mapping) else None
    if isinstance(metadata, Mapping) and metadata.get("clip_path"):
        return str(metadata["clip_path"]), "the clip provider's clip_path"
    vars_ = context.get("vars") or {}
    if vars_.get(DEFAULT_VAR):
        return str(vars_[DEFAULT_VAR]), f"var {DEFAULT_VAR!r}"
    if isinstance(output, str) and output.strip() and "\n" not in output.strip():
        return output.strip(), "the output"
    raise BadInputError(f"test {test!r} names no clip: set the assertion's config var, or a var {DEFAULT_VAR!r}")


def generation_prompt(context: Mapping[str, Any], config: Mapping[str, Any]) -> str:
    """The prompt a clip was made from: config ``prompt_var``, else var ``prompt``, else the rendered prompt."""
    vars_ = context.get("vars") or {}
    name = config.get("prompt_var") or "prompt"
    return str(vars_.get(name) or context.get("prompt") or "")


def probes_result(results: list[ProbeResult], clip: str, metadata: Mapping[str, Any]) -> Result:
    """promptfoo's grading result for a list of probe results on one clip."""
    gating = [r for r in results if r.gating]
    failed = [r for r in gating if not r.passed]
    passed = bool(gating) and not failed
    score = min((r.score for r in gating), default=0.0) if failed else 1.0
    lines = [f"{'FAIL' if not r.passed and r.gating else 'ok'} {r.name}: {r.reason}" for r in failed]
    head = f"video probes on {clip}: " + (f"{len(failed)} of {len(gating)} checks failed" if failed else f"all {len(gating)} checks passed")
    reason = head + ("; " + "; ".join(lines) if lines else "")
    components = [
        component(name=r.name, passed=r.passed or not r.gating, score=r.score, reason=r.reason, gating=r.gating, **r.details)
        for r in results
    ]
    return grading_result(
        passed=passed,
        score=score,
        reason=reason,
        named_scores={r.name: r.score for r in results},
        components=components,
        metadata=metadata,
    )


def expect_failure(result: Result) -> Result:
    """For regression tests of the probes themselves: pass only when the probes ran and found a fault."""
    found = not result["pass"]
    flipped = dict(result)
    flipped["pass"] = found
    flipped["score"] = 1.0 if found else 0.0
    prefix = "expected fault found" if found else "expected a fault but every probe passed"
    flipped["reason"] = f"{prefix}: {result['reason']}"
    return flipped


def get_assert(output: Any, context: Mapping[str, Any] | None) -> Result:
    """promptfoo entry: probe the test's clip; a clip that cannot be probed fails with the reason."""
    context = context or {}

    def body(test: str) -> Result:
        from reeljudge.media.refs import resolve_media
        from reeljudge.probes import probe_signals
        from reeljudge.probes.signals import measure

        config = assertion_config(context)
        options = ProbeOptions.from_config(config)
        ref, source = clip_reference(context, config, output, test)
        base = Path(str(config.get("base_dir") or Path.cwd()))
        try:
            media = resolve_media(ref, base_dir=base, kinds=("video",))
            if media.path is None:
                raise MediaError(f"{ref}: remote clips are not probed offline; download it first")
            signals = measure(media.path, options)
        except MediaError as error:
            raise MediaError(f"{source} = {ref!r}: {error.message}") from None
        results = probe_signals(signals, options, generation_prompt(context, config))
        metadata = {"judge": JUDGE, "test": test, "clip": ref, "clip_info": signals.info.as_metadata()}
        if signals.info.capped:
            metadata["bounded"] = signals.info.capped
        name = media.path.name if media.dataset_id is None else f"{media.dataset_id} ({media.path.name})"
        result = probes_result(results, name, metadata)
        return expect_failure(result) if config.get("expect_fail") else result

    return run_judged(JUDGE, context, body)
