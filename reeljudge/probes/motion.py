"""Camera motion probes: shake (a fault) and a smoothness proxy (a property unless a minimum is set).

Both read the global motion (median optical flow over the textured part of the picture, measured
again from phase correlation's shift when the flow locked onto a repeat of a texture, and only its
part across the texture where the texture runs one way: see ``signals``) as a velocity over each
pair's own time interval, so variable-frame-rate clips are judged by their timestamps, not their
frame indices; pairs whose picture has too little texture for reliable flow (flat colour) are not
judged. Their reasons say what the camera did (``camera.describe``).
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


def camera_pairs(signals: Signals, options: ProbeOptions) -> list[bool]:
    """Per pair: whether its camera motion can be judged — the picture changed (not held), no black frame
    or cut in it, texture enough for flow (``shake_min_texture``), and one motion that fits (the
    correlated shift's best other peak under ``shake_ambiguous`` × its own: a pan by half a texture's
    period fits its neighbouring repeat as well, and can be read either way)."""
    black = black_flags(signals, options)
    cuts = set(cut_frames(signals, options))
    speed = velocities(signals, options)
    return [
        i > 0 and not black[i] and not black[i - 1] and i not in cuts and speed[i] is not None and signals.texture[i] >= options.shake_min_texture
        and signals.shift_rival[i] < options.shake_ambiguous * signals.shift_peak[i]
        for i in range(signals.count)
    ]


def jitter(signals: Signals, options: ProbeOptions) -> list[float]:
    """Per pair: how far the camera's velocity strays from its local trend (px per nominal frame at the
    analysis size; 0 where it is not judged). Only pairs with one dominant motion count (a deviation
    > ``shake_spread_ratio`` × the flow field's interquartile range); the trend is the median of up to
    two judged pairs on each side within the pair's shot, never across a cut or a black frame."""
    n = signals.count
    cuts = set(cut_frames(signals, options))
    shot = [0] * n
    for i in range(1, n):
        shot[i] = shot[i - 1] + (1 if i in cuts else 0)
    speed = velocities(signals, options)
    usable = camera_pairs(signals, options)
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


def shake_runs(signals: Signals, options: ProbeOptions) -> list[tuple[int, int]]:
    """Frame ranges where the camera's velocity jitters around its local trend (``jitter``) by more
    than ``shake_px`` (at 256 px short side), at least ``shake_min_frames`` long; a single calm pair
    between two jittery ones belongs to the run (shake jitters, it does not deviate on every frame)."""
    n = signals.count
    scale = min(signals.info.analysis_width, signals.info.analysis_height) / 256.0
    limit = options.shake_px * max(scale, 0.25)
    shaking = [dev > limit for dev in jitter(signals, options)]
    filled = shaking[:]
    for i in range(1, n - 1):
        if not shaking[i] and shaking[i - 1] and shaking[i + 1]:
            filled[i] = True
    return runs(filled, options.shake_min_frames)


def probe_shake(signals: Signals, options: ProbeOptions) -> ProbeResult:
    """Fail on runs of camera shake (global motion jitter) of at least ``shake_min_frames`` frames; the
    reason says how far the camera jumps, or what its steady motion was."""
    from reeljudge.probes.camera import clip_scale, describe

    found = shake_runs(signals, options)
    frames = sum(b - a + 1 for a, b in found)
    devs = jitter(signals, options)
    scale = clip_scale(signals)
    worst = [max(devs[a : b + 1]) * scale for a, b in found]
    details = {"ruined_share": share_of_clip(signals, frames), "runs": [d | {"jitter_px": round(w, 1)} for d, w in zip(range_details(signals, found), worst)]}
    if found:
        reason = f"camera shake over {list_ranges(signals, found)}: the camera jumps up to {max(worst):.1f} px/frame off its path"
        return ProbeResult("camera_shake", False, 1.0 - frames / max(1, signals.count), reason, details=details)
    seen = describe(signals, [i for i, ok in enumerate(camera_pairs(signals, options)) if ok])
    return ProbeResult("camera_shake", True, 1.0, f"no camera shake in {signals.count} analysed frames" + (f": {seen}" if seen else ""), details=details)


def probe_smoothness(signals: Signals, options: ProbeOptions) -> ProbeResult:
    """Smoothness proxy: 1 / (1 + RMS change of the camera's velocity between pairs, px per frame² at 256 short side)."""
    from reeljudge.probes.camera import describe

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
    seen = describe(signals, [i for i, ok in enumerate(camera_pairs(signals, options)) if ok])
    reason = f"smoothness {value:.3f} (RMS global-motion change {rms:.2f} px/frame²{'; ' + seen if seen else ''})"
    if gating:
        reason += f", minimum {options.min_smoothness:g}"
    else:
        reason += " (a property of the shot, not required)"
    return ProbeResult("motion_smoothness", passed, value, reason, gating=gating, details={"rms_accel_px": round(rms, 3)})
