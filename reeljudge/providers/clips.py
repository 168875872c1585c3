"""Clip provider: serves an existing clip named by a test var so it plays in promptfoo's viewer.

The response carries promptfoo's ``video`` object. By default the clip is put in promptfoo's own
content-addressed media store (``<config dir>/media/video/<12 hex>.mp4``, the layout promptfoo's
local storage writes) and referenced by ``storageRef``; ``delivery: data`` inlines it as a
``data:video/…`` URL instead (small clips only). Metadata: duration, fps, resolution, codec,
bytes, sha256, and ``clip_path`` for assertions that probe the same file.
"""

from __future__ import annotations

import base64
from fractions import Fraction
import json
import os
import shutil
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Mapping

from reeljudge.errors import BadInputError, MediaError, ReelJudgeError
from reeljudge.media.refs import MediaRef, resolve_media, sha256_file

DEFAULT_VAR = "clip"
DATA_URL_MAX_BYTES = 8 * 1024 * 1024
PLAYABLE = {".mp4": ("mp4", "video/mp4"), ".m4v": ("mp4", "video/mp4"), ".webm": ("webm", "video/webm")}


def media_store_dir() -> Path:
    """promptfoo's local media store: $PROMPTFOO_MEDIA_PATH, else <$PROMPTFOO_CONFIG_DIR or ~/.promptfoo>/media."""
    explicit = os.environ.get("PROMPTFOO_MEDIA_PATH")
    if explicit:
        return Path(explicit)
    config_dir = os.environ.get("PROMPTFOO_CONFIG_DIR") or str(Path.home() / ".promptfoo")
    return Path(config_dir) / "media"


def clip_facts(path: Path) -> dict[str, Any]:
    """Container facts of a clip without decoding it: duration, fps, width, height, codec, audio."""
    from reeljudge.probes.signals import open_info

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


def store_media(path: Path, sha256: str, extension: str, content_type: str, media_type: str = "video") -> str:
    """Put a file in promptfoo's media store under its content key; returns the key (``video/<12 hex>.mp4``)."""
    key = f"{media_type}/{sha256[:12]}.{extension}"
    base = media_store_dir()
    target = base / key
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists() or target.stat().st_size != path.stat().st_size:
        handle, tmp = tempfile.mkstemp(dir=target.parent, prefix=".incoming-")
        os.close(handle)
        shutil.copyfile(path, tmp)
        os.replace(tmp, target)
        meta = {
            "contentType": content_type,
            "mediaType": media_type,
            "contentHash": sha256,
            "sizeBytes": target.stat().st_size,
            "createdAt": datetime.now(timezone.utc).isoformat(),
        }
        _write_json(target.with_name(target.name + ".meta.json"), meta)
        _index_hash(base, sha256, key)
    return key


def _write_json(path: Path, data: Any) -> None:
    """Write JSON atomically (temp file and rename)."""
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=".incoming-")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        json.dump(data, out, indent=2)
    os.replace(tmp, path)


def _index_hash(base: Path, sha256: str, key: str) -> None:
    """Record hash → key in promptfoo's hash index so its own store deduplicates against it (best effort)."""
    index_path = base / "hash-index.json"
    try:
        index = json.loads(index_path.read_text(encoding="utf-8")) if index_path.exists() else {}
        if not isinstance(index, dict):
            index = {}
    except (OSError, ValueError):
        index = {}
    index[sha256] = key
    try:
        _write_json(index_path, index)
    except OSError:
        pass


def data_url(path: Path, mime: str, limit: int = DATA_URL_MAX_BYTES) -> str:
    """A ``data:`` URL of a small file; MediaError when it is over ``limit`` bytes."""
    size = path.stat().st_size
    if size > limit:
        raise MediaError(f"{path}: {size} bytes is too large for a data: URL (limit {limit}); use delivery: store")
    return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def serve_clip(ref: str, config: Mapping[str, Any]) -> dict[str, Any]:
    """The provider response for one clip reference: output, metadata and the viewer's video object."""
    base = Path(str(config.get("base_dir") or Path.cwd()))
    media = resolve_media(ref, base_dir=base, kinds=("video",))
    if media.path is None:
        url = media.uri or ref
        if not url.startswith(("http://", "https://")):
            raise MediaError(f"{ref}: only http(s) remote clips can play in the viewer")
        fmt = PLAYABLE.get(Path(url.split("?", 1)[0]).suffix.lower(), ("mp4", ""))[0]
        return {"output": ref, "metadata": {"clip": {"uri": url, "mime_type": media.mime_type}}, "video": {"url": url, "format": fmt}}
    path = media.path
    facts = clip_facts(path)
    sha = sha256_file(path)
    size = path.stat().st_size
    delivery = str(config.get("delivery") or "store")
    with tempfile.TemporaryDirectory(prefix="reeljudge-clip-") as work:
        playable, fmt, mime = playable_copy(media, Path(work))
        play_sha = sha if playable == path else sha256_file(playable)
        video: dict[str, Any] = {
            "id": play_sha[:12],
            "format": fmt,
            "size": f"{facts['width']}x{facts['height']}",
            "resolution": f"{facts['width']}x{facts['height']}",
            "duration": facts["duration"],
            "model": "clips",
        }
        if delivery == "data":
            video["url"] = data_url(playable, mime, int(config.get("data_url_max_bytes") or DATA_URL_MAX_BYTES))
        elif delivery == "store":
            key = store_media(playable, play_sha, fmt, mime)
            video["storageRef"] = {"key": key}
            video["url"] = f"storageRef:{key}"
            poster = _poster(path, Path(work))
            if poster is not None:
                poster_key = store_media(poster, sha256_file(poster), "jpg", "image/jpeg", media_type="image")
                video["thumbnail"] = f"storageRef:{poster_key}"
        else:
            raise BadInputError(f"clip provider: delivery must be 'store' or 'data', got {delivery!r}")
    clip = {"ref": ref, "file": path.name, "bytes": size, "sha256": sha, "mime_type": media.mime_type, **facts}
    if media.dataset_id:
        clip["dataset_id"] = media.dataset_id
    return {"output": ref, "metadata": {"clip": clip, "clip_path": str(path)}, "video": video}


def _poster(path: Path, work_dir: Path) -> Path | None:
    """A JPEG of the clip's first frame for the viewer's poster (None if it cannot be made)."""
    try:
        import av
        import cv2

        with av.open(str(path)) as container:
            frame = next(container.decode(video=0))
            image = frame.to_ndarray(format="bgr24")
        scale = 640 / max(image.shape[:2])
        if scale < 1:
            image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        target = work_dir / "poster.jpg"
        ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
        if not ok:
            return None
        target.write_bytes(encoded.tobytes())
        return target
    except Exception:  # a missing poster must not stop the clip from being served
        return None


def call_api(prompt: str, options: Mapping[str, Any] | None, context: Mapping[str, Any] | None) -> dict[str, Any]:
    """promptfoo provider entry: serve the clip named by the test var (config ``var``, default ``clip``)."""
    config = dict((options or {}).get("config") or {})
    context = context or {}
    var = str(config.get("var") or DEFAULT_VAR)
    vars_ = context.get("vars") or {}
    test = context.get("test") or {}
    label = test.get("description") if isinstance(test, Mapping) else None
    label = label or "<test>"
    ref = vars_.get(var)
    if ref is None or (isinstance(ref, str) and not ref.strip()):
        return {"error": f"clip provider: test {label!r} has no var {var!r} naming a clip (vars: {', '.join(sorted(vars_)) or 'none'})"}
    try:
        return serve_clip(str(ref), config)
    except ReelJudgeError as error:
        return {"error": f"clip provider: test {label!r}, var {var!r} = {str(ref)!r}: {error.message}"}
