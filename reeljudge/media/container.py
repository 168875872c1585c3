"""Container facts of a clip: what its file declares (codec, size, rate, frames, duration, audio),
read with PyAV without decoding; and re-packing a clip as MP4 for players.

PyAV loads only inside the functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from reeljudge.errors import MediaError
from reeljudge.media.refs import MediaRef

#: file suffixes browsers play as they are: (format, MIME type)
PLAYABLE = {".mp4": ("mp4", "video/mp4"), ".m4v": ("mp4", "video/mp4"), ".webm": ("webm", "video/webm")}

_decoder_threads = 0  # 0: FFmpeg's choice (frame and slice threads, one per core)


def set_decoder_threads(count: int) -> None:
    """Decode video in this process with ``count`` threads (0: FFmpeg's choice); a pool worker sets 1."""
    global _decoder_threads
    if count < 0:
        raise ValueError(f"decoder threads must be 0 or more, not {count}")
    _decoder_threads = count


def threaded_decoding(stream: Any) -> None:
    """Set an opened video stream's decoder threads as this process is configured."""
    if _decoder_threads:
        stream.thread_type = "SLICE"
        stream.codec_context.thread_count = _decoder_threads
    else:
        stream.thread_type = "AUTO"


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
    decoder_skips: str = ""  # decoder work skipped because the analysis cannot see it ("" when none)

    def as_metadata(self) -> dict[str, Any]:
        """The info as plain JSON-able values (the file's name, not its machine path)."""
        values = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in self.__dict__.items() if k != "path"}
        if not values["decoder_skips"]:
            del values["decoder_skips"]  # named only when the decoder skipped something
        return {"file": Path(self.path).name, **values}


def open_info(path: Path) -> tuple[Any, Any, ClipInfo]:
    """Open a clip; its container, video stream and declared info, or MediaError saying why not (naming the file by
    its name: the caller says where it came from, and no message carries a machine path)."""
    import av

    try:
        container = av.open(str(path))
    except av.error.FFmpegError as error:
        raise MediaError(f"{path.name}: not a decodable media file ({ffmpeg_reason(error)})") from None
    if not container.streams.video:
        kinds = ", ".join(s.type for s in container.streams) or "none"
        container.close()
        raise MediaError(f"{path.name}: has no video stream (streams: {kinds})")
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
        raise MediaError(f"{path.name}: video stream has no frame size ({info.codec})")
    return container, stream, info


def ffmpeg_reason(error: Exception) -> str:
    """A short reason from a PyAV/FFmpeg error."""
    text = getattr(error, "strerror", None) or str(error)
    return str(text).split(":", 1)[0] if len(str(text)) > 120 else str(text)


def clip_facts(path: Path) -> dict[str, Any]:
    """Container facts of a clip without decoding it: duration, fps, width, height, codec, audio."""
    container, _stream, info = open_info(path)
    container.close()
    return {
        "duration": round(info.declared_duration, 3),
        "fps": round(info.fps, 3),
        "width": info.width,
        "height": info.height,
        "codec": info.codec,
        "container": info.container,
        "frames": info.declared_frames,
        "has_audio": info.has_audio,
    }


def playable_copy(media: MediaRef, work_dir: Path) -> tuple[Path, str, str]:
    """A file browsers can play, with its format and MIME type: the clip itself, or an MP4 remux of it."""
    assert media.path is not None
    suffix = media.path.suffix.lower()
    if suffix in PLAYABLE:
        fmt, mime = PLAYABLE[suffix]
        return media.path, fmt, mime
    target = work_dir / (media.path.stem + ".mp4")
    try:
        remux_to_mp4(media.path, target)
    except MediaError:
        transcode_to_mp4(media.path, target)
    return target, "mp4", "video/mp4"


def remux_to_mp4(source: Path, target: Path) -> None:
    """Copy a clip's video (and audio) packets into an MP4 container; MediaError if they do not fit."""
    import av

    try:
        with av.open(str(source)) as src, av.open(str(target), "w", options={"movflags": "+faststart"}) as dst:
            mapping = {}
            for stream in (*src.streams.video[:1], *src.streams.audio[:1]):
                mapping[stream.index] = dst.add_stream_from_template(stream)
            for packet in src.demux(*[s for s in src.streams if s.index in mapping]):
                if packet.size == 0:
                    continue  # demuxer flush packet
                if packet.dts is None:
                    packet.dts = packet.pts
                packet.stream = mapping[packet.stream.index]
                dst.mux(packet)
    except (av.error.FFmpegError, ValueError) as error:
        raise MediaError(f"{source}: cannot be remuxed to MP4 for the viewer ({error})") from None


def transcode_to_mp4(source: Path, target: Path) -> None:
    """Re-encode a clip's video as H.264 in MP4 (no audio) when its packets cannot be copied."""
    import av

    try:
        with av.open(str(source)) as src, av.open(str(target), "w", options={"movflags": "+faststart"}) as dst:
            vin = src.streams.video[0]
            rate = vin.average_rate or vin.guessed_rate or 25
            out = dst.add_stream("libx264", rate=rate)
            out.codec_context.time_base = Fraction(1) / Fraction(rate)
            out.width, out.height, out.pix_fmt = vin.codec_context.width // 2 * 2, vin.codec_context.height // 2 * 2, "yuv420p"
            out.options = {"crf": "20", "preset": "veryfast"}
            for index, frame in enumerate(src.decode(vin)):
                frame = frame.reformat(width=out.width, height=out.height, format="yuv420p")
                frame.pts, frame.time_base = index, out.codec_context.time_base
                for packet in out.encode(frame):
                    dst.mux(packet)
            for packet in out.encode():
                dst.mux(packet)
    except (av.error.FFmpegError, ValueError) as error:
        raise MediaError(f"{source}: cannot be converted to MP4 for the viewer ({error})") from None


def poster_frame(path: Path, work_dir: Path) -> Path | None:
    """A JPEG of the clip's first frame for the viewer's poster (None if it cannot be made)."""
    try:
        import av
        import cv2

        with av.open(str(path)) as container:
            frame = next(container.decode(video=0))
            image: Any = frame.to_ndarray(format="bgr24")  # an OpenCV image from here on
        scale = 640 / max(image.shape[:2])
        if scale < 1:
            image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        target = work_dir / "poster.jpg"
        ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
        if not ok:
            return None
        target.write_bytes(encoded.tobytes())
        return target
    except Exception:  # noqa: BLE001 - a missing poster must not stop the clip from being served
        return None


