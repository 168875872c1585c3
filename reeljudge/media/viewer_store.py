"""promptfoo's local media store, so clips play in the web viewer: files under
``<config dir>/media/<kind>/<12 hex>.<ext>`` with the ``.meta.json`` and hash-index entries promptfoo's
own storage writes, or a ``data:`` URL for small files.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
from datetime import datetime, timezone
from pathlib import Path

from reeljudge.atomic import atomic_path, write_json
from reeljudge.errors import MediaError

DATA_URL_MAX_BYTES = 8 * 1024 * 1024


def config_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """promptfoo's config folder (the one reader of it): ``explicit``, else $PROMPTFOO_CONFIG_DIR, else ~/.promptfoo."""
    if explicit:
        return Path(explicit)
    return Path(os.environ.get("PROMPTFOO_CONFIG_DIR") or Path.home() / ".promptfoo")


def media_store_dir(explicit_config_dir: str | os.PathLike[str] | None = None) -> Path:
    """promptfoo's media store: under ``explicit_config_dir`` when given, else $PROMPTFOO_MEDIA_PATH or <config dir>/media."""
    if explicit_config_dir:
        return config_dir(explicit_config_dir) / "media"
    explicit = os.environ.get("PROMPTFOO_MEDIA_PATH")
    return Path(explicit) if explicit else config_dir() / "media"


def store_media(path: Path, sha256: str, extension: str, content_type: str, media_type: str = "video") -> str:
    """Put a file in promptfoo's media store under its content key; returns the key (``video/<12 hex>.mp4``)."""
    key = f"{media_type}/{sha256[:12]}.{extension}"
    base = media_store_dir()
    target = base / key
    if not target.exists() or target.stat().st_size != path.stat().st_size:
        with atomic_path(target) as tmp:
            shutil.copyfile(path, tmp)
        meta = {
            "contentType": content_type,
            "mediaType": media_type,
            "contentHash": sha256,
            "sizeBytes": target.stat().st_size,
            "createdAt": datetime.now(timezone.utc).isoformat(),
        }
        write_json(target.with_name(target.name + ".meta.json"), meta, indent=2)
        _index_hash(base, sha256, key)
    return key


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
        write_json(index_path, index, indent=2)
    except OSError:
        pass


def data_url(path: Path, mime: str, limit: int = DATA_URL_MAX_BYTES) -> str:
    """A ``data:`` URL of a small file; MediaError when it is over ``limit`` bytes."""
    size = path.stat().st_size
    if size > limit:
        raise MediaError(f"{path}: {size} bytes is too large for a data: URL (limit {limit}); use delivery: store")
    return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


