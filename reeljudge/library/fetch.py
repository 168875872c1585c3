"""Remote clips for the library runner: an http(s) URL downloaded once into a content-addressed cache.

A download streams into a temporary file in the cache folder while it is hashed, then is renamed
to ``blobs/<sha256><ext>`` (atomic: a killed download leaves only a ``.part`` file, never a wrong
blob). A small index entry ``urls/<hash of URL>.json`` remembers which blob a URL gave, so a later
run re-hashes the cached file instead of downloading again. Standard library only.

Each download is one call (:func:`_download_once`) so the shared retry policy can wrap it.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import urllib.error
import urllib.request
from pathlib import Path

from reeljudge.errors import MediaError
from reeljudge.media.refs import VIDEO_MIME, sha256_file

USER_AGENT = "reeljudge-library/0.1"
_CHUNK = 1 << 20


def fetch_url(url: str, cache_dir: str | os.PathLike[str], *, timeout_s: float = 60.0) -> tuple[Path, str]:
    """The local cached copy of an http(s) clip and its sha256; MediaError saying why it could not be had."""
    if not url.lower().startswith(("http://", "https://")):
        raise MediaError(f"{url}: only http(s) URLs are downloaded (gs:// needs a Google Cloud client; download it first)")
    root = Path(cache_dir)
    index = root / "urls" / (hashlib.sha256(url.encode()).hexdigest()[:40] + ".json")
    cached = _from_index(index, root)
    if cached is not None:
        return cached
    suffix = _suffix(url)
    (root / "blobs").mkdir(parents=True, exist_ok=True)
    part = root / "blobs" / f".{os.getpid()}-{os.urandom(4).hex()}.part"
    try:
        digest = _download_once(url, part, timeout_s)
        blob = root / "blobs" / f"{digest}{suffix}"
        os.replace(part, blob)
    finally:
        part.unlink(missing_ok=True)
    index.parent.mkdir(parents=True, exist_ok=True)
    tmp = index.with_name(index.name + f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"url": url, "sha256": digest, "blob": blob.name}), encoding="utf-8")
    os.replace(tmp, index)
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
    """The video extension of a URL's path (``.mp4`` when it names none we know)."""
    path = url.split("?", 1)[0].split("#", 1)[0]
    suffix = Path(path).suffix.lower()
    return suffix if suffix in VIDEO_MIME else ".mp4"


def _download_once(url: str, target: Path, timeout_s: float) -> str:
    """Download ``url`` into ``target`` once, returning its sha256; MediaError on any failure."""
    digest = hashlib.sha256()
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response, open(target, "wb") as out:
            expected = response.headers.get("Content-Length")
            size = 0
            for chunk in iter(lambda: response.read(_CHUNK), b""):
                digest.update(chunk)
                out.write(chunk)
                size += len(chunk)
    except urllib.error.HTTPError as error:
        raise MediaError(f"{url}: download failed with HTTP {error.code} {error.reason}") from None
    except (urllib.error.URLError, http.client.HTTPException, OSError, TimeoutError) as error:
        reason = getattr(error, "reason", None) or error
        raise MediaError(f"{url}: download failed ({reason})") from None
    if expected is not None and expected.isdigit() and int(expected) != size:
        raise MediaError(f"{url}: download cut short ({size} of {expected} bytes)")
    if size == 0:
        raise MediaError(f"{url}: the server sent an empty file")
    return digest.hexdigest()
