"""Frozen-frame probe: still runs in footage that was moving (a fault), told apart from still scenes (a property).

A still run (see ``stillness``) is frozen playback when the footage moved right up to it (the
picture changing well above the run's own noise, without slowing down) or when the picture jumps
ahead on leaving it (time went on while the picture stood still). A run with neither is a still
scene, a camera hold or an animation hold: reported, never failed.
"""

from __future__ import annotations

from statistics import median

from reeljudge.probes.camera import describe
from reeljudge.probes.derived import Derived, PairKind
from reeljudge.probes.thresholds import FrozenOptions, StillOptions
from reeljudge.probes.report import ProbeResult, frame_range, range_details, share_of_clip
from reeljudge.probes.measures import edge_share
from reeljudge.probes.signals import Signals
from reeljudge.probes.stillness import still_runs, usual_hold

_LABEL = {"duplicate": "exact duplicates", "still": "near-static"}


def _context_pairs(signals: Signals, options: FrozenOptions) -> int:
    """How many frame pairs ``frozen_context_s`` spans (at least 3)."""
    return max(3, int(round(options.frozen_context_s * (signals.info.fps or 24.0))))


def moving_into(signals: Signals, first: int, last: int, skip: set[int], options: FrozenOptions, stillness: StillOptions) -> bool:
    """Whether the footage moved right up to a run ``first``..``last``: over the context before it the
    median pair changed ≥ ``frozen_context_change`` levels and ≥ ``frozen_context_ratio`` × the run's
    own change (its noise), and the last pair into the run did not slow down (nor was something
    leaving at the frame's edge)."""
    if first < 1 or first in skip:
        return False
    pairs = [p for p in range(max(1, first - _context_pairs(signals, options) + 1), first + 1) if p not in skip]
    if len(pairs) < 2:
        return False
    usual = median(signals.change[p] for p in pairs)
    own = sum(signals.change[p] for p in range(first + 1, last + 1)) / max(1, last - first)
    moving = usual >= options.frozen_context_change and usual >= options.frozen_context_ratio * own
    return moving and signals.change[first] >= 0.5 * usual and not _at_edge(signals, first, options, stillness)


def _at_edge(signals: Signals, pair: int, options: FrozenOptions, stillness: StillOptions) -> bool:
    """Whether pair ``pair``'s change lies at the frame's edge (``frozen_edge_share``): something
    entering or leaving the picture, not a picture that stops or resumes."""
    return edge_share(signals.thumbs[pair - 1], signals.thumbs[pair], stillness) >= options.frozen_edge_share


def jumps_out_of(signals: Signals, last: int, kinds: list[PairKind], skip: set[int], options: FrozenOptions,
                 stillness: StillOptions) -> bool:
    """Whether the picture jumps on leaving a run that ends at frame ``last``: the next frame changes
    ≥ ``frozen_jump_ratio`` × the usual change of the moving pairs around (a cut, or something
    entering at the frame's edge, is not a jump)."""
    exit_pair = last + 1
    if exit_pair >= signals.count or exit_pair in skip or _at_edge(signals, exit_pair, options, stillness):
        return False
    n = _context_pairs(signals, options)
    around = [
        signals.change[p]
        for p in (*range(max(1, last - 2 * n), last), *range(exit_pair + 1, min(signals.count, exit_pair + 1 + n)))
        if kinds[p] == "moving" and p not in skip
    ]
    if len(around) < 2:
        return False
    return signals.change[exit_pair] >= options.frozen_jump_ratio * max(median(around), 0.5)


def frozen_runs(signals: Signals, derived: Derived, options: FrozenOptions,
                stillness: StillOptions) -> tuple[list[tuple[int, int, PairKind, str]], list[tuple[int, int, PairKind]]]:
    """(frozen runs with why, still runs that are properties of the footage)."""
    kinds = derived.kinds
    skip = set(derived.cuts) | {i for i in range(1, signals.count) if not derived.joins(i)}
    frozen, still = [], []
    for first, last, kind in still_runs(signals, derived, options, stillness):
        why = []
        if moving_into(signals, first, last, skip, options, stillness):
            why.append("after moving footage")
        if jumps_out_of(signals, last, kinds, skip, options, stillness):
            why.append("then the picture jumps ahead")
        if why:
            frozen.append((first, last, kind, " and ".join(why)))
        else:
            still.append((first, last, kind))
    return frozen, still


def probe_frozen(signals: Signals, derived: Derived, options: FrozenOptions, stillness: StillOptions) -> ProbeResult:
    """Fail on frozen playback (still runs in moving footage); report still scenes as a property."""
    frozen, still = frozen_runs(signals, derived, options, stillness)
    failing = [r for r in frozen if r[2] == "duplicate" or options.near_static_fails]
    count = sum(b - a + 1 for a, b, _, _ in frozen)
    score = 1.0 - count / max(1, signals.count)
    parts = [f"{frame_range(signals, a, b)} {_LABEL[k]} {why}" for a, b, k, why in frozen[:6]]
    if len(frozen) > 6:
        parts.append(f"and {len(frozen) - 6} more runs")
    held = [f"{frame_range(signals, a, b)} ({_LABEL[k]})" for a, b, k in still[:4]]
    facts = f"; still picture, a property of the shot: {', '.join(held)}" if held else ""
    details = {
        "frozen_frames": count,
        "ruined_share": share_of_clip(signals, count),
        "runs": [d | {"kind": k, "why": w} for d,
                 (_, _, k, w) in zip(range_details(signals, [(a, b) for a, b, _, _ in frozen]), frozen)],
        "still_runs": [d | {"kind": k} for d, (_, _, k) in zip(range_details(signals, [(a, b) for a, b, _ in still]), still)],
        "still_frames": sum(b - a + 1 for a, b, _ in still),
        "usual_hold_frames": usual_hold(derived.kinds),
    }
    if failing:
        reason = f"frozen playback, {count} frame(s): {'; '.join(parts)}{facts}"
        return ProbeResult("frozen_frames", False, score, reason, details=details)
    if frozen:
        return ProbeResult("frozen_frames", True, score, f"near-static (allowed): {'; '.join(parts)}{facts}", details=details)
    return ProbeResult("frozen_frames", True, 1.0,
                       f"no frozen playback in {signals.count} analysed frames{_seen(signals, derived)}{facts}", details=details)


def _seen(signals: Signals, derived: Derived) -> str:
    """What the camera did on the pairs that changed, for a passing reason ("" when none did)."""
    seen = describe(signals, [i for i, ok in enumerate(derived.camera) if ok])
    return f" ({seen})" if seen else ""
