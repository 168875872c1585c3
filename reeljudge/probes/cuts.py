"""Scene-cut probe: adaptive content detector, reported as "scene reset / teleporting" in one-shot clips.

A flash (camera flash, lightning) is not a cut: a short brightness excursion after which the
picture is the same shot again makes two abrupt changes (into the flash and out of it), or one
when the flash fades; both belong to one event, reported as a flash fact. A cut to another shot
that comes back to the first one later is still two cuts (see ``flash_ranges``).
"""

from __future__ import annotations

import re

from reeljudge.probes.camera import describe
from reeljudge.probes.derived import Derived
from reeljudge.probes.measures import thumb_distance
from reeljudge.probes.thresholds import CutOptions
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


def flash_ranges(signals: Signals, changes: list[int], options: CutOptions) -> list[tuple[int, int]]:
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


def _flash_around(signals: Signals, change: int, options: CutOptions) -> tuple[int, int] | None:
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


def _same_shot(signals: Signals, before: int, after: int, options: CutOptions) -> bool:
    """Whether frame ``after`` shows the shot of frame ``before``: their thumbnail distance is at most
    ``flash_match_ratio`` × the change the clip shows over as many frames just before and after
    (that change counted as at least ``MATCH_FLOOR``, for a still, noise-free shot)."""
    span = after - before
    spans = [(a, a + span) for a in (before - span, after) if a >= 0 and a + span < signals.count]
    thumbs = signals.thumbs
    expected = sum(thumb_distance(thumbs[a], thumbs[b]) for a, b in spans) / len(spans) if spans else 0.0
    return thumb_distance(thumbs[before], thumbs[after]) <= options.flash_match_ratio * max(expected, MATCH_FLOOR)


def shot_events(signals: Signals, derived: Derived, options: CutOptions) -> tuple[list[int], list[tuple[int, int]]]:
    """The cuts (frames that start a new shot) and the flashes ((first, last) frame), told apart among
    the abrupt changes (``Derived.cuts``)."""
    flashes = flash_ranges(signals, derived.cuts, options)
    cuts = [c for c in derived.cuts if not any(a <= c <= b + 1 for a, b in flashes)]
    return cuts, flashes


def outside_main_shot(cuts: list[int], count: int) -> int:
    """Frames outside the clip's longest shot (the shots being split at ``cuts``): how much a reset ruins."""
    bounds = [0, *sorted(cuts), count]
    return count - max(b - a for a, b in zip(bounds, bounds[1:])) if cuts else 0


def probe_cuts(signals: Signals, derived: Derived, options: CutOptions, prompt: str = "") -> ProbeResult:
    """Report scene cuts; fail them as scene resets when the clip should be one shot. Flashes, and leaps
    of the picture that the camera's motion explains, are facts."""
    cuts, flashes = shot_events(signals, derived, options)
    moved = derived.explained
    single = options.single_shot if options.single_shot is not None else prompt_implies_one_shot(prompt)
    where = list_ranges(signals, [(c, c) for c in cuts])
    details = {"cuts": range_details(signals, [(c, c) for c in cuts]), "single_shot": single,
               "ruined_share": share_of_clip(signals, outside_main_shot(cuts, signals.count)),
               "flashes": range_details(signals, flashes), "explained_by_motion": range_details(signals, [(c, c) for c in moved])}
    facts = (f"; {len(flashes)} flash(es), the same shot before and after (not cuts): {list_ranges(signals, flashes)}"
             if flashes else "")
    if moved:
        facts += (f"; {len(moved)} leap(s) of the picture that one shift of it explains (not cuts; {describe(signals, moved)}): "
                  f"{list_ranges(signals, [(c, c) for c in moved])}")
    if cuts and single:
        reason = f"scene reset / teleporting: {len(cuts)} cut(s) in a one-shot clip at {where}{facts}"
        return ProbeResult("scene_cuts", False, 1.0 / (1 + len(cuts)), reason, details=details)
    if cuts:
        return ProbeResult("scene_cuts", True, 1.0, f"{len(cuts)} cut(s) (multi-shot allowed) at {where}{facts}", details=details)
    return ProbeResult("scene_cuts", True, 1.0, f"no scene cuts in {signals.count} analysed frames{facts}", details=details)
