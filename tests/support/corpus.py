"""The probes' test corpus, made by code: clean hard negatives and fault clips with known fault frames.

``corpus(variant)`` lists every clip of one variant; ``write_corpus(folder, variants)`` writes
them. Variant 0 is the base (24 fps, 256×144); variants 1 and 2 change the seed, the frame rate
(30, 25 fps), the size, the fault strengths and the lossy encoder settings, so a probe tuned to
one clip does not pass by luck. Hard negatives are footage a probe must not fail (still,
slow, flat, dark, grainy, variable-rate, re-encoded, faded, dissolved, flashed for one to three frames); fault clips
carry each fault the probes exist to find, with the probe and frames that must report it.
Generated clips belong in a temporary or cache folder, never in git.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Literal

from reeljudge.synth.clips import ClipSpec, Fault, make_clip

REPO = Path(__file__).resolve().parents[2]
REAL_CLIP = REPO / "datasets" / "clips" / "bbb_excerpt.mp4"  # CC BY 3.0, see datasets/clips/LICENSES.md
PROMPT = "one continuous shot of a landscape, the camera drifts slowly"


@dataclass(frozen=True)
class Expected:
    """A fault a probe must report: the probe, the first and last frame, and a flicker's rate."""

    probe: str
    start: int
    end: int
    hz: float | None = None


@dataclass(frozen=True)
class CorpusClip:
    """One clip of the corpus: how to write it and what the probes must find in it."""

    name: str
    group: Literal["clean", "fault"]
    what: str
    make: Callable[[Path], Path]
    expected: tuple[Expected, ...] = ()
    moves: bool | None = None  # the property truth for dynamic degree, when it is clear-cut
    suffix: str = ".mp4"
    prompt: str = PROMPT


@dataclass(frozen=True)
class _Variant:
    """What changes between corpus variants."""

    seed: int
    fps: int
    size: tuple[int, int]
    strength: float  # fault strength (flicker ±25 % × strength)
    vp9_crf: int
    crf: int
    cadence: int  # the flat animation's drawings are held this many frames (on twos, threes)

    def frame(self, seconds: float) -> int:
        """The frame index at ``seconds``."""
        return int(round(seconds * self.fps))


VARIANTS = (
    _Variant(seed=7, fps=24, size=(256, 144), strength=0.5, vp9_crf=45, crf=23, cadence=2),
    _Variant(seed=107, fps=30, size=(320, 180), strength=0.4, vp9_crf=52, crf=28, cadence=3),
    _Variant(seed=207, fps=25, size=(384, 216), strength=0.6, vp9_crf=36, crf=18, cadence=2),
)


def _spec(v: _Variant, seconds: float = 3.0, **changes: object) -> ClipSpec:
    """The variant's base clip: a grainy textured pan with a moving disc, ``seconds`` long."""
    width, height = v.size
    base = ClipSpec(width=width, height=height, fps=v.fps, frames=v.frame(seconds), seed=v.seed, grain=2.0)
    return replace(base, **changes)  # type: ignore[arg-type]


def _clip(spec: ClipSpec, crf: int) -> Callable[[Path], Path]:
    """A maker that renders ``spec`` into the path it is given."""
    return lambda path: make_clip(path, spec, crf=crf)


def _fault(name: str, v: _Variant, spec: ClipSpec, *expected: Expected, what: str) -> CorpusClip:
    return CorpusClip(name, "fault", what, _clip(spec, v.crf), tuple(expected))


def _clean(name: str, v: _Variant, spec: ClipSpec, *, what: str, moves: bool | None = None) -> CorpusClip:
    return CorpusClip(name, "clean", what, _clip(spec, v.crf), moves=moves)


def hard_negatives(v: _Variant) -> list[CorpusClip]:
    """Clean footage that the probes must pass with default settings."""
    f = v.frame
    still = _spec(v, pan_px=0.0, object_px=0.0, grain=3.0)
    return [
        _clean("clean_pan", v, _spec(v), what="textured pan, moving disc, light grain", moves=True),
        _clean("locked_off", v, still, what="locked-off still landscape under grain", moves=False),
        _clean("locked_off_exact", v, replace(still, grain=0.0), what="locked-off still, noise-free", moves=False),
        _clean("locked_off_object", v, _spec(v, pan_px=0.0, object_px=2.0), what="static camera, an object moves"),
        _clean("slow_motion", v, _spec(v, pan_px=0.25, object_px=0.3), what="slow motion: sub-pixel pan and object"),
        _clean("flat_animation", v, _spec(v, scene="flat", pan_px=3.0, object_px=4.0, grain=0.0, cadence=v.cadence),
               what=f"flat-colour cartoon, panning, each drawing held {v.cadence} frames"),
        _clean("flat_animation_smooth", v, _spec(v, scene="flat", pan_px=4.0, object_px=5.0, grain=0.0),
               what="flat-colour cartoon, a new drawing every frame, panning"),
        _clean("flat_animation_still", v, _spec(v, scene="flat", pan_px=0.0, object_px=3.0, grain=0.0, cadence=v.cadence),
               what="flat-colour cartoon, still background"),
        _clean("vfr_pan", v, _spec(v, pan_px=10.0, object_px=4.0, vfr=True), what="fast pan, variable frame rate", moves=True),
        _clean("fade_out", v, _spec(v).with_faults(Fault("fade_out", f(2.0), f(0.75))), what="fade-out to black at the end"),
        _clean("fade_in", v, _spec(v).with_faults(Fault("fade_in", 0, f(0.6))), what="fade-in from black"),
        _clean("dip_to_black", v, _spec(v).with_faults(Fault("fade_out", f(1.0), f(0.5)), Fault("fade_in", f(1.6), f(0.5))),
               what="dip to black and back (a fade, not a cut)"),
        _clean("dissolve", v, _spec(v).with_faults(Fault("dissolve", f(1.2), f(0.6))), what="dissolve between two shots"),
        _clean("flash", v, _spec(v).with_faults(Fault("flash", f(1.5), 2)), what="one camera flash"),
        _clean("flash_one_frame", v, _spec(v, pan_px=0.0, object_px=1.0).with_faults(Fault("flash", f(1.5), 1, strength=1.33)),
               what="a one-frame flash to white, static camera, an object moves (not a cut)"),
        _clean("flash_three_frames", v, _spec(v, pan_px=0.0, object_px=1.0).with_faults(Fault("flash", f(1.5), 3, strength=1.33)),
               what="a three-frame flash to white, fading, static camera, an object moves (not a cut)"),
        _clean("exposure_ramp", v, _spec(v).with_faults(Fault("exposure", f(1.0), f(1.0))),
               what="exposure ramps up 40 % over a second"),
        _clean("grain", v, _spec(v, grain=10.0), what="heavy film grain on a pan"),
        _clean("night", v, _spec(v, scene="night", pan_px=0.5, object_px=3.0, grain=3.0),
               what="night street, low light, slow pan; a car drives in"),
        _clean("night_traffic", v, _spec(v, scene="night", pan_px=0.0, object_px=10.0, grain=3.0),
               what="still night street, a car comes into and leaves the picture"),
        _clean("handheld_sway", v, _spec(v, pan_px=0.0, object_px=2.0, sway_px=6.0), what="slow handheld sway (not shake)"),
        _clean("pan_ease_hold", v,
               _spec(v, pan_px=3.0, object_px=0.0, hold_after=v.frame(2.0), ease_frames=v.frame(0.6), grain=3.0),
               what="pan slows to a hold on a still landscape"),
        _clean("hold_then_pan", v, _spec(v, pan_px=3.0, object_px=0.0, pan_from=v.frame(1.0), grain=3.0),
               what="camera holds still, then starts to pan"),
        _clean("zoom", v, _spec(v, pan_px=0.0, object_px=1.0, zoom=0.01), what="slow zoom in"),
        _clean("pulldown", v, _spec(v, fps=30, frames=90, cadence=1.25),
               what="24 fps footage at 30 fps: every fourth frame repeated"),
        _clean("pan_hold_1080p", v, _pan_hold(v),
               what="1080p: pan, then the camera holds while an object crosses a sixth of the frame", moves=True),
        CorpusClip("real_h264", "clean", "the real clip (Big Buck Bunny excerpt, H.264)",
                   lambda p: _copy(REAL_CLIP, p), moves=True),
        CorpusClip("real_vp9", "clean", f"the real clip re-encoded lossy: VP9 WebM CRF {v.vp9_crf}",
                   lambda p: transcode_vp9(REAL_CLIP, p, v.vp9_crf), suffix=".webm", moves=True),
    ]


def _pan_hold(v: _Variant) -> ClipSpec:
    """1920×1080: the camera pans for 1.25 s then holds still while the disc moves ≈ 320 px (a sixth)."""
    hold = v.frame(1.25)
    return _spec(v, width=1920, height=1080, pan_px=12.0, hold_after=hold, object_px=320.0 / (v.frame(3.0) - hold))


def faults(v: _Variant) -> list[CorpusClip]:
    """Clips with one fault each, and where the probes must find it."""
    f, n, s = v.frame, _spec(v).frames, v.strength
    static = _spec(v, pan_px=0.0, object_px=0.0)
    clips = [
        _fault("cut", v, _spec(v).with_faults(Fault("cut", f(1.5))), Expected("scene_cuts", f(1.5), f(1.5)),
               what="hard cut in a one-shot clip"),
        _fault("cut_and_back", v, _spec(v).with_faults(Fault("cut", f(1.0)), Fault("cut", f(2.0))),
               Expected("scene_cuts", f(1.0), f(1.0)), what="a cut to another shot and back to the first a second later"),
        _fault("jump", v, _spec(v).with_faults(Fault("jump", f(1.5))),
               Expected("scene_cuts", f(1.5), f(1.5)), what="camera teleports"),
        _fault("frozen", v, _spec(v).with_faults(Fault("frozen", f(1.25), f(0.5))),
               Expected("frozen_frames", f(1.25) - 1, f(1.75) - 1), what="playback freezes (exact duplicates) mid-pan"),
        _fault("frozen_end", v, _spec(v).with_faults(Fault("frozen", n - f(1.0), f(1.0))),
               Expected("frozen_frames", n - f(1.0) - 1, n - 1), what="playback freezes for the last second"),
        _fault("stall", v, _spec(v).with_faults(Fault("near_static", f(1.25), f(0.5))),
               Expected("frozen_frames", f(1.25) - 1, f(1.75) - 1), what="decoder stall: a held frame under fresh noise"),
        _fault("frozen_animation", v,
               _spec(v, scene="flat", pan_px=3.0, object_px=4.0,
                     grain=0.0, cadence=v.cadence).with_faults(Fault("frozen", f(1.25), f(0.5))),
                     Expected("frozen_frames", f(1.25) - 1, f(1.75) - 1), what="flat animation freezes"),
        _fault("frozen_short", v, _spec(v).with_faults(Fault("frozen", f(1.5), 5)),
               Expected("frozen_frames", f(1.5) - 1, f(1.5) + 4), what="playback freezes for 6 frames"),
        _fault("frozen_object", v, _spec(v, pan_px=0.0, object_px=3.0).with_faults(Fault("frozen", f(1.25), f(0.5))),
               Expected("frozen_frames", f(1.25) - 1, f(1.75) - 1), what="static camera, moving object: playback freezes"),
        _fault("black_end_hard", v, _spec(v).with_faults(Fault("black", n - f(0.5), f(0.5))),
               Expected("black_frames", n - f(0.5), n - 1), what="hard cut to black for the last half second"),
        _fault("black", v, _spec(v).with_faults(Fault("black", f(1.0), f(0.33))),
               Expected("black_frames", f(1.0), f(1.0) + f(0.33) - 1), what="hard cut to black and back"),
        _fault("shake", v, _spec(v).with_faults(Fault("shake", f(1.0), f(1.0))), Expected("camera_shake", f(1.0), f(2.0) - 1),
               what="camera shake for a second"),
        _fault("shake_vfr", v, _spec(v, pan_px=6.0, vfr=True).with_faults(Fault("shake", f(1.0), f(1.0))),
               Expected("camera_shake", f(1.0), f(2.0) - 1), what="camera shake in a variable-frame-rate pan"),
        _fault("gray", v, _spec(v).with_faults(Fault("gray", 0, n)), Expected("black_and_white", 0, n - 1),
               what="black-and-white, not asked for"),
        CorpusClip("truncated", "fault", "file cut at 55 % of its bytes", lambda p: _truncate(_clip(_spec(v), v.crf)(p), 0.55),
                   (Expected("technical", 0, n - 1),)),
    ]
    real = 25  # the real clip's frame rate
    clips += [
        CorpusClip("real_frozen", "fault", "the real clip freezes for half a second",
                   lambda p: _real_with(p, v.crf, freeze=(2 * real, real // 2)),
                   (Expected("frozen_frames", 2 * real - 1, 2 * real + real // 2 - 1),)),
        CorpusClip("real_flicker_8hz", "fault", "the real clip flickers at 8 Hz for a second",
                   lambda p: _real_with(p, v.crf, flicker=(2 * real, real, 8.0, s)),
                   (Expected("flicker", 2 * real, 3 * real - 1, 8.0),)),
    ]
    for hz in (3, 5, 8, 12):
        for scene, spec in (("static", static), ("moving", _spec(v))):
            flicker = spec.with_faults(Fault("flicker", f(1.0), f(1.0), strength=s, hz=hz))
            clips.append(_fault(f"flicker_{hz}hz_{scene}", v, flicker, Expected("flicker", f(1.0), f(2.0) - 1, float(hz)),
                                what=f"{hz} Hz brightness flicker for 1 s, {scene} scene"))
    nyquist = _spec(v).with_faults(Fault("flicker", f(1.0), f(1.0), strength=s))
    clips.append(_fault("flicker_nyquist", v, nyquist, Expected("flicker", f(1.0), f(2.0) - 1, v.fps / 2.0),
                        what=f"flicker at the Nyquist rate ({v.fps / 2:g} Hz)"))
    aperiodic = _spec(v).with_faults(Fault("flicker_random", f(1.0), f(1.0), strength=s))
    clips.append(_fault("flicker_aperiodic", v, aperiodic, Expected("flicker", f(1.0), f(2.0) - 1),
                        what="aperiodic brightness flicker for 1 s"))
    return clips


def corpus(variant: int = 0) -> list[CorpusClip]:
    """Every clip of one variant: hard negatives, then faults."""
    v = VARIANTS[variant % len(VARIANTS)]
    return hard_negatives(v) + faults(v)


def write_corpus(folder: Path, variants: tuple[int, ...] = (0,),
                 names: set[str] | None = None) -> list[tuple[int, CorpusClip, Path]]:
    """Write the clips of these variants into ``folder`` (kept if already there); (variant, clip, path) each."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for variant in variants:
        for clip in corpus(variant):
            if names is not None and clip.name not in names:
                continue
            path = folder / f"v{variant}_{clip.name}{clip.suffix}"
            if not path.exists():
                partial = path.with_name(".partial-" + path.name)
                clip.make(partial)
                partial.replace(path)
            written.append((variant, clip, path))
    return written


def transcode_vp9(source: Path, target: Path, crf: int) -> Path:
    """Re-encode a clip's video as VP9 in WebM at constant quality ``crf`` (no audio), keeping its timestamps."""
    import av

    with av.open(str(source)) as src, av.open(str(target), "w", format="webm") as dst:
        vin = src.streams.video[0]
        assert vin.time_base is not None, f"{source}: its video stream has no time base"
        out = dst.add_stream("libvpx-vp9", rate=vin.average_rate)
        out.width, out.height, out.pix_fmt = vin.codec_context.width, vin.codec_context.height, "yuv420p"
        out.codec_context.time_base = vin.time_base
        out.options = {"crf": str(crf), "b": "0", "deadline": "good", "cpu-used": "5", "row-mt": "0", "threads": "1"}
        for frame in src.decode(vin):
            frame.pict_type = av.video.frame.PictureType.NONE
            for packet in out.encode(frame):
                dst.mux(packet)
        for packet in out.encode():
            dst.mux(packet)
    return target


def _real_with(target: Path, crf: int, freeze: tuple[int, int] | None = None,
               flicker: tuple[int, int, float, float] | None = None) -> Path:
    """The real clip with a fault put in: ``freeze`` = (first frame, length) repeats the frame before;
    ``flicker`` = (first frame, length, Hz, strength) scales brightness by 1 ± 25 % × strength."""
    import av
    import numpy as np

    from reeljudge.synth.encode import write_clip

    with av.open(str(REAL_CLIP)) as container:
        stream = container.streams.video[0]
        assert stream.average_rate is not None, f"{REAL_CLIP}: its video stream has no frame rate"
        fps = int(round(float(stream.average_rate)))
        frames = [f.to_ndarray(format="rgb24") for f in container.decode(stream)]
    if freeze:
        start, length = freeze
        frames[start : start + length] = [frames[start - 1]] * length
    if flicker:
        start, length, hz, strength = flicker
        for k in range(start, start + length):
            gain = 1.0 + 0.25 * strength * np.cos(2 * np.pi * hz * (k - start) / fps)
            frames[k] = np.clip(frames[k].astype(np.float32) * gain, 0, 255).astype(np.uint8)
    return write_clip(target, frames, fps=fps, crf=crf)


def _copy(source: Path, target: Path) -> Path:
    target.write_bytes(source.read_bytes())
    return target


def _truncate(path: Path, keep: float) -> Path:
    """Cut a file to its first ``keep`` share of bytes, as an interrupted download would."""
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    return path





def detected_ranges(details: dict) -> list[tuple[int, int]]:
    """The frame ranges a probe result reports as faults (its ``runs`` or ``cuts``)."""
    items = details.get("runs") or details.get("cuts") or []
    return [(int(d["start_frame"]), int(d["end_frame"])) for d in items]


def found_at(details: dict, expected: Expected, slack: int = 2) -> bool:
    """Whether a failing probe's reported ranges overlap the expected frames (± ``slack``); a probe
    that reports no ranges (technical, black_and_white) is judged on its verdict alone."""
    ranges = detected_ranges(details)
    if expected.probe in {"technical", "black_and_white"}:
        return True
    return any(a <= expected.end + slack and b >= expected.start - slack for a, b in ranges)
