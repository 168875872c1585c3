"""Probe thresholds, grouped by what reads them: one small frozen options class per probe (or per
shared reading), and ``Thresholds`` holding one of each (see docs/probes.md).

Users write every threshold flat in an assertion's ``config:`` (``black_min_frames: 3``) exactly as
before: the options loader reads a group's keys as its parent's own (``reeljudge.options.group``).
The code reads them grouped (``options.black.black_min_frames``), and each probe receives its own
group only. Luma levels are 0–255; pixel distances are at the analysis size. Which probes run is
``options.ProbeOptions``'s.
"""

from __future__ import annotations

from dataclasses import dataclass

from reeljudge.options import group, option


@dataclass(frozen=True)
class AnalysisOptions:
    """The decode: the analysis size and the bounds on work (read by ``signals.measure``)."""

    analysis_short_side: int = option(256, minimum=0, doc="frames are scaled down (never up) to this short side")
    max_frames: int = option(3600, minimum=0, doc="analyse at most this many frames from the start …")
    max_seconds: float = option(150.0, minimum=0, doc="… and at most this much clip time; the result says when capped")
    skip_deblock_scale: float = option(6.0, minimum=0,
        doc="skip the decoder's deblocking when frames shrink at least this many times for analysis (4K at 256 px: 8.4×); 0: "
            "never")


@dataclass(frozen=True)
class TechnicalOptions:
    """The technical probe: what the container must declare and decoding must find."""

    min_duration_s: float = option(0.0, minimum=0, doc="fail clips shorter than this (s)")
    max_duration_s: float | None = option(None, minimum=0, doc="fail clips longer than this (s); null: no limit")
    min_fps: float = option(0.0, minimum=0, doc="fail clips under this frame rate")
    min_short_side: int = option(0, minimum=0, doc="fail clips whose short side is under this (px)")
    codecs: tuple[str, ...] = option((), doc="allowed codec names; empty = any")
    require_audio: bool = option(False, doc="fail clips without an audio track")
    allow_vfr: bool = option(True, doc="accept a variable frame rate")
    truncation_tolerance: float = option(0.02, minimum=0, doc="decoded may fall short of declared by this fraction")


@dataclass(frozen=True)
class BlackOptions:
    """Black frames (a shared reading) and the black-frame probe's fades."""

    black_pixel_level: int = option(32, minimum=0, doc="a pixel darker than this is dark")
    black_dark_fraction: float = option(0.98, minimum=0, maximum=1,
        doc="a frame is black when this share of its pixels is dark …")
    black_max_detail: float = option(4.0, minimum=0,
        doc="… and its 64-px thumbnail varies by at most this (levels, std): else a night scene")
    black_min_frames: int = option(1, minimum=0, doc="black runs shorter than this are not reported")
    fade_min_frames: int = option(3, minimum=0,
        doc="a black run reached (or left) through ≥ this many frames of steady darkening is a fade …")
    fade_max_step: float = option(0.6, minimum=0,
        doc="… in which no frame-to-frame step is more than this share of the whole brightness change")


@dataclass(frozen=True)
class StillOptions:
    """Still pairs (a shared reading): exact duplicates and pairs that do not change beyond noise."""

    duplicate_changed_fraction: float = option(0.0005, minimum=0, maximum=1,
        doc="exact duplicate: at most this share of pixels changed by > 6 levels …")
    duplicate_mean_diff: float = option(0.15, minimum=0, doc="… and mean abs diff at most this (compression noise only)")
    still_levels: float = option(6.0, minimum=0,
        doc="a 64-px thumbnail pixel changed when its change (brightness gain taken out) exceeds this …")
    still_noise_ratio: float = option(3.0, minimum=0, doc="… plus this × the pair's median change (its noise)")
    still_moved_share: float = option(0.0025, minimum=0, maximum=1,
        doc="a pair is still when at most this share of thumbnail pixels changed (also run-wide, vs its first frame)")
    still_max_change: float = option(10.0, minimum=0,
        doc="… and whose thumbnail changed by at most this on average (levels, gain taken out) …")
    still_shift_px: float = option(0.3, minimum=0,
        doc="… and a pair whose picture shifts as a whole by at least this (px, its global motion) is not still, however little "
            "its thumbnail changed")


@dataclass(frozen=True)
class FrozenOptions:
    """The frozen-frame probe: which still runs count, and when one is frozen playback (a fault) rather than a still scene."""

    frozen_min_frames: int = option(4, minimum=0, doc="a still run counts from this many frames …")
    frozen_hold_ratio: float = option(2.0, minimum=0,
        doc="… and from this × the clip's usual hold (animation on twos holds each drawing 2 frames)")
    frozen_context_s: float = option(0.5, minimum=0,
        doc="moving footage before a run: looked for over this much time before it …")
    frozen_context_change: float = option(2.0, minimum=0,
        doc="… where the median pair changed the 64-px thumbnail by ≥ this (mean levels) …")
    frozen_context_ratio: float = option(4.0, minimum=0,
        doc="… and ≥ this × the run's own change (its noise), without slowing down into it")
    frozen_jump_ratio: float = option(2.0, minimum=0,
        doc="or the picture jumps on leaving the run: ≥ this × the footage's usual change per frame")
    frozen_edge_share: float = option(0.75, minimum=0, maximum=1,
        doc="a change with this share in the frame's outer eighth is something entering or leaving: no freeze")
    near_static_fails: bool = option(True, doc="frozen runs that are near-static, not exact duplicates, fail too")


@dataclass(frozen=True)
class CutOptions:
    """Abrupt changes (a shared reading: cuts and the edges of flashes) and the scene-cut probe's flashes and one-shot rule."""

    cut_window: int = option(2, minimum=0, doc="neighbours on each side for the adaptive score")
    cut_ratio: float = option(3.0, minimum=0, doc="content score ÷ neighbours' mean must reach this …")
    cut_min_content: float = option(30.0, minimum=0, doc="… and the content score this (0–~150 scale)")
    cut_unexplained: float = option(0.3, minimum=0,
        doc="… unless one shift of the whole picture by its global motion leaves under this share of the pair's mean difference "
            "…")
    cut_min_residual: float = option(8.0, minimum=0,
        doc="… and under this many levels unexplained (median over the picture); a frame that leaves this much and cut_ratio × "
            "its neighbours' unexplained is abrupt too (a cut between two views of one even texture)")
    cut_jump_content: float = option(1.5, minimum=0, doc="… while its content change is ≥ this × its neighbours' mean …")
    cut_sure_residual: float = option(32.0, minimum=0,
        doc="… or it leaves at least this much unexplained (most of the picture is another)")
    cut_resume_ratio: float = option(2.0, minimum=0,
        doc="right after a still run: … and ≥ this × the clip's own change over as many frames")
    flash_max_s: float = option(0.25, minimum=0, doc="a flash, not a cut: the picture is the same shot again within this long …")
    flash_min_luma: float = option(20.0, minimum=0,
        doc="… after a brightness excursion of ≥ this (mean luma levels), back within half of it …")
    flash_match_ratio: float = option(3.0, minimum=0,
        doc="… the frame after as close to the frame before as ≤ this × the clip's own change over as many frames")
    single_shot: bool | None = option(None, doc="None: infer from the prompt (one shot unless it asks for cuts)")


@dataclass(frozen=True)
class FlickerOptions:
    """The flicker probe: the swings that make a flicker run and when it is periodic."""

    flicker_min_delta: float = option(4.0, minimum=0, doc="a brightness swing (motion-compensated, levels) that counts")
    flicker_min_hz: float = option(3.0, minimum=0, doc="slowest flicker: a swing lasts at most half of this rate's period")
    flicker_min_swings: int = option(5, minimum=0, doc="swings in a row that make a flicker run (a flash is 2)")
    flicker_periodic_cv: float = option(0.25, minimum=0,
        doc="periods varying by less than this (coefficient of variation) make it periodic")


@dataclass(frozen=True)
class MotionOptions:
    """How the global motion is read from each pair (in ``signals``): the correlated shift and one-way textures."""

    shift_sure_peak: float = option(0.3, minimum=0, maximum=1,
        doc="the picture's global shift (phase correlation at half the analysis size) is sure when its peak reaches this …")
    shift_check_px: float = option(0.3, minimum=0,
        doc="… and when the optical flow's median strays from a sure shift by more than this (px), the flow is measured again on "
            "the pair aligned by the shift, and the better match kept (a repeating texture fools the flow's coarse scales)")
    one_way_coherence: float = option(0.88, minimum=0, maximum=1,
        doc="a texture running one way this strongly (stripes, slats, a fence: coherence of its structure tensor, 0–1) shows "
            "only the motion across it: only that is read")


@dataclass(frozen=True)
class DynamicOptions:
    """Dynamic degree (VBench): how flow is sampled and thresholded, and what motion a suite requires."""

    expect_motion: bool = option(False, doc="require motion (VBench dynamic degree True)")
    motion_from_prompt: bool = option(False, doc="require motion when the prompt asks for movement")
    min_dynamic_degree: float | None = option(None, minimum=0,
        doc="require this share of sampled pairs above VBench's flow threshold")
    dynamic_threshold: float = option(6.0, minimum=0, doc="VBench: top-5% flow magnitude > 6 · (short side / 256)")
    dynamic_sample_fps: float = option(8.0, minimum=0, doc="VBench samples about 8 frames a second for flow")


@dataclass(frozen=True)
class CameraOptions:
    """The camera's judged pairs (a shared reading), the shake probe and the smoothness requirement."""

    shake_px: float = option(2.5, minimum=0,
        doc="jitter of the global motion (px per nominal frame interval) that counts as shake")
    shake_min_frames: int = option(4, minimum=0, doc="shake runs shorter than this are not reported")
    shake_spread_ratio: float = option(1.0, minimum=0,
        doc="… and more than this × the pair's flow-field interquartile range (else no single camera motion)")
    shake_min_texture: float = option(0.10, minimum=0,
        doc="pairs with less textured area than this share have unreliable flow (flat colour, ≈ 0.03–0.06): not judged")
    shake_ambiguous: float = option(0.8, minimum=0,
        doc="pairs whose correlated shift has another peak this high (share of its own) are not judged: the motion fits a "
            "neighbouring repeat of the texture as well")
    min_smoothness: float | None = option(None, minimum=0, doc="gate on the smoothness proxy only when set")


@dataclass(frozen=True)
class ColourOptions:
    """The black-and-white probe."""

    gray_chroma: float = option(3.0, minimum=0, doc="mean |U−128|+|V−128| below this makes a frame colourless")
    gray_fraction: float = option(0.95, minimum=0, maximum=1, doc="share of non-black frames that makes the clip black-and-white")
    allow_black_and_white: bool | None = option(None, doc="None: allowed only if the prompt asks for it")


@dataclass(frozen=True)
class Thresholds:
    """Every probe threshold, one group per probe or shared reading.

    Faults (frozen playback, black runs that are not fades, cuts in a one-shot clip, flicker,
    shake, truncation) fail by default. Properties of the shot (still or slow, fades, how much it
    moves, smoothness) are reported as facts and scores and fail only when a requirement is set
    (``expect_motion``, ``motion_from_prompt``, ``min_dynamic_degree``, ``min_smoothness``).
    """

    analysis: AnalysisOptions = group(AnalysisOptions, verdict=True,
        doc="the analysis size and the caps on decoded frames and time")
    technical: TechnicalOptions = group(TechnicalOptions, verdict=True,
        doc="the technical probe's limits (duration, fps, size, codec, audio, truncation)")
    black: BlackOptions = group(BlackOptions, verdict=True, doc="what a black frame is, and what a fade to or from black is")
    still: StillOptions = group(StillOptions, verdict=True, doc="what an exact duplicate and a still pair are")
    frozen: FrozenOptions = group(FrozenOptions, verdict=True, doc="when a still run is frozen playback")
    cuts: CutOptions = group(CutOptions, verdict=True,
        doc="what an abrupt change is, what a flash is, and whether cuts are allowed")
    flicker: FlickerOptions = group(FlickerOptions, verdict=True, doc="what a flicker run is")
    motion: MotionOptions = group(MotionOptions, verdict=True,
        doc="how each pair's global motion is checked against the correlated shift")
    dynamic: DynamicOptions = group(DynamicOptions, verdict=True, doc="how much motion is measured and required")
    camera: CameraOptions = group(CameraOptions, verdict=True,
        doc="which pairs' camera motion is judged, what shake is, the smoothness minimum")
    colour: ColourOptions = group(ColourOptions, verdict=True, doc="what a colourless clip is and whether one is allowed")
