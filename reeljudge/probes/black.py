"""Black-frame probe: runs of black frames that are not part of a fade.

A frame is black when nearly all its pixels are dark and it shows no detail (a night scene is
dark but has lights and shapes). A black run reached by a fade-out (several frames of steady
darkening, no single big step) and left by a fade-in, or by the clip's start or end, is a
transition: reported as a fact. A black run entered or left by a hard cut is a fault.
"""

from __future__ import annotations

from reeljudge.probes.derived import Derived
from reeljudge.probes.thresholds import BlackOptions
from reeljudge.probes.report import ProbeResult, list_ranges, range_details, runs, share_of_clip
from reeljudge.probes.signals import Signals


def is_fade(luma: list[float], edge: int, step: int, options: BlackOptions) -> bool:
    """Whether the frames next to a black run at ``edge`` (walking away from it by ``step``: −1 before
    a run, +1 after it) brighten steadily over at least ``fade_min_frames``, with no frame-to-frame
    step above ``fade_max_step`` of the whole change: a fade, not a hard cut."""
    k = edge
    while 0 <= k + step < len(luma) and luma[k + step] >= luma[k] - 0.5:
        k += step
    ramp = [luma[i] for i in range(edge, k + step, step)]
    if len(ramp) - 1 < options.fade_min_frames:
        return False
    total = ramp[-1] - ramp[0]
    steps = [b - a for a, b in zip(ramp, ramp[1:])]
    return total > 0 and max(steps) <= options.fade_max_step * total


def black_runs(signals: Signals, derived: Derived, options: BlackOptions) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(black runs that are faults, black runs that are fades) of at least ``black_min_frames``."""
    faults: list[tuple[int, int]] = []
    fades: list[tuple[int, int]] = []
    last = signals.count - 1
    for a, b in runs(derived.black, options.black_min_frames):
        into = a == 0 or is_fade(signals.luma, a, -1, options)
        out_of = b == last or is_fade(signals.luma, b, +1, options)
        whole_clip = a == 0 and b == last
        (fades if into and out_of and not whole_clip else faults).append((a, b))
    return faults, fades


def probe_black(signals: Signals, derived: Derived, options: BlackOptions) -> ProbeResult:
    """Fail on black runs entered or left by a hard cut; report fades to and from black as facts."""
    faults, fades = black_runs(signals, derived, options)
    count = sum(b - a + 1 for a, b in faults)
    score = 1.0 - count / max(1, signals.count)
    details = {"black_frames": count, "ruined_share": share_of_clip(signals, count), "runs": range_details(signals, faults),
               "fades": range_details(signals, fades)}
    facts = f"; fade to or from black (a transition, not a fault): {list_ranges(signals, fades)}" if fades else ""
    if faults == [(0, signals.count - 1)]:
        return ProbeResult("black_frames", False, score,
                           f"the whole clip is black: all {signals.count} analysed frames", details=details)
    if faults:
        reason = (f"{count} black frame(s) of {signals.count} with a hard cut into or out of black: "
                  f"{list_ranges(signals, faults)}{facts}")
        return ProbeResult("black_frames", False, score, reason, details=details)
    return ProbeResult("black_frames", True, 1.0,
                       f"no black frames outside fades in {signals.count} analysed{facts}", details=details)
