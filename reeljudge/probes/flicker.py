"""Flicker probe: alternating brightness changes that motion does not explain."""

from __future__ import annotations

from reeljudge.probes.black import black_flags
from reeljudge.probes.options import ProbeOptions
from reeljudge.probes.report import ProbeResult, list_ranges, range_details
from reeljudge.probes.signals import Signals


def flicker_runs(signals: Signals, options: ProbeOptions) -> list[tuple[int, int]]:
    """Frame ranges over which the motion-compensated brightness change flips sign repeatedly."""
    black = black_flags(signals, options)
    delta = signals.mc_delta
    thr = options.flicker_min_delta
    strong = [abs(delta[i]) >= thr and not black[i] and not (i and black[i - 1]) for i in range(signals.count)]
    flips = [False] * signals.count
    for i in range(2, signals.count):
        flips[i] = strong[i] and strong[i - 1] and (delta[i] > 0) != (delta[i - 1] > 0)
    found: list[tuple[int, int]] = []
    i = 0
    while i < signals.count:
        if flips[i]:
            j = i
            while j + 1 < signals.count and flips[j + 1]:
                j += 1
            alternations = j - i + 1
            if alternations >= options.flicker_min_alternations:
                found.append((i - 1, j - 1))  # pairs i−1 … j flip: frames i−1 … j−1 are off
            i = j + 1
        else:
            i += 1
    return found


def probe_flicker(signals: Signals, options: ProbeOptions) -> ProbeResult:
    """Fail on runs of at least ``flicker_min_alternations`` motion-compensated brightness flips."""
    found = flicker_runs(signals, options)
    frames = sum(b - a + 1 for a, b in found)
    peak = max((abs(signals.mc_delta[i]) for a, b in found for i in range(a, b + 1)), default=0.0)
    details = {"runs": range_details(signals, found), "peak_delta": round(peak, 2)}
    if found:
        reason = f"brightness flicker (±{peak:.0f} levels, not explained by motion) over {list_ranges(signals, found)}"
        return ProbeResult("flicker", False, 1.0 - frames / max(1, signals.count), reason, details=details)
    return ProbeResult("flicker", True, 1.0, f"no flicker in {signals.count} analysed frames", details=details)
