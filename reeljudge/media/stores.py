"""Reading promptfoo's own stores: the blob store its Veo provider writes (``promptfoo://blob/<sha256>``)
and the media store its Sora and Azure providers write (``storageRef:<key>``).

Blob store: ``<config dir>/blobs/<hash[0:2]>/<hash[2:4]>/<hash>`` with ``<hash>.meta.json`` beside it,
where the hash is the SHA-256 of the bytes (verified here before use). Media store:
``$PROMPTFOO_MEDIA_PATH``, else ``<config dir>/media/<key>``; a key that would leave the store is refused.
The config dir is ``$PROMPTFOO_CONFIG_DIR``, else ``~/.promptfoo`` (promptfoo's default), unless
the caller names one. Standard library only.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from reeljudge.errors import MediaError
from reeljudge.media.refs import IMAGE_MIME, VIDEO_MIME, MediaKind, file_size, sha256_file, short
from reeljudge.media.viewer_store import config_dir, media_store_dir

BLOB_SCHEME = "promptfoo://blob/"
STORAGE_REF_SCHEME = "storageRef:"
_SHA256 = re.compile(r"^[0-9a-f]{64}$")




def _store_name(path: Path) -> str:
    """How a store folder is named in messages: its place under the home folder, never a full machine path."""
    try:
        return "~/" + path.resolve().relative_to(Path.home().resolve()).as_posix()
    except ValueError:
        return f"$PROMPTFOO_CONFIG_DIR/{path.name}" if path.name in ("blobs", "media") else path.name


def blob_file(uri: str, *, promptfoo_dir: str | os.PathLike[str] | None = None) -> tuple[Path, str, str]:
    """The verified file of a ``promptfoo://blob/<sha256>`` URI: (path, sha256, MIME type); MediaError saying
    what is wrong (a malformed hash, a blob missing from the store, bytes whose SHA-256 differs)."""
    digest = uri[len(BLOB_SCHEME):].strip().lower()
    if not _SHA256.match(digest):
        raise MediaError(f"{short(uri, 60)}: not a blob reference (expected promptfoo://blob/ and a 64-hex SHA-256)")
    root = config_dir(promptfoo_dir) / "blobs"
    path = root / digest[:2] / digest[2:4] / digest
    if not path.is_file():
        raise MediaError(f"blob {digest[:12]}… is missing from promptfoo's blob store ({_store_name(root)}): "
                         "was the eval run with another PROMPTFOO_CONFIG_DIR, or the store cleaned?")
    file_size(path)
    actual = sha256_file(path)
    if actual != digest:
        raise MediaError(f"blob {digest[:12]}…: hash mismatch, the stored bytes hash to {actual[:12]}… (the blob is "
                         "corrupt or was replaced)")
    return path, digest, _blob_mime(path)


def _blob_mime(path: Path) -> str:
    """The MIME type promptfoo recorded beside a blob (``<hash>.meta.json``), or "" when it recorded none."""
    try:
        meta: Any = json.loads(path.with_name(path.name + ".meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    return str(meta.get("mimeType") or "") if isinstance(meta, dict) else ""


def storage_file(ref: str, *, promptfoo_dir: str | os.PathLike[str] | None = None) -> Path:
    """The file a ``storageRef:<key>`` names in promptfoo's media store; MediaError when the key escapes the
    store or the file is missing."""
    key = ref[len(STORAGE_REF_SCHEME):].strip() if ref.startswith(STORAGE_REF_SCHEME) else ref.strip()
    root = media_store_dir(promptfoo_dir)
    parts = key.replace("\\", "/").split("/")
    if not key or key.startswith(("/", "~")) or ".." in parts or re.match(r"^[A-Za-z]:", key):
        raise MediaError(f"storage key {key!r} escapes promptfoo's media store (absolute, or with '..'); refused")
    path = (root / key).resolve()
    if not path.is_relative_to(root.resolve()):
        raise MediaError(f"storage key {key!r} escapes promptfoo's media store (it resolves outside it); refused")
    if not path.is_file():
        raise MediaError(f"storage key {key!r} is missing from promptfoo's media store ({_store_name(root)})")
    file_size(path)
    return path


def kind_of_mime(mime: str) -> MediaKind | None:
    """``video`` or ``image`` for a MIME type we can judge, None otherwise."""
    mime = mime.split(";", 1)[0].strip().lower()
    if mime in VIDEO_MIME.values():
        return "video"
    if mime in IMAGE_MIME.values():
        return "image"
    return None


def suffix_of_mime(mime: str) -> str:
    """A file suffix for a MIME type we can judge (``.mp4`` for video/mp4); "" when unknown."""
    mime = mime.split(";", 1)[0].strip().lower()
    for table in (VIDEO_MIME, IMAGE_MIME):
        for suffix, known in table.items():
            if known == mime:
                return suffix
    return ""
