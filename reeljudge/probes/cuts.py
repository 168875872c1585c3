"""Scene-cut probe: adaptive content detector, reported as "scene reset / teleporting" in one-shot clips."""

from __future__ import annotations

import re

from .black import black_flags
from .frozen import pair_kinds
from .options import ProbeOptions
from .report import ProbeResult, list_ranges, range_details
from .signals import Signals

_MULTI_SHOT = re.compile(
    r"\b(cuts?\s+to|cutting|montage|scenes|shots|transitions?|sequence of|then\s+cut|jump\s*cuts?|"
    r"multiple\s+(angles|shots|scenes)|edit(ed)?\s+together|trailer|compilation|slideshow)\b",
    re.IGNORECASE,
)


def prompt_implies_one_shot(prompt: str) -> bool:
    """Whether a generation prompt describes a single continuous shot (no cut asked for)."""
    return not _MULTI_SHOT.search(prompt or "")


def cut_frames(signals: Signals, options: ProbeOptions) -> list[int]:
    """Frames that start a new shot: content change ≥ ``cut_ratio`` × its neighbours' mean and ≥ ``cut_min_content``."""
    black = black_flags(signals, options)
    kinds = pair_kinds(signals, options)
    content = signals.content
    found: list[int] = []
    w = options.cut_window
    for i in range(1, signals.count):
        if black[i] or black[i - 1] or kinds[i - 1] != "moving" or content[i] < options.cut_min_content:
            continue  # black transitions and resumes after a freeze belong to those probes
        neighbours = [
            content[j]
            for j in range(max(1, i - w), min(signals.count, i + w + 1))
            if j != i and not black[j] and not black[j - 1] and kinds[j] == "moving"
        ]
        baseline = sum(neighbours) / len(neighbours) if neighbours else 0.0
        if content[i] >= options.cut_ratio * baseline:
            found.append(i)
    return found


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
