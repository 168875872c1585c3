"""One streaming decode of a clip into per-frame signals that every probe reads.

Frames are decoded once, scaled down to the analysis size and reduced to a few numbers each
(brightness, darkness, colour, change from the previous frame, content change, optical-flow
statistics); no frame is kept beyond the few needed for the next comparison, so memory does
not grow with the clip's resolution or length.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import MediaError
from .options import ProbeOptions


@dataclass
class ClipInfo:
    """What the container declares about a clip, plus what decoding found."""

    path: str
    container: str
    codec: str
    width: int
    height: int
    fps: float
    declared_frames: int
    declared_duration: float
    has_audio: bool
    bytes: int
    analysis_width: int = 0
    analysis_height: int = 0
    decoded_frames: int = 0
    last_frame_time: float = 0.0
    frame_interval_min: float = 0.0
    frame_interval_max: float = 0.0
    capped: str = ""  # why analysis stopped before the end ("" when the whole clip was read)
    decode_error: str = ""  # an error that stopped decoding early
    tail_end_time: float | None = None  # when capped: the last frame time found near the end

    def as_metadata(self) -> dict[str, Any]:
        """The info as plain JSON-able values."""
        return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in self.__dict__.items()}


@dataclass
class Signals:
    """Per-frame measurements of the analysed frames; index i compares frame i with frame i−1."""

    info: ClipInfo
    times: list[float] = field(default_factory=list)
    luma: list[float] = field(default_factory=list)
    dark: list[float] = field(default_factory=list)
    chroma: list[float] = field(default_factory=list)
    diff_mean: list[float] = field(default_factory=list)
    diff_max: list[float] = field(default_factory=list)
    changed: list[float] = field(default_factory=list)
    content: list[float] = field(default_factory=list)
    mc_delta: list[float] = field(default_factory=list)
    gdx: list[float] = field(default_factory=list)
    gdy: list[float] = field(default_factory=list)
    thumbs: list[Any] = field(default_factory=list)  # 32-px-wide luma thumbnails (uint8), for run-level checks
    dd_pairs: list[tuple[int, int, float]] = field(default_factory=list)  # (from, to, top-5% flow)
    dd_interval: int = 1

    @property
    def count(self) -> int:
        """How many frames were analysed."""
        return len(self.times)

    def time_of(self, index: int) -> float:
        """The presentation time (s) of analysed frame ``index``."""
        return self.times[min(max(index, 0), len(self.times) - 1)] if self.times else 0.0


def analysis_size(width: int, height: int, short_side: int) -> tuple[int, int]:
    """The reduced (width, height) for analysis: short side at most ``short_side``, multiples of 4."""
    scale = min(1.0, short_side / max(1, min(width, height)))
    w = max(16, int(round(width * scale / 4)) * 4)
    h = max(16, int(round(height * scale / 4)) * 4)
    return w, h


def open_info(path: Path) -> tuple[Any, Any, ClipInfo]:
    """Open a clip; its container, video stream and declared info, or MediaError saying why not."""
    import av

    try:
        container = av.open(str(path))
    except av.error.FFmpegError as error:
        raise MediaError(f"{path}: not a decodable media file ({_ffmpeg_reason(error)})") from None
    if not container.streams.video:
        kinds = ", ".join(s.type for s in container.streams) or "none"
        container.close()
        raise MediaError(f"{path}: has no video stream (streams: {kinds})")
    stream = container.streams.video[0]
    ctx = stream.codec_context
    rate = stream.average_rate or stream.guessed_rate or stream.base_rate
    fps = float(rate) if rate else 0.0
    duration = 0.0
    if stream.duration is not None and stream.time_base is not None:
        duration = float(stream.duration * stream.time_base)
    elif container.duration is not None:
        duration = container.duration / 1_000_000
    declared = int(stream.frames or 0) or (int(round(duration * fps)) if fps and duration else 0)
    info = ClipInfo(
        path=str(path),
        container=container.format.name,
        codec=ctx.name,
        width=int(ctx.width or stream.width or 0),
        height=int(ctx.height or stream.height or 0),
        fps=fps,
        declared_frames=declared,
        declared_duration=duration,
        has_audio=bool(container.streams.audio),
        bytes=path.stat().st_size,
    )
    if info.width <= 0 or info.height <= 0:
        container.close()
        raise MediaError(f"{path}: video stream has no frame size ({info.codec})")
    return container, stream, info


def _ffmpeg_reason(error: Exception) -> str:
    """A short reason from a PyAV/FFmpeg error."""
    text = getattr(error, "strerror", None) or str(error)
    return str(text).split(":", 1)[0] if len(str(text)) > 120 else str(text)


def measure(path: str | Path, options: ProbeOptions | None = None) -> Signals:
    """Decode ``path`` once (bounded by the options' caps) and return its per-frame signals."""
    import av
    import cv2
    import numpy as np

    options = options or ProbeOptions()
    path = Path(path)
    container, stream, info = open_info(path)
    stream.thread_type = "AUTO"
    w, h = analysis_size(info.width, info.height, options.analysis_short_side)
    info.analysis_width, info.analysis_height = w, h
    signals = Signals(info=info)
    fps = info.fps or 24.0
    interval = max(1, int(round(fps / options.dynamic_sample_fps)))
    signals.dd_interval = interval
    dis = cv2.DISOpticalFlow_create(cv2.DISOPTICAL_FLOW_PRESET_ULTRAFAST)
    grid_x, grid_y = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    small_w = 64
    small_h = max(8, int(round(small_w * h / w)))
    ring: dict[int, Any] = {}
    prev_y = prev_z = prev_uv = None
    total_pixels = float(w * h)
    intervals: list[float] = []
    last_time: float | None = None
    index = 0
    try:
        for frame in container.decode(stream):
            t = float(frame.time) if frame.time is not None else index / fps
            if index >= options.max_frames:
                info.capped = f"analysed the first {index} frames (max_frames={options.max_frames})"
                break
            if t > options.max_seconds:
                info.capped = f"analysed the first {options.max_seconds:g} s (max_seconds={options.max_seconds:g})"
                break
            packed = frame.reformat(width=w, height=h, format="yuv420p", interpolation="FAST_BILINEAR").to_ndarray()
            y = packed[:h]
            u = packed[h : h + h // 4].reshape(h // 2, w // 2)
            v = packed[h + h // 4 : h + h // 2].reshape(h // 2, w // 2)
            signals.times.append(t)
            if last_time is not None:
                intervals.append(t - last_time)
            last_time = t
            signals.luma.append(float(cv2.mean(y)[0]))
            signals.dark.append(float(np.count_nonzero(y < options.black_pixel_level)) / total_pixels)
            uv = np.stack([u, v]).astype(np.int16)
            signals.chroma.append(float(np.abs(uv - 128).mean() * 2))
            small = cv2.resize(y, (small_w, small_h), interpolation=cv2.INTER_AREA).astype(np.float32)
            z = (small - small.mean()) / (small.std() + 4.0)
            signals.thumbs.append(cv2.resize(small, (32, max(4, small_h // 2)), interpolation=cv2.INTER_AREA).astype(np.uint8))
            if prev_y is None:
                for series in (signals.diff_mean, signals.diff_max, signals.changed, signals.content,
                               signals.mc_delta, signals.gdx, signals.gdy):
                    series.append(0.0)
            else:
                d = cv2.absdiff(y, prev_y)
                signals.diff_mean.append(float(cv2.mean(d)[0]))
                signals.diff_max.append(float(d.max()))
                signals.changed.append(float(np.count_nonzero(d > 6)) / total_pixels)
                chroma_change = float(np.abs(uv - prev_uv).mean())
                signals.content.append(float(np.abs(z - prev_z).mean()) * 100.0 / 1.13 + 2.0 * chroma_change)
                flow = dis.calc(prev_y, y, None)
                fx, fy = flow[..., 0], flow[..., 1]
                signals.gdx.append(float(np.median(fx[::2, ::2])))
                signals.gdy.append(float(np.median(fy[::2, ::2])))
                warped = cv2.remap(y, grid_x + fx, grid_y + fy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
                m = max(2, h // 16)
                resid = warped[m:-m:2, m:-m:2].astype(np.int16) - prev_y[m:-m:2, m:-m:2].astype(np.int16)
                signals.mc_delta.append(float(np.median(resid)))
                if interval == 1:
                    signals.dd_pairs.append((index - 1, index, _top5(np, fx, fy)))
            if interval > 1:
                ring[index] = y
                ring.pop(index - interval - 1, None)
                if index % interval == 0 and index - interval in ring:
                    flow = dis.calc(ring[index - interval], y, None)
                    signals.dd_pairs.append((index - interval, index, _top5(np, flow[..., 0], flow[..., 1])))
            prev_y, prev_z, prev_uv = y, z, uv
            index += 1
    except av.error.FFmpegError as error:
        info.decode_error = f"decoding stopped after {index} frames: {_ffmpeg_reason(error)}"
    finally:
        info.decoded_frames = index
        info.last_frame_time = last_time or 0.0
        if intervals:
            info.frame_interval_min = min(intervals)
            info.frame_interval_max = max(intervals)
    try:
        if info.capped and info.declared_duration > 0:
            info.tail_end_time = _tail_end_time(container, stream, info.declared_duration)
    finally:
        container.close()
    if index == 0:
        reason = info.decode_error or "no frame could be decoded"
        raise MediaError(f"{path}: not decodable as video ({reason})")
    return signals


def _top5(np: Any, fx: Any, fy: Any) -> float:
    """The mean of the largest 5% of flow magnitudes (VBench's per-pair motion statistic)."""
    mag = np.sqrt(fx * fx + fy * fy).ravel()
    k = max(1, int(mag.size * 0.05))
    return float(np.partition(mag, mag.size - k)[-k:].mean())


def _tail_end_time(container: Any, stream: Any, declared: float) -> float | None:
    """The time of the last frame that decodes in the final seconds of the clip (None if none)."""
    import av

    target = max(0.0, declared - 3.0)
    last: float | None = None
    try:
        container.seek(int(target / float(stream.time_base)), stream=stream, backward=True, any_frame=False)
        for frame in container.decode(stream):
            if frame.time is not None:
                last = float(frame.time)
    except av.error.FFmpegError:
        pass
    return last if last is not None and not math.isnan(last) else None
