"""What the camera did, in words: the global motion the probes measured, for their reasons.

The frozen, cut, shake and smoothness probes decide from the picture's global motion (the optical
flow's median, checked against phase correlation and re-measured when it locked onto a repeat of
the texture); their reasons say what that motion was — "steady pan 1.0 px/frame, the picture
moving left" — in the clip's own pixels per frame, so a reader can check it against the footage.
"""

from __future__ import annotations

import math
from statistics import median

from reeljudge.probes.signals import Signals

#: below this speed (px/frame in the clip's pixels) the camera is still
STILL_SPEED = 0.3
#: a pan is steady when its speeds vary by at most this share of their median (interquartile range)
STEADY_SPREAD = 0.25


def clip_scale(signals: Signals) -> float:
    """Clip pixels per analysis pixel."""
    return signals.info.width / max(1, signals.info.analysis_width)


def direction(dx: float, dy: float) -> str:
    """Which way the picture moves, in words (``left``, ``up-right``, …; y grows downward)."""
    angle = math.degrees(math.atan2(-dy, dx)) % 360
    names = ("right", "up-right", "up", "up-left", "left", "down-left", "down", "down-right")
    return names[int((angle + 22.5) // 45) % 8]


def describe(signals: Signals, pairs: list[int]) -> str:
    """The camera's motion over ``pairs`` (frame indices i, each the pair i−1 → i) in words, or "" with none:
    still, a steady pan at one speed and direction, or motion at a range of speeds."""
    if not pairs:
        return ""
    scale = clip_scale(signals)
    moves = [(signals.gdx[i] * scale, signals.gdy[i] * scale) for i in pairs]
    speeds = sorted(math.hypot(x, y) for x, y in moves)
    middle = median(speeds)
    across = " across the texture's stripes (motion along them does not show)" if _one_way(signals, pairs) else ""
    if middle < STILL_SPEED:
        return f"no motion{across}" if across else "the camera holds still"
    mx, my = median(x for x, _ in moves), median(y for _, y in moves)
    q1, q3 = speeds[len(speeds) // 4], speeds[(3 * len(speeds)) // 4]
    way = f", the picture moving {direction(mx, my)}" if math.hypot(mx, my) >= STILL_SPEED else ""
    if q3 - q1 <= STEADY_SPREAD * middle:
        return f"steady pan {middle:.1f} px/frame{across}{way}"
    return f"camera moving {speeds[0]:.1f}–{speeds[-1]:.1f} px/frame (median {middle:.1f}){across}{way}"


def _one_way(signals: Signals, pairs: list[int]) -> bool:
    """Whether most of ``pairs`` show a texture that runs one way (only the motion across it was read)."""
    return sum(signals.one_way[i] for i in pairs) > len(pairs) / 2
