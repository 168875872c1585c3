"""Which frames are still: pairs that do not change beyond noise, and the runs they form.

A still run is a fact about the footage. Whether it is a fault (frozen playback) or a property
(a still scene, an animation hold) is decided by the frozen-frame probe from what surrounds it.
"""

from __future__ import annotations

import math
from statistics import median
from typing import Literal

from reeljudge.probes.black import black_flags
from reeljudge.probes.options import ProbeOptions
from reeljudge.probes.measures import thumb_difference
from reeljudge.probes.signals import Signals

PairKind = Literal["moving", "duplicate", "still"]


def pair_kinds(signals: Signals, options: ProbeOptions) -> list[PairKind]:
    """Per analysed frame i ≥ 1: how it differs from frame i−1 (index 0 is "moving"; black pairs too).

    A pair is still when its thumbnail does not change beyond noise, nor by more than
    ``still_max_change`` on average (a picture that changes alike everywhere, as a checkerboard
    panned by one square does, has not held), and the picture does not shift as a whole (``shifts``)."""
    black = black_flags(signals, options)
    kinds: list[PairKind] = ["moving"]
    for i in range(1, signals.count):
        if black[i] or black[i - 1]:
            kinds.append("moving")  # left to the black-frame probe
        elif signals.changed[i] <= options.duplicate_changed_fraction and signals.diff_mean[i] <= options.duplicate_mean_diff:
            kinds.append("duplicate")
        elif signals.moved[i] <= options.still_moved_share and signals.change[i] <= options.still_max_change and not shifts(signals, i, options):
            kinds.append("still")
        else:
            kinds.append("moving")
    return kinds


def shifts(signals: Signals, pair: int, options: ProbeOptions) -> bool:
    """Whether the picture of pair ``pair`` moves as a whole by ≥ ``still_shift_px`` (its global motion):
    a pan over an even texture (stripes, tiles, water) changes every thumbnail pixel alike, which
    reads as noise to the thumbnail test, yet the picture moves."""
    return math.hypot(signals.gdx[pair], signals.gdy[pair]) >= options.still_shift_px


def usual_hold(kinds: list[PairKind]) -> int:
    """How many frames the clip usually shows one picture: 1 for live footage, 2 for animation on twos
    (the median length of the holds between changes; holds at the clip's start or end do not count)."""
    holds, length, started = [], 1, False
    for kind in kinds[1:]:
        if kind == "moving":
            if started:
                holds.append(length)
            started, length = True, 1
        else:
            length += 1
    return int(median(holds)) if holds else 1


def drifts(signals: Signals, start: int, end: int, options: ProbeOptions) -> bool:
    """Whether any frame of ``start``..``end`` has moved away from frame ``start`` (slow motion adds up)."""
    first = signals.thumbs[start]
    return any(thumb_difference(first, signals.thumbs[i], options)[0] > options.still_moved_share for i in range(start + 1, end + 1))


def still_runs(signals: Signals, options: ProbeOptions) -> list[tuple[int, int, PairKind]]:
    """Runs of frames that show one still picture, as (first frame, last frame, kind): at least
    ``frozen_min_frames`` long and ``frozen_hold_ratio`` × the clip's usual hold, with no slow drift.
    The kind is "duplicate" when every pair is an exact duplicate."""
    kinds = pair_kinds(signals, options)
    hold = usual_hold(kinds)
    shortest = max(options.frozen_min_frames, int(round(options.frozen_hold_ratio * hold)))
    found: list[tuple[int, int, PairKind]] = []
    i = 1
    while i < signals.count:
        if kinds[i] == "moving":
            i += 1
            continue
        j = i
        while j + 1 < signals.count and kinds[j + 1] != "moving":
            j += 1
        first, last = i - 1, j
        if last - first + 1 >= shortest and not drifts(signals, first, last, options):
            kind: PairKind = "duplicate" if all(kinds[k] == "duplicate" for k in range(i, j + 1)) else "still"
            found.append((first, last, kind))
        i = j + 1
    return found
