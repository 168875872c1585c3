"""Which frames are still: pairs that do not change beyond noise, and the runs they form.

A still run is a fact about the footage. Whether it is a fault (frozen playback) or a property
(a still scene, an animation hold) is decided by the frozen-frame probe from what surrounds it.
"""

from __future__ import annotations

from statistics import median

from reeljudge.probes.derived import Derived, PairKind
from reeljudge.probes.thresholds import FrozenOptions, StillOptions
from reeljudge.probes.measures import thumb_difference
from reeljudge.probes.signals import Signals


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


def drifts(signals: Signals, start: int, end: int, options: StillOptions) -> bool:
    """Whether any frame of ``start``..``end`` has moved away from frame ``start`` (slow motion adds up)."""
    first = signals.thumbs[start]
    return any(thumb_difference(first, signals.thumbs[i], options)[0] > options.still_moved_share
               for i in range(start + 1, end + 1))


def still_runs(signals: Signals, derived: Derived, options: FrozenOptions,
               stillness: StillOptions) -> list[tuple[int, int, PairKind]]:
    """Runs of frames that show one still picture, as (first frame, last frame, kind): at least
    ``frozen_min_frames`` long and ``frozen_hold_ratio`` × the clip's usual hold, with no slow drift.
    The kind is "duplicate" when every pair is an exact duplicate."""
    kinds = derived.kinds
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
        if last - first + 1 >= shortest and not drifts(signals, first, last, stillness):
            kind: PairKind = "duplicate" if all(kinds[k] == "duplicate" for k in range(i, j + 1)) else "still"
            found.append((first, last, kind))
        i = j + 1
    return found
