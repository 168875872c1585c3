"""Frozen-frame probe: runs of repeated frames, exact duplicates told apart from near-static ones."""

from __future__ import annotations

from typing import Literal

from reeljudge.probes.black import black_flags
from reeljudge.probes.options import ProbeOptions
from reeljudge.probes.report import ProbeResult, frame_range, range_details, runs
from reeljudge.probes.signals import Signals

PairKind = Literal["moving", "duplicate", "near_static"]


def pair_kinds(signals: Signals, options: ProbeOptions) -> list[PairKind]:
    """Per analysed frame i ≥ 1: how it differs from frame i−1 (index 0 is "moving")."""
    black = black_flags(signals, options)
    kinds: list[PairKind] = ["moving"]
    for i in range(1, signals.count):
        if black[i] and black[i - 1]:
            kinds.append("moving")  # reported by the black-frame probe
        elif signals.changed[i] <= options.duplicate_changed_fraction and signals.diff_mean[i] <= options.duplicate_mean_diff:
            kinds.append("duplicate")
        elif signals.diff_mean[i] <= options.static_mean_diff and signals.changed[i] <= options.static_changed_fraction:
            kinds.append("near_static")
        else:
            kinds.append("moving")
    return kinds


def frozen_runs(signals: Signals, options: ProbeOptions) -> list[tuple[int, int, PairKind]]:
    """Frozen runs as (first frame, last frame, kind), the first frame being the one that repeats."""
    kinds = pair_kinds(signals, options)
    found = []
    for a, b in runs([k != "moving" for k in kinds], max(1, options.frozen_min_frames - 1)):
        kind: PairKind = "duplicate" if all(kinds[i] == "duplicate" for i in range(a, b + 1)) else "near_static"
        if kind == "near_static" and run_change(signals, a - 1, b) > options.static_run_max_change:
            continue  # small steps that add up: slow motion, not a freeze
        found.append((a - 1, b, kind))
    return found


def run_change(signals: Signals, start: int, end: int) -> float:
    """The largest mean abs difference (levels) between frame ``start`` and any later frame up to ``end``."""
    import numpy as np

    first = signals.thumbs[start].astype(np.int16)
    return max(float(np.abs(signals.thumbs[i].astype(np.int16) - first).mean()) for i in range(start, end + 1))


def probe_frozen(signals: Signals, options: ProbeOptions) -> ProbeResult:
    """Fail on runs of at least ``frozen_min_frames`` identical or near-static frames."""
    found = frozen_runs(signals, options)
    failing = [r for r in found if r[2] == "duplicate" or options.near_static_fails]
    count = sum(b - a + 1 for a, b, _ in found)
    score = 1.0 - count / max(1, signals.count)
    label = {"duplicate": "exact duplicates", "near_static": "near-static"}
    parts = [f"{frame_range(signals, a, b)} {label[k]}" for a, b, k in found[:6]]
    if len(found) > 6:
        parts.append(f"and {len(found) - 6} more runs")
    details = {
        "frozen_frames": count,
        "runs": [d | {"kind": k} for d, (_, _, k) in zip(range_details(signals, [(a, b) for a, b, _ in found]), found)],
    }
    if failing:
        return ProbeResult("frozen_frames", False, score, f"{count} frozen frame(s): {'; '.join(parts)}", details=details)
    if found:
        return ProbeResult("frozen_frames", True, score, f"near-static (allowed): {'; '.join(parts)}", details=details)
    return ProbeResult("frozen_frames", True, 1.0, f"no frozen runs in {signals.count} analysed frames", details=details)
