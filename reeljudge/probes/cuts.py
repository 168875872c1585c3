"""Scene-cut probe: adaptive content detector, reported as "scene reset / teleporting" in one-shot clips."""

from __future__ import annotations

import re

from reeljudge.probes.black import black_flags
from reeljudge.probes.stillness import PairKind, pair_kinds
from reeljudge.probes.options import ProbeOptions
from reeljudge.probes.report import ProbeResult, list_ranges, range_details
from reeljudge.probes.signals import Signals

_MULTI_SHOT = re.compile(
    r"\b(cuts?\s+to|cutting|montage|scenes|shots|transitions?|sequence of|then\s+cut|jump\s*cuts?|"
    r"multiple\s+(angles|shots|scenes)|edit(ed)?\s+together|trailer|compilation|slideshow)\b",
    re.IGNORECASE,
)


def prompt_implies_one_shot(prompt: str) -> bool:
    """Whether a generation prompt describes a single continuous shot (no cut asked for)."""
    return not _MULTI_SHOT.search(prompt or "")


def cut_frames(signals: Signals, options: ProbeOptions) -> list[int]:
    """Frames that start a new shot: content change ≥ ``cut_ratio`` × its neighbours' mean and ≥ ``cut_min_content``.

    Transitions to or from black belong to the black-frame probe. A frame right after a frozen or
    still run counts only when its change also reaches ``cut_resume_ratio`` × what the clip's
    own motion changes over the same number of frames (a plain resume after a freeze does not).
    """
    black = black_flags(signals, options)
    kinds = pair_kinds(signals, options)
    content = signals.content
    found: list[int] = []
    w = options.cut_window
    for i in range(1, signals.count):
        if black[i] or black[i - 1] or content[i] < options.cut_min_content:
            continue
        if kinds[i - 1] != "moving" and not _jumps_beyond_motion(signals, kinds, i, options):
            continue
        neighbours = [
            content[j]
            for j in range(max(1, i - w), min(signals.count, i + w + 1))
            if j != i and not black[j] and not black[j - 1] and kinds[j] == "moving"
        ]
        baseline = sum(neighbours) / len(neighbours) if neighbours else 0.0
        if content[i] >= options.cut_ratio * baseline:
            found.append(i)
    return found


def _jumps_beyond_motion(signals: Signals, kinds: list[PairKind], i: int, options: ProbeOptions) -> bool:
    """Whether frame ``i``, right after a held run, differs from the held frame by ≥ ``cut_resume_ratio`` × the
    change the clip shows over the same span of its own motion (mean of the spans just before and after the run)."""
    held = 0
    while i - 1 - held >= 1 and kinds[i - 1 - held] != "moving":
        held += 1
    span = held + 1
    last_moving = i - 1 - held
    spans = [(a, a + span) for a in (last_moving - span, i) if a >= 0 and a + span < signals.count]
    if not spans:
        return False  # nothing to compare with: left to the frozen-frame probe
    expected = sum(thumb_distance(signals, a, b) for a, b in spans) / len(spans)
    return thumb_distance(signals, i - 1, i) >= options.cut_resume_ratio * max(expected, 1e-6)


def thumb_distance(signals: Signals, a: int, b: int) -> float:
    """Mean abs difference of frames ``a`` and ``b``'s standardised 64-px luma thumbnails (brightness-invariant)."""
    import numpy as np

    first, second = (signals.thumbs[k].astype(np.float32) for k in (a, b))
    z1 = (first - first.mean()) / (first.std() + 4.0)
    z2 = (second - second.mean()) / (second.std() + 4.0)
    return float(np.abs(z1 - z2).mean())


def probe_cuts(signals: Signals, options: ProbeOptions, prompt: str = "") -> ProbeResult:
    """Report scene cuts; fail them as scene resets when the clip should be one shot."""
    cuts = cut_frames(signals, options)
    single = options.single_shot if options.single_shot is not None else prompt_implies_one_shot(prompt)
    where = list_ranges(signals, [(c, c) for c in cuts])
    details = {"cuts": range_details(signals, [(c, c) for c in cuts]), "single_shot": single}
    if cuts and single:
        reason = f"scene reset / teleporting: {len(cuts)} cut(s) in a one-shot clip at {where}"
        return ProbeResult("scene_cuts", False, 1.0 / (1 + len(cuts)), reason, details=details)
    if cuts:
        return ProbeResult("scene_cuts", True, 1.0, f"{len(cuts)} cut(s) (multi-shot allowed) at {where}", details=details)
    return ProbeResult("scene_cuts", True, 1.0, f"no scene cuts in {signals.count} analysed frames", details=details)
