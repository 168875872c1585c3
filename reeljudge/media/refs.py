"""Media references: where a clip or image named by a test lives, what it is, and its content hash.

The one media layer for every judge. Imports only the standard library (the judge cache only to
remember the hash of a large file), so it is cheap to load from an assertion process and safe to use
from an uploader.

**A clip's hash, remembered.** Judge requests are keyed by their clips' content hashes, so every cache
hit would read each clip it names in full (≈ 1 ms per MB here). ``content_ref`` remembers the hash of
a file of ``MEMO_MIN_BYTES`` or more in the one judge cache (record ``media.sha256``): the cache the
caller hands in (a judge's ``cache_dir`` and ``cache`` mode), else the environment's
(``REELJUDGE_CACHE_DIR``, ``REELJUDGE_CACHE``). Mode ``off`` neither reads nor writes it, ``replay``
only reads it. It is keyed by the file's identity: real path, device, inode, size, and modification
and change times in nanoseconds. Why that is sound: no write to a file leaves all of these as they were. Its
change time (ctime) is set by the kernel on every write and every metadata change, and no call can set
it back (``touch``, ``cp -p`` and ``rsync -t`` restore the modification time, not the change time); a
file replaced by another (a rename, a new download) has another inode or change time. The one gap is
timestamp granularity: a write in the same clock tick as the change time recorded would leave it
equal, so a hash is remembered only when the file's times lie ``SETTLE_S`` seconds before the hash was
begun and the file's identity is the same after reading it (git's "racily clean" rule). Only the
hash is stored (the key is a hash of the identity: no path is written). Checks that a blob is what its
name says (stores, downloads, uploads) always read the bytes.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Literal

from reeljudge.errors import MediaError

if TYPE_CHECKING:  # the judge cache loads only when a large file's hash is remembered
    from reeljudge.cache import JudgeCache

MediaKind = Literal["video", "image"]

VIDEO_MIME: dict[str, str] = {
    ".mp4": "video/mp4",
    ".m4v": "video/mp4",
    ".mov": "video/quicktime",
    ".webm": "video/webm",
    ".mkv": "video/x-matroska",
    ".avi": "video/x-msvideo",
}
IMAGE_MIME: dict[str, str] = {
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".png": "image/png",
    ".webp": "image/webp",
}
REMOTE_SCHEMES = ("gs://", "https://", "http://")
DATASET_DIRS: tuple[str, ...] = ("datasets/clips", "datasets")
_DATASET_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_CHUNK = 1 << 20
#: files this large or larger have their hash remembered (smaller ones are hashed faster than a lookup pays)
MEMO_MIN_BYTES = 1 << 20
#: a file's times must lie this long before its hashing began for the hash to be remembered
SETTLE_S = 2.0
MEMO_KIND = "media.sha256"


@dataclass(frozen=True)
class MediaRef:
    """A resolved media reference: a local file (``path``) or a remote URI (``uri``)."""

    ref: str
    kind: MediaKind
    mime_type: str
    path: Path | None = None
    uri: str | None = None
    dataset_id: str | None = None

    @property
    def is_remote(self) -> bool:
        """True when the media lives behind a URI (gs://, http(s)://) rather than on disk."""
        return self.uri is not None

    @property
    def name(self) -> str:
        """A short display name: the file name or the last URI segment."""
        if self.path is not None:
            return self.path.name
        return (self.uri or self.ref).rstrip("/").rsplit("/", 1)[-1]


def is_remote_ref(ref: str) -> bool:
    """Whether ``ref`` is a remote URI (gs://, https:// or http://)."""
    return ref.strip().lower().startswith(REMOTE_SCHEMES)


def media_kind(name: str | os.PathLike[str]) -> MediaKind:
    """The kind of media a file name or URI names, from its extension; MediaError if unsupported."""
    suffix = Path(str(name).split("?", 1)[0]).suffix.lower()
    if suffix in VIDEO_MIME:
        return "video"
    if suffix in IMAGE_MIME:
        return "image"
    supported = ", ".join(sorted({*VIDEO_MIME, *IMAGE_MIME}))
    raise MediaError(f"{name}: unsupported media type {suffix or '(no extension)'!r} (supported: {supported})")


def mime_type(name: str | os.PathLike[str]) -> str:
    """The MIME type of a media file name or URI; MediaError if unsupported."""
    suffix = Path(str(name).split("?", 1)[0]).suffix.lower()
    media_kind(name)
    return VIDEO_MIME.get(suffix) or IMAGE_MIME[suffix]


def file_size(path: str | os.PathLike[str], *, shown: str | None = None) -> int:
    """The size in bytes of an existing, non-empty, readable media file; MediaError otherwise, naming the file
    ``shown`` (the reference as written: never the machine path it was joined into) or else ``path``."""
    p = Path(path)
    name = shown or str(p)
    try:
        size = p.stat().st_size
    except FileNotFoundError:
        raise MediaError(f"{name}: file not found") from None
    except OSError as error:
        raise MediaError(f"{name}: cannot stat file ({error.strerror or error})") from None
    if p.is_dir():
        raise MediaError(f"{name}: is a directory, not a media file")
    if size == 0:
        raise MediaError(f"{name}: file is empty (0 bytes)")
    if not os.access(p, os.R_OK):
        raise MediaError(f"{name}: file is not readable")
    return size


def sha256_file(path: str | os.PathLike[str]) -> str:
    """The hex SHA-256 of a file's bytes, read in chunks; MediaError if it cannot be read."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for chunk in iter(lambda: handle.read(_CHUNK), b""):
                digest.update(chunk)
    except OSError as error:
        raise MediaError(f"{Path(path).name}: cannot read file ({error.strerror or error})") from None
    return digest.hexdigest()


def short(text: str, limit: int = 72) -> str:
    """A reference shortened for a message (a data: URI is never printed whole, nor a long value)."""
    if text.lower().startswith("data:"):
        return text.split(",", 1)[0][:limit] + ",…"
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def find_dataset_media(dataset_id: str, base_dir: Path, dataset_dirs: Iterable[str] = DATASET_DIRS) -> Path | None:
    """The file a dataset id names (its stem, any supported extension) in the dataset folders, if any."""
    for folder in dataset_dirs:
        root = base_dir / folder
        for suffix in (*VIDEO_MIME, *IMAGE_MIME):
            candidate = root / f"{dataset_id}{suffix}"
            if candidate.is_file():
                return candidate
    return None


def resolve_media(
    ref: str | os.PathLike[str],
    *,
    base_dir: str | os.PathLike[str] | None = None,
    dataset_dirs: Iterable[str] = DATASET_DIRS,
    kinds: Iterable[MediaKind] = ("video", "image"),
) -> MediaRef:
    """Resolve a path, dataset id or remote URI to a checked MediaRef; MediaError naming it as written (never
    the machine path a relative one joins into) if unusable.

    Local files must exist, be non-empty and readable, and be of one of ``kinds``.
    Remote URIs are classified by extension only (nothing is fetched).
    """
    text = str(ref).strip()
    if not text:
        raise MediaError("empty media reference")
    allowed = tuple(kinds)
    if is_remote_ref(text):
        kind = media_kind(text)
        _check_kind(text, kind, allowed)
        return MediaRef(ref=text, kind=kind, mime_type=mime_type(text), uri=text)
    if text.lower().startswith("file://"):
        text = text[len("file://"):]
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    path = Path(text).expanduser()
    if not path.is_absolute():
        path = base / path
    try:
        exists = path.exists()
    except OSError as error:  # e.g. a name too long for the file system: base64 data given where a path belongs
        raise MediaError(f"{short(text)}: not a usable file path ({error.strerror or error})") from None
    dataset_id: str | None = None
    if not exists and _DATASET_ID.match(text) and not Path(text).suffix.lower() in {*VIDEO_MIME, *IMAGE_MIME}:
        found = find_dataset_media(text, base, dataset_dirs)
        if found is None:
            raise MediaError(f"{short(text)}: no such file, and no dataset clip with that id under {', '.join(dataset_dirs)}")
        path, dataset_id = found, text
    shown = short(text, 300) if dataset_id is None else f"{text} ({path.name})"  # as written, relative to its folder
    kind = media_kind(text if dataset_id is None else path)
    _check_kind(shown, kind, allowed)
    file_size(path, shown=shown)
    return MediaRef(ref=str(ref), kind=kind, mime_type=mime_type(path), path=path, dataset_id=dataset_id)


def _check_kind(name: str, kind: MediaKind, allowed: tuple[MediaKind, ...]) -> None:
    """Raise MediaError when a media file's kind is not one the caller accepts."""
    if kind not in allowed:
        raise MediaError(f"{name}: is {kind}, expected {' or '.join(allowed)}")


@dataclass(frozen=True)
class ContentRef:
    """A resolved clip or image with its content hash (for a remote URI: the hash of the URI)."""

    ref: MediaRef
    sha256: str
    size: int | None


def content_ref(ref: MediaRef, memo: JudgeCache | None = None) -> ContentRef:
    """The content hash (local) or URI hash (remote) of a resolved ref; MediaError naming it if unreadable.

    ``memo``: the judge cache that remembers a large file's hash (None: the environment's)."""
    if ref.path is not None:
        size = file_size(ref.path)
        digest = remembered_sha256(ref.path, memo) if size >= MEMO_MIN_BYTES else sha256_file(ref.path)
        return ContentRef(ref, digest, size)
    uri = ref.uri or ref.ref
    return ContentRef(ref, "uri-" + hashlib.sha256(uri.encode("utf-8")).hexdigest(), None)


def remembered_sha256(path: str | os.PathLike[str], memo: JudgeCache | None = None, *, settle_s: float = SETTLE_S) -> str:
    """The hex SHA-256 of a file, remembered in the judge cache ``memo`` (None: the environment's) by the
    file's identity (see the module doc: why that is sound); MediaError if it cannot be read."""
    if memo is None:
        from reeljudge.cache import environment_cache  # here: only a large file's hash is remembered

        memo = environment_cache()
    if memo is None or memo.mode == "off":
        return sha256_file(path)
    try:
        before = _identity(path)
    except OSError:
        return sha256_file(path)  # says what is wrong with the file
    entry = memo.get_record(MEMO_KIND, before)
    digest = (entry or {}).get("sha256")
    if isinstance(digest, str) and len(digest) == 64:
        return digest
    started = time.time_ns()
    digest = sha256_file(path)
    settled = max(int(before["mtime_ns"]), int(before["ctime_ns"])) <= started - int(settle_s * 1e9)
    if settled and _same_identity(path, before):
        memo.put_record(MEMO_KIND, before, {"sha256": digest}, sync=False)  # a no-op unless the mode writes
    return digest


def _identity(path: str | os.PathLike[str]) -> dict[str, int | str]:
    """What identifies a file's content without reading it: real path, device, inode, size, mtime, ctime."""
    st = os.stat(path)
    return {"path": os.path.realpath(path), "dev": st.st_dev, "ino": st.st_ino, "size": st.st_size,
            "mtime_ns": st.st_mtime_ns, "ctime_ns": st.st_ctime_ns}


def _same_identity(path: str | os.PathLike[str], before: dict[str, int | str]) -> bool:
    """Whether the file still has the identity it had before it was read (it was not written meanwhile)."""
    try:
        return _identity(path) == before
    except OSError:
        return False


def portable_path(path: str | os.PathLike[str]) -> str:
    """A local path as recorded in results and caches: relative to the working directory when under it
    (so results name no machine path), else absolute."""
    resolved = Path(path).resolve()
    try:
        return resolved.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(resolved)
