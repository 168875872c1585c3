"""One media reference, whatever carries it, opened as a checked file with its content hash.

Carriers: ``promptfoo://blob/<sha256>`` (promptfoo's blob store, hash verified), ``storageRef:<key>``
(promptfoo's media store, path escape refused), ``data:video/…`` / ``data:image/…`` (decoded into our
content-addressed cache), ``http(s)://`` (downloaded once into the same cache as library runs),
``gs://`` (left remote: only a Vertex judge reads it), ``file://`` and plain paths or dataset ids
(relative to the base folder). Heavy modules (the downloader and its retry policy) load only when
a URL is downloaded.
"""

from __future__ import annotations

import base64
import binascii
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from reeljudge.errors import MediaError
from reeljudge.options import load_one, option
from reeljudge.media.refs import ContentRef, MediaKind, MediaRef, content_ref, resolve_media
from reeljudge.media.stores import BLOB_SCHEME, STORAGE_REF_SCHEME, blob_file, kind_of_mime, storage_file, suffix_of_mime

if TYPE_CHECKING:  # the judge cache loads only when a large file's hash is remembered
    from reeljudge.cache import JudgeCache

#: carrier names, as recorded in result metadata
CARRIERS = ("promptfoo-blob", "media-store", "data-uri", "url", "gs", "file")


@dataclass(frozen=True)
class Opened:
    """A reference opened: the checked media with its hash, the carrier, and a short label for messages."""

    media: ContentRef
    carrier: str
    label: str

    def file_name(self) -> str:
        """Which file, as results may show it: a project-relative path, a store reference, a URL, or the hash."""
        if self.carrier in ("promptfoo-blob", "media-store", "gs"):
            return self.label
        if self.carrier == "url":
            return self.label.split("?", 1)[0]
        path = self.media.ref.path
        if self.carrier == "file" and path is not None:
            try:
                return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
            except ValueError:
                pass
        return f"sha256:{self.media.sha256}"


@dataclass(frozen=True)
class Where:
    """Where references are looked up: the base folder for paths, promptfoo's config folder (None: the
    environment's), our download cache (None: the ``downloads`` folder of the caller's judge cache, else
    of the environment's), the judge cache that remembers large files' hashes (the caller's choice
    of folder and mode; None: the environment's), and the download retry policy (None: ``download_policy()``)."""

    base_dir: Path | None = None
    promptfoo_dir: Path | None = None
    cache_dir: Path | None = None
    memo: JudgeCache | None = None
    policy: Any = None

    def downloads(self) -> Path:
        """The content-addressed cache for downloads and decoded data: URIs (the one library runs use)."""
        if self.cache_dir is not None:
            return self.cache_dir
        from reeljudge.cache import default_cache_dir, downloads_dir

        return downloads_dir(self.memo.root if self.memo is not None else default_cache_dir())


def carrier_of(ref: str) -> str:
    """The carrier a reference uses (one of ``CARRIERS``), from its scheme alone."""
    low = ref.strip().lower()
    if low.startswith(BLOB_SCHEME):
        return "promptfoo-blob"
    if ref.strip().startswith(STORAGE_REF_SCHEME):
        return "media-store"
    if low.startswith("data:"):
        return "data-uri"
    if low.startswith(("http://", "https://")):
        return "url"
    if low.startswith("gs://"):
        return "gs"
    return "file"


def open_reference(ref: str, kinds: Iterable[MediaKind], where: Where = Where(), *, mime_hint: str = "") -> Opened:
    """The media ``ref`` names, checked and hashed, of one of ``kinds``; MediaError saying what is wrong.

    ``mime_hint``: the type the provider response declares (a blob's ``mimeType``), used when the
    store recorded none."""
    text, allowed = ref.strip(), tuple(kinds)
    carrier = carrier_of(text)
    if carrier == "promptfoo-blob":
        path, digest, mime = blob_file(text, promptfoo_dir=where.promptfoo_dir)
        media = _typed(text, path, mime or mime_hint, allowed, "the blob's recorded type")
        return Opened(ContentRef(media, digest, path.stat().st_size), carrier, f"{BLOB_SCHEME}{digest}")
    if carrier == "media-store":
        path = storage_file(text, promptfoo_dir=where.promptfoo_dir)
        label = f"{STORAGE_REF_SCHEME}{text[len(STORAGE_REF_SCHEME):].strip()}"
        media = resolve_media(path, kinds=allowed)
        return Opened(content_ref(_relabel(media, label), where.memo), carrier, label)
    if carrier == "data-uri":
        return _open_data_uri(text, allowed, where)
    if carrier == "url":
        return _open_url(text, allowed, where)
    media = resolve_media(text, base_dir=where.base_dir, kinds=allowed)
    return Opened(content_ref(media, where.memo), carrier, text)


def _typed(ref: str, path: Path, mime: str, allowed: tuple[MediaKind, ...], what: str) -> MediaRef:
    """A MediaRef for a file without a telling extension, typed by its MIME type; MediaError if unusable."""
    kind = kind_of_mime(mime)
    if kind is None:
        raise MediaError(f"{what} is {mime or 'unknown'!r}, not a video or image we can judge")
    if kind not in allowed:
        raise MediaError(f"is {kind} ({mime}), expected {' or '.join(allowed)}")
    return MediaRef(ref=ref, kind=kind, mime_type=mime.split(";", 1)[0].strip().lower(), path=path)


def _relabel(media: MediaRef, label: str) -> MediaRef:
    """The same media with ``label`` as its reference text (never a machine path or a long data: URI)."""
    return MediaRef(ref=label, kind=media.kind, mime_type=media.mime_type, path=media.path, uri=media.uri,
                    dataset_id=media.dataset_id)


def _open_data_uri(text: str, allowed: tuple[MediaKind, ...], where: Where) -> Opened:
    """A ``data:`` URI decoded into the content-addressed cache."""
    from reeljudge.media.download import cache_bytes

    header, comma, payload = text[len("data:"):].partition(",")
    mime = header.split(";", 1)[0].strip().lower()
    label = f"data:{mime or '(no type)'} URI"
    if not comma:
        raise MediaError(f"{label}: malformed (no ',' before the data)")
    if kind_of_mime(mime) is None:
        raise MediaError(f"{label}: {mime or 'no media type'} is not a video or image we can judge")
    data = _decode_payload(payload, ";base64" in header.lower(), label)
    path, digest = cache_bytes(data, suffix_of_mime(mime), where.downloads())
    media = _typed(label, path, mime, allowed, label)
    return Opened(ContentRef(media, digest, len(data)), "data-uri", f"{label} ({len(data)} bytes, sha256 {digest[:12]}…)")


def _decode_payload(payload: str, is_base64: bool, label: str) -> bytes:
    """The bytes of a data: URI's payload; MediaError when it is empty or not valid base64."""
    try:
        data = base64.b64decode("".join(payload.split()), validate=True) if is_base64 else urllib.parse.unquote_to_bytes(payload)
    except (binascii.Error, ValueError) as error:
        raise MediaError(f"{label}: the base64 data does not decode ({error})") from None
    if not data:
        raise MediaError(f"{label}: holds no data")
    return data


def _open_url(url: str, allowed: tuple[MediaKind, ...], where: Where) -> Opened:
    """An http(s) URL downloaded once into the cache (size cap, timeout, the shared retry policy)."""
    from reeljudge.media.download import fetch_url

    env = download_environment()
    path, digest = fetch_url(url, where.downloads(), policy=where.policy or download_policy(env),
                             max_bytes=max_download_bytes(env))
    media = resolve_media(path, kinds=allowed)
    return Opened(ContentRef(_relabel(media, url), digest, path.stat().st_size), "url", url)


@dataclass(frozen=True)
class DownloadEnvironment:
    """What the environment changes in how clips are downloaded (read by the options loader; null: the downloader's default)."""

    timeout_s: float | None = option(None, env="REELJUDGE_DOWNLOAD_TIMEOUT_S", minimum=0.001, doc="seconds per download attempt")
    deadline_s: float | None = option(None, env="REELJUDGE_DOWNLOAD_DEADLINE_S", minimum=0.001,
                                      doc="seconds for all attempts of one download")
    max_bytes: int | None = option(None, env="REELJUDGE_MAX_DOWNLOAD_BYTES", minimum=1, doc="the largest download, in bytes")


def download_environment() -> DownloadEnvironment:
    """The download settings the environment sets; BadInputError naming the variable when one is malformed."""
    return load_one({}, DownloadEnvironment, owner="downloads")


def download_policy(env: DownloadEnvironment | None = None) -> Any:
    """The download retry policy in force: the default, with $REELJUDGE_DOWNLOAD_TIMEOUT_S / _DEADLINE_S when set."""
    from dataclasses import replace

    from reeljudge.media.download import DOWNLOAD_POLICY

    env = env or download_environment()
    changes = {"timeout_s": env.timeout_s, "deadline_s": env.deadline_s}
    given: dict[str, Any] = {k: v for k, v in changes.items() if v is not None}
    return replace(DOWNLOAD_POLICY, **given)


def max_download_bytes(env: DownloadEnvironment | None = None) -> int:
    """The download size cap in force: $REELJUDGE_MAX_DOWNLOAD_BYTES, else the downloader's default."""
    from reeljudge.media.download import MAX_DOWNLOAD_BYTES

    value = (env or download_environment()).max_bytes
    return value if value is not None else MAX_DOWNLOAD_BYTES
