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
    """Every probe threshold; luma levels are 0–255, pixel distances are at the analysis size."""

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
    black_dark_fraction: float = 0.98  # a frame is black when this share of its pixels is dark
    black_min_frames: int = 1
    # frozen frames
    duplicate_changed_fraction: float = 0.0005  # exact duplicate: at most this share of pixels changed by > 6 levels …
    duplicate_mean_diff: float = 0.15  # … and mean abs diff at most this (compression noise only)
    static_mean_diff: float = 2.5  # near-static: mean abs diff at most this …
    static_changed_fraction: float = 0.05  # … and at most this share of pixels changed by > 6 levels
    static_run_max_change: float = 2.0  # … and no frame of the run differs from its first by more (32-px thumbnail)
    frozen_min_frames: int = 4  # report runs of at least this many repeated frames
    near_static_fails: bool = True  # near-static runs fail the probe (exact duplicates always do)
    # scene cuts
    cut_window: int = 2  # neighbours on each side for the adaptive score
    cut_ratio: float = 3.0  # content score ÷ neighbours' mean must reach this …
    cut_min_content: float = 30.0  # … and the content score this (0–~150 scale)
    cut_resume_ratio: float = 2.0  # right after a frozen run: … and ≥ this × the clip's own change over as many frames
    single_shot: bool | None = None  # None: infer from the prompt (one shot unless it asks for cuts)
    # flicker
    flicker_min_delta: float = 4.0  # motion-compensated brightness change (levels) that counts
    flicker_min_alternations: int = 3  # sign alternations in a row that make a flicker run
    # motion
    expect_motion: bool = True  # fail a clip in which nothing moves (VBench dynamic degree False)
    dynamic_threshold: float = 6.0  # VBench: top-5% flow magnitude > 6 · (short side / 256)
    dynamic_sample_fps: float = 8.0  # VBench samples about 8 frames a second for flow
    shake_px: float = 2.5  # jitter of the global motion (px per frame) that counts as shake
    shake_min_frames: int = 4
    shake_spread_ratio: float = 1.0  # … and more than this × the pair's flow-field interquartile range (else no single camera motion)
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
