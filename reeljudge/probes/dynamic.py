"""Dynamic degree (VBench, on classical optical flow): how much a clip moves — a property of the shot.

Reported as a fact and a score; it fails a clip only when a suite asks for motion: always
(``expect_motion``), when the prompt asks for movement (``motion_from_prompt``), or as a minimum
share of moving pairs (``min_dynamic_degree``). A still landscape, slow motion or a locked-off
shot is not broken footage.
"""

from __future__ import annotations

import re

from reeljudge.probes.thresholds import DynamicOptions
from reeljudge.probes.report import ProbeResult, frame_range
from reeljudge.probes.signals import Signals

_MOTION = re.compile(
    r"\b(mov(e|es|ing)|motion|runs?|running|walk(s|ing)?|fl(y|ies|ying)|driv(e|es|ing)|pans?|panning|dolly|"
    r"tracking|zoom(s|ing)?|rotat(es?|ing)|spin(s|ning)?|danc(es?|ing)|jump(s|ing)?|roll(s|ing)?|fall(s|ing)?|"
    r"flow(s|ing)?|rush(es|ing)?|chas(es?|ing)|rac(es?|ing)|swim(s|ming)?|gallop(s|ing)?|crash(es|ing)?|"
    r"sways?|swaying|waves?|waving|bouncing|bounces?|explod(es?|ing)|speeding|fast)\b",
    re.IGNORECASE,
)


def prompt_asks_for_motion(prompt: str) -> bool:
    """Whether a generation prompt describes movement (of the camera or of something in the scene)."""
    return bool(_MOTION.search(prompt or ""))


def dynamic_threshold(signals: Signals, options: DynamicOptions) -> float:
    """VBench's flow threshold, 6 · (short side / 256), at the analysis size."""
    short = min(signals.info.analysis_width, signals.info.analysis_height)
    return options.dynamic_threshold * short / 256.0


def _requirement(options: DynamicOptions, prompt: str) -> str:
    """What motion the suite requires ("" for none), in words for the reason."""
    if options.expect_motion:
        return "motion expected (expect_motion)"
    if options.motion_from_prompt and prompt_asks_for_motion(prompt):
        return "the prompt asks for movement (motion_from_prompt)"
    return ""


def probe_dynamic_degree(signals: Signals, options: DynamicOptions, prompt: str = "") -> ProbeResult:
    """VBench dynamic degree: the clip moves when ≥ round(4·N/16) sampled pairs exceed the threshold;
    the score is 1 or 0 as in VBench, ``degree`` the share of sampled pairs above the threshold."""
    thr = dynamic_threshold(signals, options)
    scores = [m for _, _, m in signals.dd_pairs]
    needed = max(1, round(4 * (len(scores) + 1) / 16.0))
    above = sum(1 for m in scores if m > thr)
    moves = above >= needed and bool(scores)
    degree = above / len(scores) if scores else 0.0
    details = {
        "moves": moves,
        "degree": round(degree, 3),
        "pairs_above": above,
        "pairs_needed": needed,
        "pairs": len(scores),
        "sample_interval_frames": signals.dd_interval,
        "threshold_px": round(thr, 3),
        "mean_top5_flow_px": round(sum(scores) / len(scores), 3) if scores else 0.0,
        "motion_amount": round(sum(scores) / len(scores) / thr, 3) if scores else 0.0,
    }
    facts = f"{above}/{len(scores)} sampled pairs (every {signals.dd_interval} frames) exceed {thr:.2f} px, {needed} needed"
    whole = frame_range(signals, 0, signals.count - 1)
    verdict = (f"moves: {facts}" if moves else f"no motion over {whole}: {facts}" if scores
               else f"too few frames to measure motion over {whole}")
    required = _requirement(options, prompt)
    failures = []
    if required and not moves:
        failures.append(required)
    if options.min_dynamic_degree is not None and degree < options.min_dynamic_degree:
        failures.append(f"degree {degree:.2f} < min_dynamic_degree {options.min_dynamic_degree:g}")
    gating = bool(required) or options.min_dynamic_degree is not None
    if failures:
        return ProbeResult("dynamic_degree", False, 1.0 if moves else 0.0, f"{verdict}; {'; '.join(failures)}",
                           gating=True, details=details)
    suffix = "" if gating else " (a property of the shot, not required)"
    return ProbeResult("dynamic_degree", True, 1.0 if moves else 0.0, f"{verdict}{suffix}", gating=gating, details=details)
