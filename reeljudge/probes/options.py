"""Probe thresholds: one typed options object with documented defaults (see docs/probes.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from reeljudge.options import load_options, option

PROBE_NAMES: tuple[str, ...] = (
    "technical",
    "black_frames",
    "frozen_frames",
    "scene_cuts",
    "flicker",
    "dynamic_degree",
    "camera_shake",
    "motion_smoothness",
    "black_and_white",
    "vbench_temporal_flickering",
)


@dataclass(frozen=True)
class ProbeOptions:
    """Every probe threshold; luma levels are 0–255, pixel distances are at the analysis size.

    Faults (frozen playback, black runs that are not fades, cuts in a one-shot clip, flicker,
    shake, truncation) fail by default. Properties of the shot (still or slow, fades, how much it
    moves, smoothness) are reported as facts and scores and fail only when a requirement below
    is set (``expect_motion``, ``motion_from_prompt``, ``min_dynamic_degree``, ``min_smoothness``).
    """

    # analysis and bounded work
    analysis_short_side: int = 256  # frames are scaled down (never up) to this short side
    max_frames: int = 3600  # analyse at most this many frames from the start …
    max_seconds: float = 150.0  # … and at most this much clip time; the result says when capped
    probes: tuple[str, ...] = PROBE_NAMES  # which probes to report
    # technical
    min_duration_s: float = 0.0
    max_duration_s: float | None = None
    min_fps: float = 0.0
    min_short_side: int = 0
    codecs: tuple[str, ...] = ()  # allowed codec names; empty = any
    require_audio: bool = False
    allow_vfr: bool = True
    truncation_tolerance: float = 0.02  # decoded may fall short of declared by this fraction
    # black frames
    black_pixel_level: int = 32  # a pixel darker than this is dark
    black_dark_fraction: float = 0.98  # a frame is black when this share of its pixels is dark …
    black_max_detail: float = 4.0  # … and its 64-px thumbnail varies by at most this (levels, std): else a night scene
    black_min_frames: int = 1
    fade_min_frames: int = 3  # a black run reached (or left) through ≥ this many frames of steady darkening is a fade …
    fade_max_step: float = 0.6  # … in which no frame-to-frame step is more than this share of the whole brightness change
    # frozen frames: a still run is a fault only in moving footage; a still scene is a property
    duplicate_changed_fraction: float = 0.0005  # exact duplicate: at most this share of pixels changed by > 6 levels …
    duplicate_mean_diff: float = 0.15  # … and mean abs diff at most this (compression noise only)
    still_levels: float = 6.0  # a 64-px thumbnail pixel changed when its change (brightness gain taken out) exceeds this …
    still_noise_ratio: float = 3.0  # … plus this × the pair's median change (its noise)
    still_moved_share: float = 0.0025  # a pair is still when at most this share of thumbnail pixels changed (also run-wide, vs its first frame)
    frozen_min_frames: int = 4  # a still run counts from this many frames …
    frozen_hold_ratio: float = 2.0  # … and from this × the clip's usual hold (animation on twos holds each drawing 2 frames)
    frozen_context_s: float = 0.5  # moving footage before a run: looked for over this much time before it …
    frozen_context_change: float = 2.0  # … where the median pair changed the 64-px thumbnail by ≥ this (mean levels) …
    frozen_context_ratio: float = 4.0  # … and ≥ this × the run's own change (its noise), without slowing down into it
    frozen_jump_ratio: float = 2.0  # or the picture jumps on leaving the run: ≥ this × the footage's usual change per frame
    frozen_edge_share: float = 0.75  # a change with this share in the frame's outer eighth is something entering or leaving: no freeze
    near_static_fails: bool = True  # frozen runs that are near-static, not exact duplicates, fail too
    # scene cuts
    cut_window: int = 2  # neighbours on each side for the adaptive score
    cut_ratio: float = 3.0  # content score ÷ neighbours' mean must reach this …
    cut_min_content: float = 30.0  # … and the content score this (0–~150 scale)
    cut_resume_ratio: float = 2.0  # right after a still run: … and ≥ this × the clip's own change over as many frames
    single_shot: bool | None = None  # None: infer from the prompt (one shot unless it asks for cuts)
    # flicker
    flicker_min_delta: float = 4.0  # a brightness swing (motion-compensated, levels) that counts
    flicker_min_hz: float = 3.0  # slowest flicker: a swing lasts at most half of this rate's period
    flicker_min_swings: int = 5  # swings in a row that make a flicker run (a flash is 2)
    flicker_periodic_cv: float = 0.25  # periods varying by less than this (coefficient of variation) make it periodic
    # motion: properties unless a requirement is set
    expect_motion: bool = False  # require motion (VBench dynamic degree True)
    motion_from_prompt: bool = False  # require motion when the prompt asks for movement
    min_dynamic_degree: float | None = None  # require this share of sampled pairs above VBench's flow threshold
    dynamic_threshold: float = 6.0  # VBench: top-5% flow magnitude > 6 · (short side / 256)
    dynamic_sample_fps: float = 8.0  # VBench samples about 8 frames a second for flow
    shake_px: float = 2.5  # jitter of the global motion (px per nominal frame interval) that counts as shake
    shake_min_frames: int = 4
    shake_spread_ratio: float = 1.0  # … and more than this × the pair's flow-field interquartile range (else no single camera motion)
    shake_min_texture: float = 0.15  # pairs with less textured area than this share have unreliable flow (flat colour): not judged
    min_smoothness: float | None = None  # gate on the smoothness proxy only when set
    # colour
    gray_chroma: float = 3.0  # mean |U−128|+|V−128| below this makes a frame colourless
    gray_fraction: float = 0.95  # share of non-black frames that makes the clip black-and-white
    allow_black_and_white: bool | None = None  # None: allowed only if the prompt asks for it

    def __post_init__(self) -> None:
        unknown = [p for p in self.probes if p not in PROBE_NAMES]
        if unknown:
            raise ValueError(f"unknown probes {unknown} (known: {', '.join(PROBE_NAMES)})")


@dataclass(frozen=True)
class ProbeAssertionOptions:
    """What the video-probes assertion reads from its test, beside the probe thresholds."""

    var: str | None = option(None, aliases=("clip_var",), doc="the var naming the clip (null: the provider's clip, else var video/clip, else the output)")
    prompt_var: str = option("prompt", doc="the var holding the prompt the clip was made from (for one-shot and colour expectations)")
    base_dir: str | None = option(None, doc="where relative clip paths start (default: the working directory)")
    expect_fail: bool = option(False, doc="a clip with a planted fault: pass only when the probes ran and found it")


def load(config: Mapping[str, Any] | None) -> tuple[ProbeAssertionOptions, ProbeOptions]:
    """The assertion's options and the probe thresholds from one config; BadInputError on a bad or unknown key."""
    return load_options(config, ProbeAssertionOptions, ProbeOptions, owner="video_probes")
