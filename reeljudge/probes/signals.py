"""One streaming decode of a clip into per-frame signals that every probe reads.

Frames are decoded once, scaled down to the analysis size and reduced to a few numbers each
(brightness, darkness, colour, change from the previous frame, content change, optical-flow
statistics) and a 64-px luma thumbnail (≈ 2.3 kB) for the run-level checks; no full frame is kept
beyond the few needed for the next comparison, so memory does not grow with the clip's resolution
and grows with its length only by the thumbnails (≈ 8 MB at the default 3600-frame cap).
"""

from __future__ import annotations

import math
import queue
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generator, Iterator

from reeljudge.errors import MediaError
from reeljudge.media.container import ClipInfo, ffmpeg_reason, open_info, threaded_decoding
from reeljudge.probes.global_motion import MotionReader
from reeljudge.probes.measures import textured_points, thumb_difference, top5
from reeljudge.probes.thresholds import Thresholds


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
    gd_spread: list[float] = field(default_factory=list)  # interquartile range (px, x and y combined) of the flow field
    texture: list[float] = field(default_factory=list)  # share of flow points on texture, where flow is reliable
    # the picture's global shift (phase correlation; across a one-way texture, of its profile; px at the analysis size)
    shift_x: list[float] = field(default_factory=list)
    shift_y: list[float] = field(default_factory=list)
    # phase correlation's peak (0–1): how much of the picture moves by that shift
    shift_peak: list[float] = field(default_factory=list)
    # the best peak at another shift (a repeat the picture could as well have moved by)
    shift_rival: list[float] = field(default_factory=list)
    # what warping by the flow leaves unexplained: mean abs difference from the median difference (levels, inner frame)
    residual: list[float] = field(default_factory=list)
    # what one whole-picture shift by the global motion leaves unexplained (median abs difference from the median, inner frame)
    rigid_residual: list[float] = field(default_factory=list)
    # 1 where the flow was measured again on the pair aligned by the global shift
    realigned: list[float] = field(default_factory=list)
    # how much frame i−1's texture runs one way (1: stripes, slats; 0: every way)
    coherence: list[float] = field(default_factory=list)
    # 1 where only the motion across the texture was read (coherence ≥ one_way_coherence)
    one_way: list[float] = field(default_factory=list)
    # share of 64-px thumbnail pixels changed beyond noise (brightness-compensated)
    moved: list[float] = field(default_factory=list)
    change: list[float] = field(default_factory=list)  # mean abs change of the 64-px thumbnails (brightness-compensated)
    thumbs: list[Any] = field(default_factory=list)  # 64-px-wide luma thumbnails (uint8), for run-level checks
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


def sample_interval(info: ClipInfo, options: Thresholds) -> int:
    """Every how many frames VBench's dynamic degree samples a flow pair (about ``dynamic_sample_fps``)."""
    return max(1, int(round((info.fps or 24.0) / options.dynamic.dynamic_sample_fps)))


def measure(path: str | Path, options: Thresholds | None = None) -> Signals:
    """Decode ``path`` once (bounded by the options' caps) and return its per-frame signals."""
    options = options or Thresholds()
    path = Path(path)
    container, stream, info = open_info(path)
    threaded_decoding(stream)
    w, h = analysis_size(info.width, info.height, options.analysis.analysis_short_side)
    info.analysis_width, info.analysis_height = w, h
    info.decoder_skips = _decode_only_what_is_analysed(stream, info, options.analysis.skip_deblock_scale)
    signals = Signals(info=info)
    signals.dd_interval = sample_interval(info, options)
    analyser = _FrameAnalyser(signals, options)
    try:
        with _opencv_in_this_thread():
            _analyse_frames(container, stream, info, options, analyser)
        if info.capped and info.declared_duration > 0:
            info.tail_end_time = _tail_end_time(container, stream, info.declared_duration)
    finally:
        container.close()
    if info.decoded_frames == 0:
        reason = info.decode_error or "no frame could be decoded"
        raise MediaError(f"{Path(path).name}: not decodable as video ({reason})")
    return signals


def _analyse_frames(container: Any, stream: Any, info: ClipInfo, options: Thresholds, analyser: _FrameAnalyser) -> None:
    """Feed every decoded frame within the caps to the analyser; note in ``info`` what decoding found."""
    import av

    intervals: list[float] = []
    last_time: float | None = None
    index = 0
    frames = _decode_ahead(container, stream, info, options)
    try:
        for t, packed in frames:
            if last_time is not None:
                intervals.append(t - last_time)
            last_time = t
            analyser.add(t, packed)
            index += 1
    except av.error.FFmpegError as error:
        info.decode_error = f"decoding stopped after {index} frames: {ffmpeg_reason(error)}"
    finally:
        frames.close()  # stops and joins the decoding thread before the container is touched again
        info.decoded_frames = index
        info.last_frame_time = last_time or 0.0
        if intervals:
            info.frame_interval_min = min(intervals)
            info.frame_interval_max = max(intervals)


@contextmanager
def _opencv_in_this_thread() -> Iterator[None]:
    """OpenCV's calls run in the calling thread only, for the block (its thread count restored after).

    The decoder already keeps the other core busy; OpenCV's worker pool on 256-px frames only adds
    hand-over cost (≈ 1–2 ms of CPU a frame, much of it in the kernel). The results do not depend
    on OpenCV's thread count (checked: every signal digest of the probes corpus is unchanged).
    """
    import cv2

    before = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        yield
    finally:
        cv2.setNumThreads(before)


def _decode_only_what_is_analysed(stream: Any, info: ClipInfo, skip_deblock_scale: float) -> str:
    """Tell the decoder to skip work the analysis cannot see; what was skipped ("" when nothing).

    A frame scaled down ``skip_deblock_scale`` times or more keeps none of the few-pixel block edges
    the loop filter smooths, so H.264/HEVC deblocking (``skip_loop_filter``) is skipped: ≈ 16 % of
    a 4K H.264 decode. 1080p analysed at 256 px (4.2×) is decoded in full.
    """
    scale = min(info.width, info.height) / max(1, min(info.analysis_width, info.analysis_height))
    if not skip_deblock_scale or scale < skip_deblock_scale:
        return ""
    stream.codec_context.options = {**stream.codec_context.options, "skip_loop_filter": "all"}
    return "skip_loop_filter"


_QUEUE_FRAMES = 8  # analysis-size frames decoded ahead (≈ 175 kB each at 456×256): bounds memory


def _decode_ahead(container: Any, stream: Any, info: ClipInfo, options: Thresholds) -> Generator[tuple[float, Any], None, None]:
    """(time, analysis-size yuv420p array) per frame within the caps, decoded ahead by a background thread.

    Sets ``info.capped`` when a cap stops the decode; raises a decoding error after the frames
    decoded before it; closing the iterator stops and joins the thread.
    """
    done = threading.Event()
    frames: queue.Queue[tuple[float, Any] | BaseException | None] = queue.Queue(maxsize=_QUEUE_FRAMES)

    def put(item: tuple[float, Any] | BaseException | None) -> bool:
        """Queue ``item`` unless the consumer has stopped; whether it was queued."""
        while not done.is_set():
            try:
                frames.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        """Decode, cap and scale frames into the queue; end with None or the error."""
        try:
            for item in _scaled_frames(container, stream, info, options):
                if not put(item):
                    return
            put(None)
        except BaseException as error:  # handed to the consumer, which re-raises it
            put(error)

    worker = threading.Thread(target=produce, name="reeljudge-decode", daemon=True)
    worker.start()
    try:
        while True:
            item = frames.get()
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        done.set()
        worker.join()


def _scaled_frames(container: Any, stream: Any, info: ClipInfo, options: Thresholds) -> Iterator[tuple[float, Any]]:
    """(time, analysis-size yuv420p array) per decoded frame until the end or a cap (noted in ``info``)."""
    from av.video.reformatter import VideoReformatter

    scaler = VideoReformatter()  # one scaler for the whole clip: its swscale context is reused
    bounds = options.analysis
    w, h = info.analysis_width, info.analysis_height
    fps = info.fps or 24.0
    for index, frame in enumerate(container.decode(stream)):
        t = float(frame.time) if frame.time is not None else index / fps
        if index >= bounds.max_frames:
            info.capped = f"analysed the first {index} frames (max_frames={bounds.max_frames})"
            return
        if t > bounds.max_seconds:
            info.capped = f"analysed the first {bounds.max_seconds:g} s (max_seconds={bounds.max_seconds:g})"
            return
        small = scaler.reformat(frame, width=w, height=h, format="yuv420p", interpolation="FAST_BILINEAR", threads=1)
        yield t, small.to_ndarray()


class _FrameAnalyser:
    """Turns analysis-size frames, in order, into the per-frame series of a Signals."""

    def __init__(self, signals: Signals, options: Thresholds) -> None:
        import numpy as np

        self.signals, self.options = signals, options
        w, h = signals.info.analysis_width, signals.info.analysis_height
        self.w, self.h = w, h
        self.total_pixels = float(w * h)
        self.small_size = (64, max(8, int(round(64 * h / w))))
        self.motion = MotionReader(w, h, options.motion)
        self.neutral = np.full((2, h // 2, w // 2), 128, np.uint8)  # chroma planes without colour
        self.ring: dict[int, Any] = {}
        self.prev: tuple[Any, Any, Any] | None = None  # previous frame's luma, standardised thumbnail, chroma
        self.index = 0

    def add(self, t: float, packed: Any) -> None:
        """Append frame ``t``'s measurements (``packed``: yuv420p planes stacked, h·3/2 × w)."""
        s, h, w = self.signals, self.h, self.w
        y = packed[:h]
        uv = packed[h:].reshape(2, h // 2, w // 2)
        z = self._frame_stats(y, uv)
        s.times.append(t)
        if self.prev is None:
            self.motion.first(y)
            for series in (s.diff_mean, s.diff_max, s.changed, s.content, s.mc_delta, s.gdx, s.gdy, s.gd_spread,
                           s.moved, s.change,
                           s.shift_x, s.shift_y, s.shift_peak, s.shift_rival, s.residual, s.rigid_residual,
                           s.realigned, s.coherence, s.one_way):
                series.append(0.0)
            s.texture.append(1.0)
        else:
            self._pair_stats(y, z, uv)
        self._sampled_flow(y)
        self.prev = (y, z, uv)
        self.index += 1

    def _frame_stats(self, y: Any, uv: Any) -> Any:
        """Record brightness, darkness, colour and thumbnail of one frame; its standardised 64-px thumbnail."""
        import cv2
        import numpy as np

        s = self.signals
        s.luma.append(float(cv2.mean(y)[0]))
        s.dark.append(float(np.count_nonzero(y < self.options.black.black_pixel_level)) / self.total_pixels)
        s.chroma.append(_mean_abs_difference(uv, self.neutral) * 2)
        small = cv2.resize(y, self.small_size, interpolation=cv2.INTER_AREA)
        s.thumbs.append(small)
        small = small.astype(np.float32)
        return (small - small.mean()) / (small.std() + 4.0)

    def _pair_stats(self, y: Any, z: Any, uv: Any) -> None:
        """Record how frame i differs from frame i−1: pixels, content, and the global motion (``global_motion``)."""
        import cv2
        import numpy as np

        s = self.signals
        prev_y, prev_z, prev_uv = self.prev  # type: ignore[misc]
        d = cv2.absdiff(y, prev_y)
        s.diff_mean.append(float(cv2.mean(d)[0]))
        s.diff_max.append(float(d.max()))
        s.changed.append(float(np.count_nonzero(d > 6)) / self.total_pixels)
        chroma_change = _mean_abs_difference(uv, prev_uv)
        s.content.append(float(np.abs(z - prev_z).mean()) * 100.0 / 1.13 + 2.0 * chroma_change)
        moved, change = thumb_difference(s.thumbs[-2], s.thumbs[-1], self.options.still)
        s.moved.append(moved)
        s.change.append(change)
        textured = textured_points(prev_y)
        s.texture.append(float(np.count_nonzero(textured)) / textured.size)
        m = self.motion.pair(prev_y, y, textured, s.diff_mean[-1])
        for series, value in ((s.gdx, m.x), (s.gdy, m.y), (s.gd_spread, m.spread), (s.mc_delta, m.delta),
                              (s.residual, m.residual),
                              (s.rigid_residual, m.rigid), (s.realigned, float(m.realigned)), (s.one_way, float(m.one_way)),
                              (s.coherence, m.coherence), (s.shift_x, m.shift.x), (s.shift_y, m.shift.y),
                              (s.shift_peak, m.shift.peak),
                              (s.shift_rival, m.shift.rival)):
            series.append(value)
        if s.dd_interval == 1:
            s.dd_pairs.append((self.index - 1, self.index, top5(m.flow)))

    def _sampled_flow(self, y: Any) -> None:
        """When dynamic degree samples every k > 1 frames: record the flow from frame i−k to frame i."""
        s, i, k = self.signals, self.index, self.signals.dd_interval
        if k == 1:
            return
        self.ring[i] = y
        self.ring.pop(i - k - 1, None)
        if i % k == 0 and i - k in self.ring:
            s.dd_pairs.append((i - k, i, top5(self.motion.dis.calc(self.ring[i - k], y, None))))


def _mean_abs_difference(planes: Any, other: Any) -> float:
    """The mean absolute difference of uint8 ``planes`` from ``other`` (uint8 planes of the same shape): the exact
    integer sum over the size, as numpy's mean of the int16 differences, without their copies."""
    import cv2

    rows = planes.reshape(-1, planes.shape[-1])
    difference = cv2.absdiff(rows, other.reshape(rows.shape))
    return float(cv2.sumElems(difference)[0]) / difference.size


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
