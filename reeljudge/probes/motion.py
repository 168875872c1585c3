"""Camera motion probes: shake (a fault) and a smoothness proxy (a property unless a minimum is set).

Both read the global motion (median optical flow over the textured part of the picture) as a
velocity over each pair's own time interval, so variable-frame-rate clips are judged by their
timestamps, not their frame indices; pairs whose picture has too little texture for reliable
flow (flat colour) are not judged.
"""

from __future__ import annotations

from reeljudge.probes.black import black_flags
from reeljudge.probes.cuts import cut_frames
from reeljudge.probes.options import ProbeOptions
from reeljudge.probes.report import ProbeResult, list_ranges, range_details, runs, share_of_clip
from reeljudge.probes.signals import Signals


def velocities(signals: Signals, options: ProbeOptions) -> list[tuple[float, float] | None]:
    """Per pair: the global motion in px per nominal frame interval, over the time since the picture
    last changed (a held frame, as animation on twos holds each drawing, is no stop); None for held
    pairs and where no time passed."""
    from reeljudge.probes.stillness import pair_kinds

    kinds = pair_kinds(signals, options)
    nominal = 1.0 / (signals.info.fps or 24.0)
    out: list[tuple[float, float] | None] = [None]
    shown = signals.time_of(0)  # when the current picture first appeared
    for i in range(1, signals.count):
        if kinds[i] != "moving":
            out.append(None)
            continue
        dt = signals.times[i] - shown
        shown = signals.times[i]
        out.append((signals.gdx[i] * nominal / dt, signals.gdy[i] * nominal / dt) if dt > 0 else None)
    return out


def shake_runs(signals: Signals, options: ProbeOptions) -> list[tuple[int, int]]:
    """Frame ranges where the camera's velocity jitters around its local trend by more than ``shake_px``.

    Only pairs with one dominant motion are judged (jitter > ``shake_spread_ratio`` × the flow
    field's interquartile range) and with texture enough for flow (``shake_min_texture``); the
    trend is taken within the pair's shot, never across a cut or a black frame.
    """
    n = signals.count
    black = black_flags(signals, options)
    cuts = set(cut_frames(signals, options))
    shot = [0] * n
    for i in range(1, n):
        shot[i] = shot[i - 1] + (1 if i in cuts else 0)
    speed = velocities(signals, options)
    usable = [
        i > 0 and not black[i] and not black[i - 1] and i not in cuts and speed[i] is not None and signals.texture[i] >= options.shake_min_texture
        for i in range(n)
    ]
    scale = min(signals.info.analysis_width, signals.info.analysis_height) / 256.0
    limit = options.shake_px * max(scale, 0.25)
    jitter = [False] * n
    for i in range(1, n):
        window = [j for j in range(max(1, i - 2), min(n, i + 3)) if j != i and usable[j] and shot[j] == shot[i]]
        if not window or not usable[i]:
            continue
        mx = sorted(speed[j][0] for j in window)[len(window) // 2]  # type: ignore[index]
        my = sorted(speed[j][1] for j in window)[len(window) // 2]  # type: ignore[index]
        vx, vy = speed[i]  # type: ignore[misc]
        dev = ((vx - mx) ** 2 + (vy - my) ** 2) ** 0.5  # px per nominal frame interval
        jitter[i] = dev > limit and dev > options.shake_spread_ratio * signals.gd_spread[i]
    # fill single-pair gaps: shake jitters, it does not deviate on every frame
    filled = jitter[:]
    for i in range(1, n - 1):
        if not jitter[i] and jitter[i - 1] and jitter[i + 1]:
            filled[i] = True
    return runs(filled, options.shake_min_frames)


def probe_shake(signals: Signals, options: ProbeOptions) -> ProbeResult:
    """Fail on runs of camera shake (global motion jitter) of at least ``shake_min_frames`` frames."""
    found = shake_runs(signals, options)
    frames = sum(b - a + 1 for a, b in found)
    details = {"ruined_share": share_of_clip(signals, frames), "runs": range_details(signals, found)}
    if found:
        reason = f"camera shake over {list_ranges(signals, found)}"
        return ProbeResult("camera_shake", False, 1.0 - frames / max(1, signals.count), reason, details=details)
    return ProbeResult("camera_shake", True, 1.0, f"no camera shake in {signals.count} analysed frames", details=details)


def probe_smoothness(signals: Signals, options: ProbeOptions) -> ProbeResult:
    """Smoothness proxy: 1 / (1 + RMS change of the camera's velocity between pairs, px per frame² at 256 short side)."""
    scale = min(signals.info.analysis_width, signals.info.analysis_height) / 256.0 or 1.0
    black = black_flags(signals, options)
    speed = velocities(signals, options)
    accel = [
        ((speed[i][0] - speed[i - 1][0]) ** 2 + (speed[i][1] - speed[i - 1][1]) ** 2) / scale**2  # type: ignore[index]
        for i in range(2, signals.count)
        if speed[i] is not None and speed[i - 1] is not None and not (black[i] or black[i - 1] or black[i - 2])
    ]
    rms = (sum(accel) / len(accel)) ** 0.5 if accel else 0.0
    value = 1.0 / (1.0 + rms)
    gating = options.min_smoothness is not None
    passed = not gating or value >= float(options.min_smoothness or 0.0)
    reason = f"smoothness {value:.3f} (RMS global-motion change {rms:.2f} px/frame²)"
    if gating:
        reason += f", minimum {options.min_smoothness:g}"
    else:
        reason += " (a property of the shot, not required)"
    return ProbeResult("motion_smoothness", passed, value, reason, gating=gating, details={"rms_accel_px": round(rms, 3)})
