"""The one table of probes: each probe's name, what it judges, and how it runs, in report order.

A probe reads the clip's ``Signals`` (what the decode measured), its ``Derived`` readings (worked out
once per clip) and its own thresholds; three read the generation prompt too. Each row also says how
many analysed frames the probe needs to find what it looks for: on a shorter clip its result is "too
short to judge" (``report.too_short``), never a pass. ``PROBE_NAMES`` (the ``probes`` option's default
and the names it accepts) and the order of a verdict's results come from this table; adding a probe is
one row here and its module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from reeljudge.probes.black import probe_black
from reeljudge.probes.colour import probe_black_and_white
from reeljudge.probes.cuts import probe_cuts
from reeljudge.probes.derived import Derived, derive
from reeljudge.probes.dynamic import probe_dynamic_degree
from reeljudge.probes.flicker import probe_flicker
from reeljudge.probes.frozen import probe_frozen
from reeljudge.probes.motion import probe_shake, probe_smoothness
from reeljudge.probes.report import ProbeResult, too_short
from reeljudge.probes.signals import Signals
from reeljudge.probes.technical import probe_technical
from reeljudge.probes.thresholds import Thresholds
from reeljudge.probes.vbench import probe_vbench_flicker

Runner = Callable[[Signals, Derived, Thresholds, str], ProbeResult]
#: (signals, thresholds) -> the fewest analysed frames the probe can judge, and what it needs them for
Needs = Callable[[Signals, Thresholds], tuple[int, str]]


@dataclass(frozen=True)
class Probe:
    """One probe: its name (the ``probes`` option's word and the result's name) and how it runs."""

    name: str
    judges: str  # what it judges, in a few words: a fault, or a property of the shot
    run: Runner  # (signals, derived, thresholds, prompt) -> its result
    needs: Needs  # the shortest clip (analysed frames) in which it could find what it looks for


PROBES: tuple[Probe, ...] = (
    Probe("technical", "decodable, duration, fps, size, codec, truncation, audio",
          lambda s, d, o, p: probe_technical(s, o.technical),
          lambda s, o: (1, "a decoded frame")),
    Probe("black_frames", "black runs entered or left by a hard cut (fades are facts)",
          lambda s, d, o, p: probe_black(s, d, o.black),
          lambda s, o: (max(1, o.black.black_min_frames), f"a black run of black_min_frames={o.black.black_min_frames}")),
    Probe("frozen_frames", "still runs in footage that was moving (still scenes are facts)",
          lambda s, d, o, p: probe_frozen(s, d, o.frozen, o.still),
          lambda s, o: (max(2, o.frozen.frozen_min_frames) + 2,
                        f"a still run of frozen_min_frames={o.frozen.frozen_min_frames} and two moving frames before it")),
    Probe("scene_cuts", "cuts in a clip meant as one shot (flashes are facts)",
          lambda s, d, o, p: probe_cuts(s, d, o.cuts, p),
          lambda s, o: (3, "a change and a neighbouring pair to compare it with")),
    Probe("flicker", "brightness swinging faster than 3 Hz, motion not explaining it",
          lambda s, d, o, p: probe_flicker(s, d, o.flicker),
          lambda s, o: (max(2, o.flicker.flicker_min_swings + 1),
                        f"flicker_min_swings={o.flicker.flicker_min_swings} swings of brightness")),
    Probe("dynamic_degree", "how much the clip moves (VBench): a property unless required",
          lambda s, d, o, p: probe_dynamic_degree(s, o.dynamic, p),
          lambda s, o: (s.dd_interval + 1, f"a flow pair sampled {s.dd_interval} frame(s) apart")),
    Probe("camera_shake", "the camera's velocity jittering off its path",
          lambda s, d, o, p: probe_shake(s, d, o.camera),
          lambda s, o: (max(1, o.camera.shake_min_frames) + 2,
                        f"a run of shake_min_frames={o.camera.shake_min_frames} pairs and the camera's path beside it")),
    Probe("motion_smoothness", "how smooth the camera moves: a property unless a minimum is set",
          lambda s, d, o, p: probe_smoothness(s, d, o.camera),
          lambda s, o: (3, "two camera motions to compare")),
    Probe("black_and_white", "a colourless clip the prompt did not ask for",
          lambda s, d, o, p: probe_black_and_white(s, d, o.colour, p),
          lambda s, o: (1, "a frame")),
    Probe("vbench_temporal_flickering", "VBench's temporal flickering score, for reference only",
          lambda s, d, o, p: probe_vbench_flicker(s),
          lambda s, o: (2, "a frame pair")),
)

PROBE_NAMES: tuple[str, ...] = tuple(probe.name for probe in PROBES)


def run_selected(signals: Signals, thresholds: Thresholds, names: tuple[str, ...], prompt: str = "") -> list[ProbeResult]:
    """The result of each probe named in ``names``, in the table's order, the shared readings derived once;
    "too short to judge" for a probe the clip has too few analysed frames for."""
    derived = derive(signals, thresholds)
    return [_judged(probe, signals, derived, thresholds, prompt) for probe in PROBES if probe.name in names]


def _judged(probe: Probe, signals: Signals, derived: Derived, thresholds: Thresholds, prompt: str) -> ProbeResult:
    """``probe``'s result, or "too short to judge" (keeping whether it gates) when the clip is shorter than it needs."""
    result = probe.run(signals, derived, thresholds, prompt)
    needed, what = probe.needs(signals, thresholds)
    return too_short(result, signals.count, needed, what) if signals.count < needed else result
