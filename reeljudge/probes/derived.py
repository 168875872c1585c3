"""What several probes read from a clip's signals, worked out once per clip: the ``Derived`` readings.

``Signals`` hold what the decode measured per frame; ``Derived`` holds the per-frame judgements
made from them that more than one probe needs: which frames are black, which pairs hold still,
where the picture changes abruptly (cuts and the edges of flashes), and the camera's velocity and
where it can be judged. ``derive(signals, options)`` computes them in their order of dependence
(black → pair kinds → abrupt changes → velocities → judged camera pairs); every probe reads them
from the one ``Derived`` instead of working them out again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from reeljudge.probes.measures import thumb_distance
from reeljudge.probes.thresholds import BlackOptions, CameraOptions, CutOptions, StillOptions, Thresholds
from reeljudge.probes.signals import Signals

PairKind = Literal["moving", "duplicate", "still"]
Velocity = tuple[float, float]


@dataclass(frozen=True)
class Derived:
    """The shared per-frame readings of one clip (index i is frame i, or the pair i−1 → i)."""

    black: list[bool]  # the frame is black: dark everywhere and without detail
    kinds: list[PairKind]  # how frame i differs from frame i−1 ("moving" at 0 and around black)
    cuts: list[int]  # frames where the picture changes abruptly, no motion explaining it (cuts and flash edges)
    explained: list[int]  # frames whose content leapt as much, but one shift of the whole picture explains it
    velocities: list[Velocity | None]  # the camera's motion, px per nominal frame interval (None: held, or no time passed)
    camera: list[bool]  # the pair's camera motion can be judged (changed, no black or cut, textured, unambiguous)

    def joins(self, i: int) -> bool:
        """Whether pair ``i`` joins frames neither of which is black."""
        return i > 0 and not self.black[i] and not self.black[i - 1]


def derive(signals: Signals, options: Thresholds) -> Derived:
    """Every shared reading of ``signals`` under ``options``, each computed once."""
    black = black_flags(signals, options.black)
    kinds = pair_kinds(signals, black, options.still)
    cuts, explained = abrupt_changes(signals, black, kinds, options.cuts)
    speed = velocities(signals, kinds)
    camera = camera_pairs(signals, black, set(cuts), speed, options.camera)
    return Derived(black, kinds, cuts, explained, speed, camera)


def black_flags(signals: Signals, options: BlackOptions) -> list[bool]:
    """Per analysed frame: is it black (dark everywhere and without detail)."""
    return [
        dark >= options.black_dark_fraction and float(thumb.std()) <= options.black_max_detail
        for dark, thumb in zip(signals.dark, signals.thumbs)
    ]


def pair_kinds(signals: Signals, black: list[bool], options: StillOptions) -> list[PairKind]:
    """Per analysed frame i ≥ 1: how it differs from frame i−1 (index 0 is "moving"; black pairs too).

    A pair is still when its thumbnail does not change beyond noise, nor by more than
    ``still_max_change`` on average (a picture that changes alike everywhere, as a checkerboard
    panned by one square does, has not held), and the picture does not shift as a whole (``shifts``)."""
    kinds: list[PairKind] = ["moving"]
    for i in range(1, signals.count):
        if black[i] or black[i - 1]:
            kinds.append("moving")  # left to the black-frame probe
        elif signals.changed[i] <= options.duplicate_changed_fraction and signals.diff_mean[i] <= options.duplicate_mean_diff:
            kinds.append("duplicate")
        elif (signals.moved[i] <= options.still_moved_share and signals.change[i] <= options.still_max_change
              and not shifts(signals, i, options)):
            kinds.append("still")
        else:
            kinds.append("moving")
    return kinds


def shifts(signals: Signals, pair: int, options: StillOptions) -> bool:
    """Whether the picture of pair ``pair`` moves as a whole by ≥ ``still_shift_px`` (its global motion):
    a pan over an even texture (stripes, tiles, water) changes every thumbnail pixel alike, which
    reads as noise to the thumbnail test, yet the picture moves."""
    return math.hypot(signals.gdx[pair], signals.gdy[pair]) >= options.still_shift_px


def abrupt_changes(signals: Signals, black: list[bool], kinds: list[PairKind],
                   options: CutOptions) -> tuple[list[int], list[int]]:
    """(frames where the picture changes abruptly and no motion explains it, frames whose content leapt
    as much but whose change one shift of the whole picture explains: a pan over a repeating texture).

    The first are the cuts and the edges of flashes (``cuts.shot_events`` tells them apart); the other
    probes break their runs at all of them. A frame is abrupt when its content change is
    ≥ ``cut_min_content`` and ≥ ``cut_ratio`` × its neighbours' mean and one shift of the whole picture
    by its global motion does not explain it (``explained_by_motion``: a pan over stripes or a fence
    changes the thumbnails by leaps such a shift explains), or when what that shift leaves unexplained
    (``rigid_residual``) is ≥ ``cut_min_residual`` and ≥ ``cut_ratio`` × its neighbours' while its
    content change is ≥ ``cut_jump_content`` × theirs or it leaves ≥ ``cut_sure_residual`` (a cut
    between two views of one even texture, whose thumbnails change alike on every pair, or of a
    low-contrast sea). Transitions to or from black belong to the black-frame probe. A frame right
    after a frozen or still run counts only when its change also reaches ``cut_resume_ratio`` × what
    the clip's own motion changes over the same number of frames (a plain resume after a freeze does not).
    """
    content, residual = signals.content, signals.rigid_residual
    found: list[int] = []
    explained: list[int] = []
    w = options.cut_window
    for i in range(1, signals.count):
        if black[i] or black[i - 1]:
            continue
        if kinds[i - 1] != "moving" and not _jumps_beyond_motion(signals, kinds, i, options):
            continue
        around = [j for j in range(max(1, i - w), min(signals.count, i + w + 1))
                  if j != i and not black[j] and not black[j - 1] and kinds[j] == "moving"]
        leap = content[i] >= options.cut_min_content and content[i] >= options.cut_ratio * _mean(content, around)
        jump = (residual[i] >= options.cut_min_residual and residual[i] >= options.cut_ratio * _mean(residual, around)
                and (content[i] >= options.cut_jump_content * _mean(content, around) or residual[i] >= options.cut_sure_residual))
        if jump or (leap and not explained_by_motion(signals, i, options)):
            found.append(i)
        elif leap:
            explained.append(i)
    return found, explained


def explained_by_motion(signals: Signals, pair: int, options: CutOptions) -> bool:
    """Whether one shift of the whole picture by the pair's global motion leaves under
    ``cut_unexplained`` of its mean difference and under ``cut_min_residual`` levels unexplained,
    while its brightness moves by under half ``flash_min_luma`` (a flash is a change of light, left
    to the flash check, however well a shift matches a flat or dark picture's few edges)."""
    left = signals.rigid_residual[pair]
    steady = abs(signals.luma[pair] - signals.luma[pair - 1]) < options.flash_min_luma / 2
    return steady and left < options.cut_unexplained * signals.diff_mean[pair] and left < options.cut_min_residual


def _mean(series: list[float], frames: list[int]) -> float:
    """The mean of ``series`` over ``frames`` (0 when there are none)."""
    return sum(series[j] for j in frames) / len(frames) if frames else 0.0


def _jumps_beyond_motion(signals: Signals, kinds: list[PairKind], i: int, options: CutOptions) -> bool:
    """Whether frame ``i``, right after a held run, differs from the held frame by ≥ ``cut_resume_ratio`` × the
    change the clip shows over the same span of its own motion (mean of the spans just before and after the run).
    When the clip is too short for either span and the run began with the clip, the rest of the clip
    after ``i`` stands for it (a still shot cut to another: whatever moves after the cut moves there)."""
    held = 0
    while i - 1 - held >= 1 and kinds[i - 1 - held] != "moving":
        held += 1
    span = held + 1
    last_moving = i - 1 - held
    spans = [(a, a + span) for a in (last_moving - span, i) if a >= 0 and a + span < signals.count]
    if not spans and last_moving == 0 and i + 1 < signals.count:
        spans = [(i, signals.count - 1)]
    if not spans:
        return False  # nothing to compare with: left to the frozen-frame probe
    expected = sum(thumb_distance(signals.thumbs[a], signals.thumbs[b]) for a, b in spans) / len(spans)
    return thumb_distance(signals.thumbs[i - 1], signals.thumbs[i]) >= options.cut_resume_ratio * max(expected, 1e-6)


def velocities(signals: Signals, kinds: list[PairKind]) -> list[Velocity | None]:
    """Per pair: the global motion in px per nominal frame interval, over the time since the picture
    last changed (a held frame, as animation on twos holds each drawing, is no stop); None for held
    pairs and where no time passed."""
    nominal = 1.0 / (signals.info.fps or 24.0)
    out: list[Velocity | None] = [None]
    shown = signals.time_of(0)  # when the current picture first appeared
    for i in range(1, signals.count):
        if kinds[i] != "moving":
            out.append(None)
            continue
        dt = signals.times[i] - shown
        shown = signals.times[i]
        out.append((signals.gdx[i] * nominal / dt, signals.gdy[i] * nominal / dt) if dt > 0 else None)
    return out


def camera_pairs(signals: Signals, black: list[bool], cuts: set[int], speed: list[Velocity | None],
                 options: CameraOptions) -> list[bool]:
    """Per pair: whether its camera motion can be judged — the picture changed (not held), no black frame
    or cut in it, texture enough for flow (``shake_min_texture``), and one motion that fits (the
    correlated shift's best other peak under ``shake_ambiguous`` × its own: a pan by half a texture's
    period fits its neighbouring repeat as well, and can be read either way)."""
    return [
        i > 0 and not black[i] and not black[i - 1] and i not in cuts and speed[i] is not None
        and signals.texture[i] >= options.shake_min_texture
        and signals.shift_rival[i] < options.shake_ambiguous * signals.shift_peak[i]
        for i in range(signals.count)
    ]
