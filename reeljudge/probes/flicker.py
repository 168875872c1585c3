"""Flicker probe: brightness swinging up and down faster than ``flicker_min_hz``, motion not explaining it.

The motion-compensated brightness change of each frame pair (the median residual after warping
by the optical flow, so a pan or a moving object adds nothing) is summed into a brightness curve
within each shot. Slow changes (fades, exposure, lighting) are removed with a moving trimmed mean one
slowest-flicker period wide; what is left is cut into swings (moves of at least
``flicker_min_delta`` levels between turning points). ``flicker_min_swings`` swings in a row,
each shorter than half the slowest flicker's period, are flicker: periodic (its rate reported)
when the periods are regular, aperiodic otherwise. A flash is two swings, not flicker. Rates up
to the clip's Nyquist rate (half its frame rate) are seen; timestamps, not frame counts, set
durations, so variable frame rates are read right.
"""

from __future__ import annotations

from statistics import mean, median, pstdev

from reeljudge.probes.derived import Derived
from reeljudge.probes.thresholds import FlickerOptions
from reeljudge.probes.report import ProbeResult, frame_range, range_details, share_of_clip
from reeljudge.probes.signals import Signals


def _segments(signals: Signals, derived: Derived) -> list[list[int]]:
    """Runs of frames joined by pairs whose brightness change is measurable (no black, no cut)."""
    breaks = set(derived.cuts)
    segments: list[list[int]] = []
    for i in range(signals.count):
        joined = derived.joins(i) and i not in breaks
        if joined and segments:
            segments[-1].append(i)
        else:
            segments.append([i])
    return [s for s in segments if len(s) >= 3]


def _detrended(signals: Signals, frames: list[int], options: FlickerOptions) -> list[float]:
    """The segment's brightness curve minus its moving trimmed mean over one slowest-flicker period."""
    curve = [0.0]
    for i in frames[1:]:
        curve.append(curve[-1] + signals.mc_delta[i])
    half = max(1, int(round((signals.info.fps or 24.0) / options.flicker_min_hz / 2)))
    return [curve[k] - _trimmed_mean(curve[max(0, k - half) : k + half + 1]) for k in range(len(curve))]


def _trimmed_mean(values: list[float]) -> float:
    """The mean of the middle half of ``values``: follows slow trends, ignores a flash, averages an alternation."""
    ordered = sorted(values)
    cut = len(ordered) // 4
    middle = ordered[cut : len(ordered) - cut]
    return sum(middle) / len(middle)


def turning_points(values: list[float], min_delta: float) -> list[int]:
    """Indices where ``values`` turn after moving at least ``min_delta`` (a zigzag with hysteresis);
    every move between consecutive points is at least ``min_delta``."""
    points: list[int] = []
    low = high = extreme = 0
    direction = 0  # +1 rising (tracking a maximum), −1 falling (tracking a minimum), 0 not yet known
    for k, v in enumerate(values):
        if direction == 0:
            low = k if v < values[low] else low
            high = k if v > values[high] else high
            if values[high] - values[low] >= min_delta:
                points.append(min(low, high))
                direction, extreme = (1, high) if high > low else (-1, low)
        elif direction * (v - values[extreme]) > 0:
            extreme = k
        elif direction * (values[extreme] - v) >= min_delta:
            points.append(extreme)
            direction, extreme = -direction, k
    if direction:
        points.append(extreme)
    return points


def flicker_runs(signals: Signals, derived: Derived, options: FlickerOptions) -> list[tuple[int, int, float | None, float]]:
    """Flicker runs as (first frame, last frame, rate in Hz when periodic else None, swing size in levels)."""
    fps = signals.info.fps or 24.0
    longest = 0.5 / options.flicker_min_hz + 1.0 / fps  # a swing of the slowest flicker, one frame of slack
    found = []
    for frames in _segments(signals, derived):
        values = _detrended(signals, frames, options)
        points = turning_points(values, options.flicker_min_delta)
        times = [signals.times[frames[k]] for k in points]
        k = 0
        while k < len(points) - 1:
            j = k
            while j + 1 < len(points) and times[j + 1] - times[j] <= longest:
                j += 1
            if j - k >= options.flicker_min_swings:
                swing = median(abs(values[points[m + 1]] - values[points[m]]) for m in range(k, j))
                found.append((frames[points[k]], frames[points[j]], _rate(times[k : j + 1], options), swing))
            k = max(j, k + 1)
    return found


def _rate(times: list[float], options: FlickerOptions) -> float | None:
    """The flicker's rate from its turning-point times when its periods are regular, else None
    (the first and last periods, cut by the flicker's start and end, are left out when there are four or more)."""
    periods = [times[m + 2] - times[m] for m in range(len(times) - 2)]
    core = periods[1:-1] if len(periods) >= 4 else periods
    if len(core) < 2 or mean(core) <= 0:
        return None
    if pstdev(core) / mean(core) > options.flicker_periodic_cv:
        return None
    return 1.0 / median(core)


def probe_flicker(signals: Signals, derived: Derived, options: FlickerOptions) -> ProbeResult:
    """Fail on flicker runs; name their frames, times, swing size and rate."""
    found = [(a, b, round(hz, 2) if hz else None, s) for a, b, hz, s in flicker_runs(signals, derived, options)]
    frames = sum(b - a + 1 for a, b, _, _ in found)
    details = {
        "ruined_share": share_of_clip(signals, frames),
        "runs": [{**d, "hz": hz, "swing_levels": round(s, 1)} for d,
                 (_, _, hz, s) in zip(range_details(signals, [(a, b) for a, b, _, _ in found]), found)],
        "nyquist_hz": round((signals.info.fps or 24.0) / 2, 2),
    }
    if found:
        parts = [f"{frame_range(signals, a, b)} {'at %.1f Hz' % hz if hz else 'aperiodic'}, ±{s / 2:.0f} levels"
                 for a, b, hz, s in found[:6]]
        reason = f"brightness flicker not explained by motion: {'; '.join(parts)}"
        return ProbeResult("flicker", False, 1.0 - frames / max(1, signals.count), reason, details=details)
    return ProbeResult("flicker", True, 1.0, f"no flicker in {signals.count} analysed frames", details=details)
