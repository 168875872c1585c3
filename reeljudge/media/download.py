"""Remote media: an http(s) URL downloaded once into a content-addressed cache (for library runs and
for every judge, through the media resolver).

A download streams into a temporary file in the cache folder while it is hashed, then is renamed
to ``blobs/<sha256><ext>`` (atomic: a killed download leaves only a ``.part`` file, never a wrong
blob). A small index entry ``urls/<hash of URL>.json`` remembers which blob a URL gave, so a later
run re-hashes the cached file instead of downloading again. HTTP with the standard library; each
download attempt is one call under the shared retry policy (:mod:`reeljudge.retry`). A size cap is
checked against the announced length before the body is read, and again while reading.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import socket
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from reeljudge.atomic import atomic_path, move, write_json
from reeljudge.errors import MediaError
from reeljudge.media.refs import IMAGE_MIME, VIDEO_MIME, sha256_file
from reeljudge.retry import GaveUp, Problem, RetryPolicy, call

USER_AGENT = "reeljudge-library/0.1"
RETRYABLE_HTTP = frozenset({408, 425, 429, 500, 502, 503, 504})
#: the default for clip downloads: 4 tries, 60 s without data fails an attempt, 10 minutes in all
DOWNLOAD_POLICY = RetryPolicy(max_attempts=4, timeout_s=60.0, deadline_s=600.0, backoff_initial_s=1.0, backoff_max_s=20.0)
#: the largest download by default (2 GiB)
MAX_DOWNLOAD_BYTES = 2 << 30
_CHUNK = 1 << 20


def fetch_url(url: str, cache_dir: str | os.PathLike[str], *, policy: RetryPolicy | None = None,
              max_bytes: int = MAX_DOWNLOAD_BYTES) -> tuple[Path, str]:
    """The local cached copy of an http(s) clip or image and its sha256; MediaError saying why it could not be had.

    Each download attempt is one call under the shared retry policy: timeouts, dropped connections,
    short reads and HTTP 408/429/5xx are tried again; other HTTP errors, and a body over ``max_bytes``, are not.
    """
    if not url.lower().startswith(("http://", "https://")):
        raise MediaError(f"{url}: only http(s) URLs are downloaded (gs:// needs a Google Cloud client; download it first)")
    root = Path(cache_dir)
    index = root / "urls" / (hashlib.sha256(url.encode()).hexdigest()[:40] + ".json")
    cached = _from_index(index, root)
    if cached is not None:
        return cached
    (root / "blobs").mkdir(parents=True, exist_ok=True)
    part = root / "blobs" / f".{os.getpid()}-{os.urandom(4).hex()}.part"
    try:
        digest, _ = call(lambda timeout_s: _download_once(url, part, timeout_s, max_bytes), policy or DOWNLOAD_POLICY, _classify)
        blob = root / "blobs" / f"{digest}{_suffix(url)}"
        move(part, blob)
    except GaveUp as error:
        raise MediaError(f"{url}: download failed ({error})") from None
    finally:
        part.unlink(missing_ok=True)
    write_json(index, {"url": url, "sha256": digest, "blob": blob.name})
    return blob, digest


def cache_bytes(data: bytes, suffix: str, cache_dir: str | os.PathLike[str]) -> tuple[Path, str]:
    """Put ``data`` in the same content-addressed cache as downloads (``blobs/<sha256><suffix>``); its path and sha256."""
    digest = hashlib.sha256(data).hexdigest()
    blob = Path(cache_dir) / "blobs" / f"{digest}{suffix}"
    if not (blob.is_file() and blob.stat().st_size == len(data)):
        with atomic_path(blob) as tmp:
            Path(tmp).write_bytes(data)
    return blob, digest


def _from_index(index: Path, root: Path) -> tuple[Path, str] | None:
    """The blob a URL was downloaded to before, if it is still there with the same content."""
    try:
        entry = json.loads(index.read_text(encoding="utf-8"))
        blob = root / "blobs" / entry["blob"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if blob.is_file() and sha256_file(blob) == entry.get("sha256"):
        return blob, entry["sha256"]
    return None


def _suffix(url: str) -> str:
    """The media extension of a URL's path (``.mp4`` when it names none we know)."""
    path = url.split("?", 1)[0].split("#", 1)[0]
    suffix = Path(path).suffix.lower()
    return suffix if suffix in VIDEO_MIME or suffix in IMAGE_MIME else ".mp4"


def _download_once(url: str, target: Path, timeout_s: float, max_bytes: int) -> str:
    """Download ``url`` into ``target`` once (synced to disk), returning its sha256; raises what went wrong."""
    digest = hashlib.sha256()
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    with urllib.request.urlopen(request, timeout=timeout_s) as response:
        expected = response.headers.get("Content-Length")
        if expected is not None and expected.isdigit() and int(expected) > max_bytes:
            raise _TooLarge(f"too large: the server announces {int(expected)} bytes, over the {max_bytes}-byte limit")
        with open(target, "wb") as out:
            size = _copy_capped(response, out, digest, max_bytes)
            out.flush()
            os.fsync(out.fileno())
    if expected is not None and expected.isdigit() and int(expected) != size:
        raise _ShortRead(f"download cut short ({size} of {expected} bytes)")
    if size == 0:
        raise _ShortRead("the server sent an empty file")
    return digest.hexdigest()


def _copy_capped(response: Any, out: Any, digest: Any, max_bytes: int) -> int:
    """Copy a response body to ``out`` while hashing it; _TooLarge once it passes ``max_bytes``."""
    size = 0
    for chunk in iter(lambda: response.read(_CHUNK), b""):
        size += len(chunk)
        if size > max_bytes:
            raise _TooLarge(f"too large: over the {max_bytes}-byte limit")
        digest.update(chunk)
        out.write(chunk)
    return size


class _TooLarge(Exception):
    """The body is (or is announced to be) larger than the download cap."""


class _ShortRead(Exception):
    """The body ended before the length the server announced (or was empty)."""


def _classify(error: BaseException) -> Problem:
    """Whether a failed download is worth trying again, and what happened, in a few words."""
    if isinstance(error, _TooLarge):
        return Problem(False, str(error))
    if isinstance(error, urllib.error.HTTPError):
        return Problem(error.code in RETRYABLE_HTTP, f"HTTP {error.code} {error.reason}")
    if isinstance(error, (TimeoutError, socket.timeout)):
        return Problem(True, "timed out", timed_out=True)
    if isinstance(error, urllib.error.URLError):
        reason = error.reason
        return Problem(not isinstance(reason, socket.gaierror), f"cannot connect ({reason})")
    if isinstance(error, (_ShortRead, http.client.HTTPException, ConnectionError)):
        return Problem(True, str(error) or type(error).__name__)
    if isinstance(error, OSError):
        return Problem(False, f"cannot write the download ({error.strerror or error})")
    return Problem(False, f"{type(error).__name__}: {error}")
