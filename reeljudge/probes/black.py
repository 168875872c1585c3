"""Black-frame probe: runs of frames that are (almost) entirely dark."""

from __future__ import annotations

from reeljudge.probes.options import ProbeOptions
from reeljudge.probes.report import ProbeResult, list_ranges, range_details, runs
from reeljudge.probes.signals import Signals


def black_flags(signals: Signals, options: ProbeOptions) -> list[bool]:
    """Per analysed frame: is it black."""
    return [d >= options.black_dark_fraction for d in signals.dark]


def probe_black(signals: Signals, options: ProbeOptions) -> ProbeResult:
    """Fail when any run of black frames is at least ``black_min_frames`` long."""
    flags = black_flags(signals, options)
    found = runs(flags, options.black_min_frames)
    count = sum(b - a + 1 for a, b in found)
    score = 1.0 - count / max(1, signals.count)
    details = {"black_frames": count, "runs": range_details(signals, found)}
    if found:
        reason = f"{count} black frame(s) of {signals.count}: {list_ranges(signals, found)}"
        return ProbeResult("black_frames", False, score, reason, details=details)
    return ProbeResult("black_frames", True, 1.0, f"no black frames in {signals.count} analysed", details=details)
