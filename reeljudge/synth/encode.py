"""Writing frames to video files for fixtures: H.264 (or any PyAV codec) with optional audio and
timestamps, and small re-encoded excerpts of real clips for committing."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Iterator, Mapping, Sequence

import numpy as np


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
    fps: float = 24,
    codec: str = "libx264",
    crf: int = 23,
    audio_seconds: float = 0.0,
    pts_ms: Sequence[int] | None = None,
    faststart: bool = True,
    gop: int = 48,
    codec_options: Mapping[str, str] | None = None,
) -> Path:
    """Encode RGB frames to a video file; optional sine audio track and explicit timestamps (VFR).

    libx264 gets ``crf``, preset veryfast, ``gop`` and no B-frames; another codec gets
    ``codec_options`` (all settings in one dict: see ``x264_options``).
    """
    import av

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    options = {"movflags": "+faststart"} if faststart and path.suffix.lower() in {".mp4", ".mov", ".m4v"} else {}
    with av.open(str(path), mode="w", options=options) as container:
        stream = container.add_stream(codec, rate=frame_rate(fps))
        if not isinstance(stream, av.VideoStream):
            raise ValueError(f"{codec} is not a video codec")
        stream.pix_fmt = "yuv420p"
        if codec == "libx264":
            stream.options = {**x264_options(crf=crf, preset="veryfast", gop=gop, bframes=0)}
        elif codec_options:
            stream.options = {**codec_options}
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


def frame_rate(fps: float) -> Fraction | int:
    """``fps`` as the exact rate a container stores: a whole number as it is; within 0.002 of an NTSC rate (n × 1000/1001:
    23.976 as a probe rounds it, 29.97, 59.94), that rate; else the nearest fraction over at most 1001."""
    if float(fps).is_integer():
        return int(fps)
    ntsc = Fraction(round(fps * 1.001) * 1000, 1001)
    return ntsc if abs(float(ntsc) - fps) < 0.002 else Fraction(fps).limit_denominator(1001)


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


def make_excerpt(source: str | Path, target: str | Path, *, width: int = 480, crf: int = 30,
                 seconds: float | None = None) -> Path:
    """Re-encode a clip smaller (H.264 video, AAC audio copied through a re-encode) for committing."""
    import av

    target = Path(target)
    with av.open(str(source)) as src, av.open(str(target), "w", options={"movflags": "+faststart"}) as dst:
        vin = src.streams.video[0]
        height = int(round(vin.codec_context.height * width / vin.codec_context.width / 2)) * 2
        rate = vin.average_rate
        if rate is None:
            raise ValueError(f"{source}: the video stream has no frame rate")
        vout = dst.add_stream("libx264", rate=rate)
        vout.codec_context.time_base = Fraction(1) / rate
        vout.width, vout.height, vout.pix_fmt = width, height, "yuv420p"
        vout.options = {**x264_options(crf=crf, preset="slow", bframes=0)}
        ain = src.streams.audio[0] if src.streams.audio else None
        aout = dst.add_stream("aac", rate=ain.codec_context.sample_rate, layout="mono") if ain else None
        if aout is not None:
            aout.bit_rate = 48000
        streams = [s for s in (vin, ain) if s is not None]
        resampler = av.AudioResampler(format="fltp", layout="mono", rate=ain.codec_context.sample_rate) if ain else None
        video_index = audio_samples = 0
        for frame in src.decode(*streams):
            if not isinstance(frame, (av.VideoFrame, av.AudioFrame)):  # none: only video and audio are decoded
                continue
            if seconds is not None and frame.time is not None and frame.time > seconds:
                continue
            if isinstance(frame, av.VideoFrame):
                small = frame.reformat(width=width, height=height, format="yuv420p")
                small.pts, small.time_base = video_index, Fraction(1) / rate
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
