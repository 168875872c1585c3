"""Clip provider: serves an existing clip named by a test var so it plays in promptfoo's viewer.

The response carries promptfoo's ``video`` object. By default the clip is put in promptfoo's own
content-addressed media store (``reeljudge.media.viewer_store``) and referenced by ``storageRef``;
``delivery: data`` inlines it as a ``data:video/…`` URL instead (small clips only). Metadata:
duration, fps, resolution, codec, bytes, sha256, and ``clip_path`` for assertions that judge the
same file.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Mapping

from reeljudge.errors import MediaError, ReelJudgeError
from reeljudge.media.container import PLAYABLE, clip_facts, playable_copy, poster_frame
from reeljudge.media.refs import portable_path, resolve_media, sha256_file
from reeljudge.media.viewer_store import DATA_URL_MAX_BYTES, data_url, store_media
from reeljudge.options import load_one, option
from reeljudge.promptfoo.context import provider_config, test_label


@dataclass(frozen=True)
class ClipProviderOptions:
    """The clip provider's ``config:``."""

    var: str = option("clip", doc="the test var naming the clip (a path or a dataset id under datasets/clips)")
    delivery: Literal["store", "data"] = option("store", doc="store: promptfoo's media store; data: an inline data: URL")
    data_url_max_bytes: int = option(DATA_URL_MAX_BYTES, minimum=1, doc="largest clip sent as a data: URL")
    base_dir: str | None = option(None, doc="where relative clip paths start (default: the working directory)")


def serve_clip(ref: str, options: ClipProviderOptions = ClipProviderOptions()) -> dict[str, Any]:
    """The provider response for one clip reference: output, metadata and the viewer's video object."""
    base = Path(options.base_dir) if options.base_dir else Path.cwd()
    media = resolve_media(ref, base_dir=base, kinds=("video",))
    if media.path is None:
        url = media.uri or ref
        if not url.startswith(("http://", "https://")):
            raise MediaError(f"{ref}: only http(s) remote clips can play in the viewer")
        fmt = PLAYABLE.get(Path(url.split("?", 1)[0]).suffix.lower(), ("mp4", ""))[0]
        return {"output": ref, "metadata": {"clip": {"uri": url, "mime_type": media.mime_type}},
                "video": {"url": url, "format": fmt}}
    path = media.path
    facts = clip_facts(path)
    sha = sha256_file(path)
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
        if options.delivery == "data":
            video["url"] = data_url(playable, mime, options.data_url_max_bytes)
        else:
            key = store_media(playable, play_sha, fmt, mime)
            video["storageRef"] = {"key": key}
            video["url"] = f"storageRef:{key}"
            poster = poster_frame(path, Path(work))
            if poster is not None:
                poster_key = store_media(poster, sha256_file(poster), "jpg", "image/jpeg", media_type="image")
                video["thumbnail"] = f"storageRef:{poster_key}"
    clip = {"ref": ref, "file": path.name, "bytes": path.stat().st_size, "sha256": sha, "mime_type": media.mime_type, **facts}
    if media.dataset_id:
        clip["dataset_id"] = media.dataset_id
    return {"output": ref, "metadata": {"clip": clip, "clip_path": portable_path(path)}, "video": video}


def call_api(prompt: str, options: Mapping[str, Any] | None, context: Mapping[str, Any] | None) -> dict[str, Any]:
    """promptfoo provider entry: serve the clip named by the test var (config ``var``, default ``clip``)."""
    label = test_label(context)
    try:
        opts = load_one(provider_config(options), ClipProviderOptions, owner="clip provider")
    except ReelJudgeError as error:
        return {"error": f"clip provider: test {label!r}: {error.message}"}
    vars_ = (context or {}).get("vars") or {}
    ref = vars_.get(opts.var)
    if ref is None or (isinstance(ref, str) and not ref.strip()):
        return {"error": f"clip provider: test {label!r} has no var {opts.var!r} naming a clip (vars: "
                         f"{', '.join(sorted(vars_)) or 'none'})"}
    try:
        return serve_clip(str(ref), opts)
    except ReelJudgeError as error:
        return {"error": f"clip provider: test {label!r}, var {opts.var!r} = {str(ref)!r}: {error.message}"}
