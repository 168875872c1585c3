"""Motion probes: VBench dynamic degree on classical optical flow, camera shake, a smoothness proxy."""

from __future__ import annotations

from reeljudge.probes.black import black_flags
from reeljudge.probes.cuts import cut_frames
from reeljudge.probes.options import ProbeOptions
from reeljudge.probes.report import ProbeResult, frame_range, list_ranges, range_details, runs
from reeljudge.probes.signals import Signals


def dynamic_threshold(signals: Signals, options: ProbeOptions) -> float:
    """VBench's flow threshold, 6 · (short side / 256), at the analysis size."""
    short = min(signals.info.analysis_width, signals.info.analysis_height)
    return options.dynamic_threshold * short / 256.0


def probe_dynamic_degree(signals: Signals, options: ProbeOptions) -> ProbeResult:
    """VBench dynamic degree: the clip moves when ≥ round(4·N/16) sampled pairs exceed the threshold."""
    thr = dynamic_threshold(signals, options)
    scores = [m for _, _, m in signals.dd_pairs]
    frames_sampled = len(scores) + 1
    needed = max(1, round(4 * frames_sampled / 16.0))
    above = sum(1 for m in scores if m > thr)
    moves = above >= needed and bool(scores)
    amount = (sum(scores) / len(scores) / thr) if scores else 0.0
    details = {
        "moves": moves,
        "pairs_above": above,
        "pairs_needed": needed,
        "pairs": len(scores),
        "sample_interval_frames": signals.dd_interval,
        "threshold_px": round(thr, 3),
        "mean_top5_flow_px": round(sum(scores) / len(scores), 3) if scores else 0.0,
        "motion_amount": round(amount, 3),
    }
    facts = f"{above}/{len(scores)} sampled pairs (every {signals.dd_interval} frames) exceed {thr:.2f} px, {needed} needed"
    whole = frame_range(signals, 0, signals.count - 1)
    if not scores:
        return ProbeResult("dynamic_degree", not options.expect_motion, 0.0, f"too few frames to measure motion over {whole}", gating=options.expect_motion, details=details)
    if moves:
        return ProbeResult("dynamic_degree", True, 1.0, f"moves: {facts}; motion amount {amount:.2f}× threshold", gating=options.expect_motion, details=details)
    return ProbeResult("dynamic_degree", not options.expect_motion, 0.0, f"no motion over {whole}: {facts}", gating=options.expect_motion, details=details)


def shake_runs(signals: Signals, options: ProbeOptions) -> list[tuple[int, int]]:
    """Frame ranges where the global motion jitters around its local trend by more than ``shake_px``.

    Only pairs with one dominant motion are judged (jitter > ``shake_spread_ratio`` × the flow
    field's interquartile range), and the trend is taken within the pair's shot, never across a
    cut or a black frame, whose flow is meaningless.
    """
    n = signals.count
    black = black_flags(signals, options)
    cuts = set(cut_frames(signals, options))
    shot = [0] * n
    for i in range(1, n):
        shot[i] = shot[i - 1] + (1 if i in cuts else 0)
    usable = [i > 0 and not black[i] and not black[i - 1] and i not in cuts for i in range(n)]
    scale = min(signals.info.analysis_width, signals.info.analysis_height) / 256.0
    limit = options.shake_px * max(scale, 0.25)
    jitter = [False] * n
    for i in range(1, n):
        window = [j for j in range(max(1, i - 2), min(n, i + 3)) if j != i and usable[j] and shot[j] == shot[i]]
        if not window or not usable[i]:
            continue
        mx = sorted(signals.gdx[j] for j in window)[len(window) // 2]
        my = sorted(signals.gdy[j] for j in window)[len(window) // 2]
        dev = ((signals.gdx[i] - mx) ** 2 + (signals.gdy[i] - my) ** 2) ** 0.5
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
    details = {"runs": range_details(signals, found)}
    if found:
        reason = f"camera shake over {list_ranges(signals, found)}"
        return ProbeResult("camera_shake", False, 1.0 - frames / max(1, signals.count), reason, details=details)
    return ProbeResult("camera_shake", True, 1.0, f"no camera shake in {signals.count} analysed frames", details=details)


def probe_smoothness(signals: Signals, options: ProbeOptions) -> ProbeResult:
    """Smoothness proxy: 1 / (1 + RMS change of global motion between frames, in px at 256 short side)."""
    scale = min(signals.info.analysis_width, signals.info.analysis_height) / 256.0 or 1.0
    black = black_flags(signals, options)
    accel = [
        ((signals.gdx[i] - signals.gdx[i - 1]) ** 2 + (signals.gdy[i] - signals.gdy[i - 1]) ** 2) / scale**2
        for i in range(2, signals.count)
        if not (black[i] or black[i - 1] or black[i - 2])
    ]
    rms = (sum(accel) / len(accel)) ** 0.5 if accel else 0.0
    value = 1.0 / (1.0 + rms)
    gating = options.min_smoothness is not None
    passed = not gating or value >= float(options.min_smoothness or 0.0)
    reason = f"smoothness {value:.3f} (RMS global-motion change {rms:.2f} px/frame²)"
    if gating:
        reason += f", minimum {options.min_smoothness:g}"
    return ProbeResult("motion_smoothness", passed, value, reason, gating=gating, details={"rms_accel_px": round(rms, 3)})
