"""Camera motion probes: shake (a fault) and a smoothness proxy (a property unless a minimum is set).

Both read the global motion (median optical flow over the textured part of the picture, measured
again from phase correlation's shift when the flow locked onto a repeat of a texture, and only its
part across the texture where the texture runs one way: see ``signals``) as a velocity over each
pair's own time interval, so variable-frame-rate clips are judged by their timestamps, not their
frame indices; pairs whose picture has too little texture for reliable flow (flat colour) are not
judged. Their reasons say what the camera did (``camera.describe``).
"""

from __future__ import annotations

from reeljudge.probes.camera import clip_scale, describe
from reeljudge.probes.derived import Derived
from reeljudge.probes.thresholds import CameraOptions
from reeljudge.probes.report import ProbeResult, list_ranges, range_details, runs, share_of_clip
from reeljudge.probes.signals import Signals


def jitter(signals: Signals, derived: Derived, options: CameraOptions) -> list[float]:
    """Per pair: how far the camera's velocity strays from its local trend (px per nominal frame at the
    analysis size; 0 where it is not judged). Only pairs with one dominant motion count (a deviation
    > ``shake_spread_ratio`` × the flow field's interquartile range); the trend is the median of up to
    two judged pairs on each side within the pair's shot, never across a cut or a black frame."""
    n = signals.count
    cuts = set(derived.cuts)
    shot = [0] * n
    for i in range(1, n):
        shot[i] = shot[i - 1] + (1 if i in cuts else 0)
    speed, usable = derived.velocities, derived.camera
    out = [0.0] * n
    for i in range(1, n):
        window = [j for j in range(max(1, i - 2), min(n, i + 3)) if j != i and usable[j] and shot[j] == shot[i]]
        if not window or not usable[i]:
            continue
        mx = sorted(speed[j][0] for j in window)[len(window) // 2]  # type: ignore[index]
        my = sorted(speed[j][1] for j in window)[len(window) // 2]  # type: ignore[index]
        vx, vy = speed[i]  # type: ignore[misc]
        dev = ((vx - mx) ** 2 + (vy - my) ** 2) ** 0.5
        out[i] = dev if dev > options.shake_spread_ratio * signals.gd_spread[i] else 0.0
    return out


def shake_runs(signals: Signals, derived: Derived, options: CameraOptions) -> list[tuple[int, int]]:
    """Frame ranges where the camera's velocity jitters around its local trend (``jitter``) by more
    than ``shake_px`` (at 256 px short side), at least ``shake_min_frames`` long; a single calm pair
    between two jittery ones belongs to the run (shake jitters, it does not deviate on every frame)."""
    n = signals.count
    scale = min(signals.info.analysis_width, signals.info.analysis_height) / 256.0
    limit = options.shake_px * max(scale, 0.25)
    shaking = [dev > limit for dev in jitter(signals, derived, options)]
    filled = shaking[:]
    for i in range(1, n - 1):
        if not shaking[i] and shaking[i - 1] and shaking[i + 1]:
            filled[i] = True
    return runs(filled, options.shake_min_frames)


def probe_shake(signals: Signals, derived: Derived, options: CameraOptions) -> ProbeResult:
    """Fail on runs of camera shake (global motion jitter) of at least ``shake_min_frames`` frames; the
    reason says how far the camera jumps, or what its steady motion was."""
    found = shake_runs(signals, derived, options)
    frames = sum(b - a + 1 for a, b in found)
    devs = jitter(signals, derived, options)
    scale = clip_scale(signals)
    worst = [max(devs[a : b + 1]) * scale for a, b in found]
    details = {"ruined_share": share_of_clip(signals, frames),
               "runs": [d | {"jitter_px": round(w, 1)} for d, w in zip(range_details(signals, found), worst)]}
    if found:
        reason = f"camera shake over {list_ranges(signals, found)}: the camera jumps up to {max(worst):.1f} px/frame off its path"
        return ProbeResult("camera_shake", False, 1.0 - frames / max(1, signals.count), reason, details=details)
    seen = describe(signals, [i for i, ok in enumerate(derived.camera) if ok])
    return ProbeResult("camera_shake", True, 1.0, f"no camera shake in {signals.count} analysed frames"
                       + (f": {seen}" if seen else ""), details=details)


def probe_smoothness(signals: Signals, derived: Derived, options: CameraOptions) -> ProbeResult:
    """Smoothness proxy: 1 / (1 + RMS change of the camera's velocity between pairs, px per frame² at 256 short side)."""
    scale = min(signals.info.analysis_width, signals.info.analysis_height) / 256.0 or 1.0
    black, speed = derived.black, derived.velocities
    accel = [
        ((speed[i][0] - speed[i - 1][0]) ** 2 + (speed[i][1] - speed[i - 1][1]) ** 2) / scale**2  # type: ignore[index]
        for i in range(2, signals.count)
        if speed[i] is not None and speed[i - 1] is not None and not (black[i] or black[i - 1] or black[i - 2])
    ]
    rms = float((sum(accel) / len(accel)) ** 0.5) if accel else 0.0  # a plain float: the velocities are float32
    value = 1.0 / (1.0 + rms)
    gating = options.min_smoothness is not None
    passed = not gating or value >= float(options.min_smoothness or 0.0)
    seen = describe(signals, [i for i, ok in enumerate(derived.camera) if ok])
    reason = f"smoothness {value:.3f} (RMS global-motion change {rms:.2f} px/frame²{'; ' + seen if seen else ''})"
    if gating:
        reason += f", minimum {options.min_smoothness:g}"
    else:
        reason += " (a property of the shot, not required)"
    return ProbeResult("motion_smoothness", passed, value, reason, gating=gating, details={"rms_accel_px": round(rms, 3)})
