"""Scene-cut probe: adaptive content detector, reported as "scene reset / teleporting" in one-shot clips.

A flash (camera flash, lightning) is not a cut: a short brightness excursion after which the
picture is the same shot again makes two abrupt changes (into the flash and out of it), or one
when the flash fades; both belong to one event, reported as a flash fact. A cut to another shot
that comes back to the first one later is still two cuts (see ``flash_ranges``).
"""

from __future__ import annotations

import re

from reeljudge.probes.black import black_flags
from reeljudge.probes.stillness import PairKind, pair_kinds
from reeljudge.probes.options import ProbeOptions
from reeljudge.probes.report import ProbeResult, list_ranges, range_details, share_of_clip
from reeljudge.probes.signals import Signals

_MULTI_SHOT = re.compile(
    r"\b(cuts?\s+to|cutting|montage|scenes|shots|transitions?|sequence of|then\s+cut|jump\s*cuts?|"
    r"multiple\s+(angles|shots|scenes)|edit(ed)?\s+together|trailer|compilation|slideshow)\b",
    re.IGNORECASE,
)


def prompt_implies_one_shot(prompt: str) -> bool:
    """Whether a generation prompt describes a single continuous shot (no cut asked for)."""
    return not _MULTI_SHOT.search(prompt or "")


def cut_frames(signals: Signals, options: ProbeOptions) -> list[int]:
    """Frames where the picture changes abruptly, and no motion explains it. These are the cuts and
    the edges of flashes (``shot_events`` tells them apart); the other probes break their runs at all of them.

    A frame is abrupt when its content change is ≥ ``cut_min_content`` and ≥ ``cut_ratio`` × its
    neighbours' mean and one shift of the whole picture by its global motion does not explain it
    (``explained_by_motion``: a pan over stripes or a fence changes the thumbnails by leaps such a
    shift explains), or when what that shift leaves unexplained (``rigid_residual``) is
    ≥ ``cut_min_residual`` and ≥ ``cut_ratio`` × its neighbours' while its content change is
    ≥ ``cut_jump_content`` × theirs or it leaves ≥ ``cut_sure_residual`` (a cut between two views of one
    even texture, whose thumbnails change alike on every pair, or of a low-contrast sea).
    Transitions to or from black belong to the black-frame probe. A frame right after a frozen or
    still run counts only when its change also reaches ``cut_resume_ratio`` × what the clip's own
    motion changes over the same number of frames (a plain resume after a freeze does not).
    """
    return abrupt_changes(signals, options)[0]


def abrupt_changes(signals: Signals, options: ProbeOptions) -> tuple[list[int], list[int]]:
    """(the frames ``cut_frames`` finds, the frames whose content leapt as much but whose change one
    shift of the whole picture explains: a pan over a repeating texture, not a cut)."""
    black = black_flags(signals, options)
    kinds = pair_kinds(signals, options)
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


def explained_by_motion(signals: Signals, pair: int, options: ProbeOptions) -> bool:
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


def _jumps_beyond_motion(signals: Signals, kinds: list[PairKind], i: int, options: ProbeOptions) -> bool:
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
    expected = sum(thumb_distance(signals, a, b) for a, b in spans) / len(spans)
    return thumb_distance(signals, i - 1, i) >= options.cut_resume_ratio * max(expected, 1e-6)


def thumb_distance(signals: Signals, a: int, b: int) -> float:
    """Mean abs difference of frames ``a`` and ``b``'s standardised 64-px luma thumbnails (brightness-invariant)."""
    import numpy as np

    first, second = (signals.thumbs[k].astype(np.float32) for k in (a, b))
    z1 = (first - first.mean()) / (first.std() + 4.0)
    z2 = (second - second.mean()) / (second.std() + 4.0)
    return float(np.abs(z1 - z2).mean())


def flash_ranges(signals: Signals, changes: list[int], options: ProbeOptions) -> list[tuple[int, int]]:
    """The flashes among the abrupt ``changes``: (first, last) frame of each.

    A flash is the frames strictly between a frame ``before`` and a frame ``after`` around a change,
    the first flash frame at most ``flash_max_s`` before ``after``, where the flash frames' mean luma
    moves ≥ ``flash_min_luma`` away from ``before``'s, ``after``'s luma is back within half that,
    and ``after`` shows the same shot as ``before`` (``_same_shot``). The shortest such window
    around a change is taken.
    """
    found: list[tuple[int, int]] = []
    for change in changes:
        if any(a <= change <= b + 1 for a, b in found):
            continue
        window = _flash_around(signals, change, options)
        if window is not None:
            found.append(window)
    return sorted(found)


def _flash_around(signals: Signals, change: int, options: ProbeOptions) -> tuple[int, int] | None:
    """The shortest flash (first, last frame) whose edges enclose ``change``, or None."""
    luma, times = signals.luma, signals.times
    windows = []
    for before in range(change - 1, -1, -1):
        if times[change] - times[before + 1] > options.flash_max_s:
            break
        for after in range(max(change, before + 2), signals.count):
            if times[after] - times[before + 1] > options.flash_max_s:
                break
            peak = max(abs(luma[j] - luma[before]) for j in range(before + 1, after))
            back = abs(luma[after] - luma[before]) < options.flash_min_luma / 2
            if peak >= options.flash_min_luma and back and _same_shot(signals, before, after, options):
                windows.append((after - before, before + 1, after - 1))
                break
    return min(windows)[1:] if windows else None


#: the least change allowed between two frames of one shot around a flash (standardised thumbnail
#: distance; encoder noise after a flash on a still shot is ≈ 0.02–0.05, another shot ≈ 0.2–1.0)
MATCH_FLOOR = 0.05


def _same_shot(signals: Signals, before: int, after: int, options: ProbeOptions) -> bool:
    """Whether frame ``after`` shows the shot of frame ``before``: their thumbnail distance is at most
    ``flash_match_ratio`` × the change the clip shows over as many frames just before and after
    (that change counted as at least ``MATCH_FLOOR``, for a still, noise-free shot)."""
    span = after - before
    spans = [(a, a + span) for a in (before - span, after) if a >= 0 and a + span < signals.count]
    expected = sum(thumb_distance(signals, a, b) for a, b in spans) / len(spans) if spans else 0.0
    return thumb_distance(signals, before, after) <= options.flash_match_ratio * max(expected, MATCH_FLOOR)


def shot_events(signals: Signals, options: ProbeOptions) -> tuple[list[int], list[tuple[int, int]]]:
    """The cuts (frames that start a new shot) and the flashes ((first, last) frame), told apart."""
    changes = cut_frames(signals, options)
    flashes = flash_ranges(signals, changes, options)
    cuts = [c for c in changes if not any(a <= c <= b + 1 for a, b in flashes)]
    return cuts, flashes


def outside_main_shot(cuts: list[int], count: int) -> int:
    """Frames outside the clip's longest shot (the shots being split at ``cuts``): how much a reset ruins."""
    bounds = [0, *sorted(cuts), count]
    return count - max(b - a for a, b in zip(bounds, bounds[1:])) if cuts else 0


def probe_cuts(signals: Signals, options: ProbeOptions, prompt: str = "") -> ProbeResult:
    """Report scene cuts; fail them as scene resets when the clip should be one shot. Flashes, and leaps
    of the picture that the camera's motion explains, are facts."""
    from reeljudge.probes.camera import describe

    cuts, flashes = shot_events(signals, options)
    moved = abrupt_changes(signals, options)[1]
    single = options.single_shot if options.single_shot is not None else prompt_implies_one_shot(prompt)
    where = list_ranges(signals, [(c, c) for c in cuts])
    details = {"cuts": range_details(signals, [(c, c) for c in cuts]), "single_shot": single,
               "ruined_share": share_of_clip(signals, outside_main_shot(cuts, signals.count)),
               "flashes": range_details(signals, flashes), "explained_by_motion": range_details(signals, [(c, c) for c in moved])}
    facts = f"; {len(flashes)} flash(es), the same shot before and after (not cuts): {list_ranges(signals, flashes)}" if flashes else ""
    if moved:
        facts += (f"; {len(moved)} leap(s) of the picture that one shift of it explains (not cuts; {describe(signals, moved)}): "
                  f"{list_ranges(signals, [(c, c) for c in moved])}")
    if cuts and single:
        reason = f"scene reset / teleporting: {len(cuts)} cut(s) in a one-shot clip at {where}{facts}"
        return ProbeResult("scene_cuts", False, 1.0 / (1 + len(cuts)), reason, details=details)
    if cuts:
        return ProbeResult("scene_cuts", True, 1.0, f"{len(cuts)} cut(s) (multi-shot allowed) at {where}{facts}", details=details)
    return ProbeResult("scene_cuts", True, 1.0, f"no scene cuts in {signals.count} analysed frames{facts}", details=details)
