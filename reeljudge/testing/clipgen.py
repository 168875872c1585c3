"""Deterministic synthetic clips with faults injected at known frames, written with PyAV.

A clip is a camera window panning over a seeded texture "world" with a moving disc; faults
(cut, camera jump, frozen run, near-static run (a frozen frame under fresh noise), black run, flicker run, shake, static noise,
black-and-white) replace or alter frames at the frame indices given. The same spec always
gives the same frames. Run ``python -m reeljudge.testing.clipgen OUT_DIR`` to write the
committed suite fixtures.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Iterator, Literal, Sequence

import numpy as np

FaultKind = Literal["cut", "jump", "frozen", "near_static", "black", "flicker", "shake", "noise", "gray"]


@dataclass(frozen=True)
class Fault:
    """A fault over frames ``start`` .. ``start + length - 1`` (cut and jump: from ``start`` on)."""

    kind: FaultKind
    start: int
    length: int = 1
    strength: float = 1.0

    @property
    def end(self) -> int:
        """The last frame index the fault touches."""
        return self.start + self.length - 1


@dataclass(frozen=True)
class ClipSpec:
    """What to render: size, rate, length, camera pan, object motion, seed and faults."""

    width: int = 256
    height: int = 144
    fps: int = 24
    frames: int = 72
    pan_px: float = 2.0
    object_px: float = 3.0
    seed: int = 7
    faults: tuple[Fault, ...] = ()
    texture: bool = True

    def with_faults(self, *faults: Fault) -> "ClipSpec":
        """The same spec with these faults."""
        return replace(self, faults=tuple(faults))


def _world(seed: int, height: int, width: int, texture: bool) -> np.ndarray:
    """A smooth random RGB texture of the given size (uint8)."""
    import cv2

    rng = np.random.default_rng(seed)
    coarse = rng.uniform(30, 225, size=(max(2, height // 24), max(2, width // 24), 3)).astype(np.float32)
    world = cv2.resize(coarse, (width, height), interpolation=cv2.INTER_CUBIC)
    if texture:
        fine = rng.normal(0, 1, size=(height, width)).astype(np.float32)
        fine = cv2.GaussianBlur(fine, (0, 0), 1.5)
        fine *= 30.0 / (fine.std() + 1e-6)
        world += fine[..., None]
    return np.clip(world, 0, 255).astype(np.uint8)


class _Renderer:
    """Renders the frames of one ClipSpec, one at a time."""

    def __init__(self, spec: ClipSpec) -> None:
        self.spec = spec
        margin = 64
        self.margin = margin
        span = int(abs(spec.pan_px) * spec.frames) + spec.width * 2 + 2 * margin
        self.worlds = [
            _world(spec.seed, spec.height + 2 * margin, span, spec.texture),
            _world(spec.seed + 1000, spec.height + 2 * margin, span, spec.texture),
        ]
        self.rng = np.random.default_rng(spec.seed + 1)
        self.shake = {
            f.start + i: tuple(int(v) for v in self.rng.integers(-int(8 * f.strength), int(8 * f.strength) + 1, size=2))
            for f in spec.faults
            if f.kind == "shake"
            for i in range(f.length)
        }

    def _faults(self, kind: FaultKind) -> list[Fault]:
        return [f for f in self.spec.faults if f.kind == kind]

    def scene(self, index: int, object_at: float | None = None) -> np.ndarray:
        """The clean frame at ``index`` (after cuts, jumps and shake), its disc at time ``object_at``."""
        spec, m = self.spec, self.margin
        world = self.worlds[sum(1 for f in self._faults("cut") if index >= f.start) % 2]
        x = m + spec.pan_px * index
        y = float(m)
        for f in self._faults("jump"):
            if index >= f.start:
                x += spec.width * 0.5 * f.strength
        dx, dy = self.shake.get(index, (0, 0))
        xi, yi = int(round(x)) + dx, int(round(y)) + dy
        frame = world[yi : yi + spec.height, xi : xi + spec.width].copy()
        import cv2

        at = float(index) if object_at is None else object_at
        cx = int(round(spec.width * 0.25 + spec.object_px * at)) % spec.width
        cy = int(round(spec.height * 0.5 + spec.height * 0.2 * np.sin(at / 9.0)))
        cv2.circle(frame, (cx, cy), max(4, spec.height // 10), (240, 60, 40), -1, lineType=cv2.LINE_AA)
        return frame

    def frames(self) -> Iterator[np.ndarray]:
        """Every frame of the clip in order (RGB uint8, height × width × 3)."""
        spec = self.spec
        previous: np.ndarray | None = None
        noise_rng = np.random.default_rng(spec.seed + 2)
        for index in range(spec.frames):
            frame = self.scene(index)
            if previous is not None and any(f.start <= index <= f.end for f in self._faults("frozen")):
                frame = previous.copy()
            for f in self._faults("near_static"):
                if f.start <= index <= f.end:
                    base = self.scene(f.start - 1).astype(np.float32)
                    frame = np.clip(base + noise_rng.normal(0, 6.0 * f.strength, base.shape), 0, 255).astype(np.uint8)
            for f in self._faults("noise"):
                if f.start <= index <= f.end:
                    noisy = frame.astype(np.float32) + noise_rng.normal(0, 6.0 * f.strength, frame.shape)
                    frame = np.clip(noisy, 0, 255).astype(np.uint8)
            for f in self._faults("flicker"):
                if f.start <= index <= f.end:
                    gain = 1.0 + 0.25 * f.strength * (1 if (index - f.start) % 2 == 0 else -1)
                    frame = np.clip(frame.astype(np.float32) * gain, 0, 255).astype(np.uint8)
            for f in self._faults("gray"):
                if f.start <= index <= f.end:
                    gray = frame.astype(np.float32) @ np.array([0.299, 0.587, 0.114], np.float32)
                    frame = np.repeat(gray[..., None], 3, axis=2).astype(np.uint8)
            for f in self._faults("black"):
                if f.start <= index <= f.end:
                    frame = np.zeros_like(frame)
            previous = frame
            yield frame


def render(spec: ClipSpec) -> Iterator[np.ndarray]:
    """The frames of ``spec`` in order (RGB uint8)."""
    return _Renderer(spec).frames()


def x264_options(*, crf: int, preset: str, gop: int | None = None, bframes: int | None = None) -> dict[str, str]:
    """Every libx264 setting in one dict, single-threaded so output is deterministic.

    Assign it once: with PyAV 18 ``stream.options`` and ``stream.codec_context.options`` are the
    same dict, so a second assignment replaces the first and silently drops its settings.
    """
    options = {"crf": str(crf), "preset": preset, "x264-params": "threads=1:sliced-threads=0"}
    if gop is not None:
        options["g"] = str(gop)
    if bframes is not None:
        options["bf"] = str(bframes)
    return options


def write_clip(
    path: str | Path,
    frames: Iterator[np.ndarray] | Sequence[np.ndarray],
    *,
    fps: int = 24,
    codec: str = "libx264",
    crf: int = 23,
    audio_seconds: float = 0.0,
    pts_ms: Sequence[int] | None = None,
    faststart: bool = True,
    gop: int = 48,
) -> Path:
    """Encode RGB frames to a video file; optional sine audio track and explicit timestamps (VFR)."""
    import av

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    options = {"movflags": "+faststart"} if faststart and path.suffix.lower() in {".mp4", ".mov", ".m4v"} else {}
    with av.open(str(path), mode="w", options=options) as container:
        stream = container.add_stream(codec, rate=fps)
        stream.pix_fmt = "yuv420p"
        if codec == "libx264":
            stream.options = x264_options(crf=crf, preset="veryfast", gop=gop, bframes=0)
        if pts_ms is not None:
            stream.codec_context.time_base = Fraction(1, 1000)
            stream.time_base = Fraction(1, 1000)
        audio = None
        if audio_seconds > 0:
            audio = container.add_stream("aac", rate=16000, layout="mono")
        first = True
        for index, rgb in enumerate(frames):
            if first:
                stream.width, stream.height = rgb.shape[1], rgb.shape[0]
                first = False
            frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(rgb), format="rgb24")
            if pts_ms is not None:
                frame.pts = int(pts_ms[index])
                frame.time_base = Fraction(1, 1000)
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
        if audio is not None:
            _write_tone(container, audio, audio_seconds)
    return path


def _write_tone(container: object, audio: object, seconds: float) -> None:
    """Mux a quiet 440 Hz sine of ``seconds`` into an open container's audio stream."""
    import av

    rate, chunk = 16000, 1024
    total = int(rate * seconds)
    t = np.arange(total, dtype=np.float32) / rate
    samples = (0.1 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    for start in range(0, total, chunk):
        block = samples[start : start + chunk]
        frame = av.AudioFrame.from_ndarray(block[None, :], format="fltp", layout="mono")
        frame.sample_rate = rate
        frame.pts = start
        for packet in audio.encode(frame):  # type: ignore[attr-defined]
            container.mux(packet)  # type: ignore[attr-defined]
    for packet in audio.encode():  # type: ignore[attr-defined]
        container.mux(packet)  # type: ignore[attr-defined]


def make_clip(path: str | Path, spec: ClipSpec, **write_options: object) -> Path:
    """Render ``spec`` and write it to ``path``."""
    return write_clip(path, render(spec), fps=spec.fps, **write_options)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Fixture:
    """A named fixture clip: its spec and the fault frames a probe must report."""

    name: str
    spec: ClipSpec
    expect: dict[str, tuple[int, int]] = field(default_factory=dict)


BASE = ClipSpec()

FIXTURES: dict[str, Fixture] = {
    fx.name: fx
    for fx in (
        Fixture("clean", BASE),
        Fixture("cut", BASE.with_faults(Fault("cut", 36)), {"scene_cuts": (36, 36)}),
        Fixture("jump", BASE.with_faults(Fault("jump", 40)), {"scene_cuts": (40, 40)}),
        Fixture("frozen", BASE.with_faults(Fault("frozen", 30, 12)), {"frozen_frames": (29, 41)}),
        Fixture("near_static", BASE.with_faults(Fault("near_static", 30, 12)), {"frozen_frames": (29, 41)}),
        Fixture("black", BASE.with_faults(Fault("black", 24, 8)), {"black_frames": (24, 31)}),
        Fixture("flicker", BASE.with_faults(Fault("flicker", 20, 16)), {"flicker": (20, 35)}),
        Fixture("shake", BASE.with_faults(Fault("shake", 24, 24)), {"camera_shake": (24, 47)}),
        Fixture("static_noise", replace(BASE, pan_px=0.0, object_px=0.0).with_faults(Fault("noise", 0, 72)), {"dynamic_degree": (0, 71)}),
        Fixture("static", replace(BASE, pan_px=0.0, object_px=0.0), {"dynamic_degree": (0, 71)}),
        Fixture("gray", BASE.with_faults(Fault("gray", 0, 72)), {"black_and_white": (0, 71)}),
    )
}

SUITE_FIXTURES = ("clean", "cut", "frozen", "black", "flicker", "static_noise")


def main(argv: Sequence[str] | None = None) -> int:
    """Write the suite's fixture clips (``gen_<name>.mp4``) into a folder."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("names", nargs="*", default=list(SUITE_FIXTURES))
    args = parser.parse_args(argv)
    for name in args.names:
        path = make_clip(args.out_dir / f"gen_{name}.mp4", FIXTURES[name].spec)
        print(f"{path} {path.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


def make_excerpt(source: str | Path, target: str | Path, *, width: int = 480, crf: int = 30, seconds: float | None = None) -> Path:
    """Re-encode a clip smaller (H.264 video, AAC audio copied through a re-encode) for committing."""
    import av

    target = Path(target)
    with av.open(str(source)) as src, av.open(str(target), "w", options={"movflags": "+faststart"}) as dst:
        vin = src.streams.video[0]
        height = int(round(vin.codec_context.height * width / vin.codec_context.width / 2)) * 2
        vout = dst.add_stream("libx264", rate=vin.average_rate)
        vout.codec_context.time_base = Fraction(1) / vin.average_rate
        vout.width, vout.height, vout.pix_fmt = width, height, "yuv420p"
        vout.options = x264_options(crf=crf, preset="slow", bframes=0)
        ain = src.streams.audio[0] if src.streams.audio else None
        aout = dst.add_stream("aac", rate=ain.codec_context.sample_rate, layout="mono") if ain else None
        if aout is not None:
            aout.bit_rate = 48000
        streams = [s for s in (vin, ain) if s is not None]
        resampler = av.AudioResampler(format="fltp", layout="mono", rate=ain.codec_context.sample_rate) if ain else None
        video_index = audio_samples = 0
        for frame in src.decode(*streams):
            if seconds is not None and frame.time is not None and frame.time > seconds:
                continue
            if isinstance(frame, av.VideoFrame):
                small = frame.reformat(width=width, height=height, format="yuv420p")
                small.pts, small.time_base = video_index, Fraction(1) / vin.average_rate
                video_index += 1
                for packet in vout.encode(small):
                    dst.mux(packet)
            elif aout is not None and resampler is not None:
                for out in resampler.resample(frame):
                    out.pts, out.time_base = audio_samples, Fraction(1, out.sample_rate)
                    audio_samples += out.samples
                    for packet in aout.encode(out):
                        dst.mux(packet)
        for stream in (vout, aout):
            if stream is not None:
                for packet in stream.encode():
                    dst.mux(packet)
    return target
