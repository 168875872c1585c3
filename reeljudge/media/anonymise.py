"""Clips that do not name their maker, for blind comparisons: names stripped, or everything re-encoded to one profile.

A clip's bytes say more than its pictures: x264 and x265 write their version and every setting into
the first frame (SEI user data), muxers write their name and version, a title, a comment, a handler
name. ``strip_names`` copies the video packets into a fresh file without any of it: the codec's
user-data units are removed by FFmpeg's ``filter_units`` bitstream filter (H.264 SEI, H.265 prefix and
suffix SEI, AV1 metadata OBUs), no container or stream tag is copied, the handler is FFmpeg's one
default name, and the muxer runs bit-exact (no version string). Audio is left out.

What stripping keeps is the codec's configuration (profile, level, entropy coder, reference frames:
the SPS/PPS), which differs between encoders and so can still tell two systems apart.
``normalise`` removes that too: it decodes the clip and encodes it again to ``PROFILE`` (H.264 High,
4:2:0, one rate factor and preset, the source's frame times), then strips the result; it costs a
full decode and encode of every clip (``benchmarks/ab_blinding.py``). PyAV loads only inside the functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reeljudge.errors import MediaError

#: bitstream filters that remove user-data units, by codec
USER_DATA_FILTERS = {
    "h264": "filter_units=remove_types=6",  # SEI
    "hevc": "filter_units=remove_types=39|40",  # prefix and suffix SEI
    "av1": "filter_units=remove_types=5",  # metadata OBUs
}
#: output container by input suffix (a WebM stays WebM; everything normalised is MP4)
FORMATS = {".mp4": "mp4", ".m4v": "mp4", ".webm": "webm"}
BIT_EXACT = {"fflags": "+bitexact"}


@dataclass(frozen=True)
class Profile:
    """The one encoding ``normalise`` gives every clip."""

    codec: str = "libx264"
    profile: str = "high"
    pix_fmt: str = "yuv420p"
    crf: int = 18  # visually near-lossless: the re-encode must not become what raters judge
    preset: str = "medium"
    threads: int = 4  # fixed, not per machine: the same clip always encodes to the same bytes

    def options(self) -> dict[str, str]:
        """The encoder's settings, in one dict (PyAV 18 keeps one options dict per stream)."""
        return {"crf": str(self.crf), "preset": self.preset, "profile": self.profile,
                "x264-params": f"threads={self.threads}:sliced-threads=0"}


PROFILE = Profile()


def strip_names(source: Path, target: Path) -> Path:
    """Copy ``source``'s video packets to ``target`` without user data, tags, names or audio (see the module)."""
    import av
    from av.bitstream import BitStreamFilterContext

    fmt = FORMATS.get(target.suffix.lower(), "mp4")
    try:
        with av.open(str(source)) as src, av.open(str(target), "w", format=fmt, options=_muxer_options(fmt)) as dst:
            vin = src.streams.video[0]
            vout = dst.add_stream_from_template(vin)
            _clear_names(vout)
            name = USER_DATA_FILTERS.get(vin.codec_context.name)
            bsf = BitStreamFilterContext(name, vin, vout) if name else None
            for packet in src.demux(vin):
                if packet.size == 0:
                    continue  # the demuxer's flush packet
                for out in bsf.filter(packet) if bsf else (packet,):
                    _mux(dst, vout, out)
            for out in bsf.filter(None) if bsf else ():
                _mux(dst, vout, out)
    except (av.error.FFmpegError, ValueError) as error:
        raise MediaError(f"{source.name}: its names cannot be stripped ({error})") from None
    return target


def normalise(source: Path, target: Path, work: Path, profile: Profile = PROFILE) -> Path:
    """Decode ``source`` and encode it to ``profile`` as MP4 at ``target`` (names stripped; ``work``: a folder for
    the encoder's own output before stripping)."""
    import av

    encoded = work / f"{target.stem}.encoded.mp4"
    try:
        with av.open(str(source)) as src, av.open(str(encoded), "w", format="mp4", options=_muxer_options("mp4")) as dst:
            vin = src.streams.video[0]
            vout = dst.add_stream(profile.codec, rate=vin.average_rate or vin.guessed_rate or 24)
            if not isinstance(vout, av.VideoStream):
                raise ValueError(f"{profile.codec} is not a video codec")
            vout.width, vout.height = vin.codec_context.width // 2 * 2, vin.codec_context.height // 2 * 2
            vout.pix_fmt, vout.options = profile.pix_fmt, {**profile.options()}
            if vin.time_base is None:
                raise ValueError("the video stream has no time base")
            vout.codec_context.time_base = vin.time_base
            for index, frame in enumerate(src.decode(vin)):
                _encode(dst, vout, _as_profile(frame, vout, index))
            for packet in vout.encode():
                dst.mux(packet)
    except (av.error.FFmpegError, ValueError) as error:
        raise MediaError(f"{source.name}: cannot be re-encoded to one profile ({error})") from None
    try:
        return strip_names(encoded, target)
    finally:
        encoded.unlink(missing_ok=True)


def _as_profile(frame: Any, vout: Any, index: int) -> Any:
    """A decoded frame in the output's size and pixel format, keeping its time (or its index when it has none)."""
    pts, time_base = frame.pts, frame.time_base
    out = frame.reformat(width=vout.width, height=vout.height, format=vout.pix_fmt)
    out.time_base = time_base or vout.codec_context.time_base
    out.pts = pts if pts is not None else index
    return out


def _encode(dst: Any, vout: Any, frame: Any) -> None:
    """Encode one frame and mux what comes out."""
    for packet in vout.encode(frame):
        dst.mux(packet)


def _mux(dst: Any, stream: Any, packet: Any) -> None:
    """Mux a copied packet into ``stream`` (a packet without a decode time takes its presentation time)."""
    if packet.dts is None:
        packet.dts = packet.pts
    packet.stream = stream
    dst.mux(packet)


def _muxer_options(fmt: str) -> dict[str, str]:
    """Bit-exact muxing (no version strings); MP4 with its index first, as players stream it."""
    return {**BIT_EXACT, **({"movflags": "+faststart"} if fmt == "mp4" else {})}


def _clear_names(stream: Any) -> None:
    """No stream tag from the source: no handler, encoder, language or vendor name travels with the packets."""
    for key in list(stream.metadata):
        del stream.metadata[key]
