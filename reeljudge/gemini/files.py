"""Media as the Gemini judge receives it, on top of ``reeljudge.media``.

- local files: inline bytes when small (``inline_max_bytes``), else uploaded through the Files API
  once per content hash and reused across tests and runs: the upload record
  ``{sha256 → file name, uri, expiry}`` lives in the judge cache folder; before reuse the file is
  looked up (``files.get``): ACTIVE → reused, expiring within the hour / 404 / FAILED → uploaded
  again. A fresh upload is polled until ACTIVE and stops on FAILED. On Vertex (no Files API) local
  files go inline.
- ``gs://`` URIs: passed through on Vertex; refused with a reason on the Developer API.
- ``https://`` URLs: passed through as file URIs.

Concurrency: promptfoo may grade several tests on the same clip at once; two processes can then
both upload it. Both uploads are valid files; the record written last wins. Nothing breaks, one
upload is wasted.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from reeljudge.cache import JudgeCache, request_key
from reeljudge.errors import JudgeError, MediaError
from reeljudge.gemini.client import JudgeClient, MediaInput
from reeljudge.media.refs import MediaRef, file_size, sha256_file

DEFAULT_INLINE_MAX_BYTES = 1_000_000
VERTEX_INLINE_LIMIT = 20_000_000
EXPIRY_MARGIN = timedelta(hours=1)
RECORD_KIND = "gemini.file"


@dataclass(frozen=True)
class PreparedMedia:
    """A resolved clip or image with its content hash (or, for a URI, the hash of the URI)."""

    ref: MediaRef
    sha256: str
    size: int | None

    def placeholder(self, fps: float | None = None, start_s: float | None = None, end_s: float | None = None) -> MediaInput:
        """The media part without location: enough for a cache key, never sent."""
        return MediaInput(self.sha256, self.ref.mime_type, fps=fps, start_offset_s=start_s, end_offset_s=end_s)


def prepare_media(ref: MediaRef) -> PreparedMedia:
    """The content hash (local) or URI hash (remote) of a resolved media ref; MediaError naming it if unreadable."""
    if ref.path is not None:
        size = file_size(ref.path)
        return PreparedMedia(ref, sha256_file(ref.path), size)
    uri = ref.uri or ref.ref
    return PreparedMedia(ref, "uri-" + hashlib.sha256(uri.encode("utf-8")).hexdigest(), None)


def deliver_media(
    media: PreparedMedia,
    client: JudgeClient,
    *,
    inline_max_bytes: int = DEFAULT_INLINE_MAX_BYTES,
    fps: float | None = None,
    start_s: float | None = None,
    end_s: float | None = None,
) -> MediaInput:
    """The media part to send: inline bytes, an uploaded file's URI, or the remote URI itself."""
    located = media.placeholder(fps, start_s, end_s)
    vertex = client.settings.resolved_backend == "vertex"
    if media.ref.path is None:
        uri = media.ref.uri or media.ref.ref
        if uri.startswith("gs://") and not vertex:
            raise MediaError(
                f"{uri}: gs:// URIs are read only by the Vertex backend; set backend: vertex "
                "(or GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT), or use a local file or https URL"
            )
        return _with(located, file_uri=uri)
    path = media.ref.path
    size = media.size if media.size is not None else file_size(path)
    if size <= inline_max_bytes or vertex:
        if vertex and size > VERTEX_INLINE_LIMIT:
            raise MediaError(
                f"{path}: {size} bytes is too large to send inline to Vertex (limit {VERTEX_INLINE_LIMIT}) and the "
                "Files API is Developer-API only; put the file in Cloud Storage and pass its gs:// URI"
            )
        try:
            data = Path(path).read_bytes()
        except OSError as error:
            raise MediaError(f"{path}: cannot read file ({error.strerror or error})") from None
        return _with(located, data=data)
    uploaded = FileUploads(client).uri_for(media)
    return _with(located, file_uri=uploaded)


def _with(media: MediaInput, **changes: Any) -> MediaInput:
    from dataclasses import replace

    return replace(media, **changes)


class FileUploads:
    """Files API uploads per content hash, recorded in the judge cache folder and reused while ACTIVE."""

    def __init__(self, client: JudgeClient, *, poll_s: float | None = None, now: Any = None) -> None:
        self.client = client
        assert client.cache is not None
        self.cache: JudgeCache = client.cache
        self.poll_s = poll_s if poll_s is not None else min(2.0, max(0.01, client.settings.backoff_initial_s))
        self._now = now or (lambda: datetime.now(timezone.utc))

    def record_key(self, sha256: str) -> str:
        """The cache key of the upload record for a content hash on this endpoint."""
        endpoint = self.client.settings.base_url or os.environ.get("GOOGLE_GEMINI_BASE_URL") or "default"
        return request_key({"kind": RECORD_KIND, "sha256": sha256, "endpoint": endpoint})

    def uri_for(self, media: PreparedMedia) -> str:
        """The URI of an ACTIVE uploaded copy of ``media``: the recorded one if still usable, else a new upload."""
        key = self.record_key(media.sha256)
        record = self.cache.get(key)
        if record is not None and self._reusable(record):
            return str(record["uri"])
        file = self._upload(media)
        self.cache.put(
            key,
            RECORD_KIND,
            {"name": file.name, "uri": file.uri, "expiration_time": _iso(file.expiration_time), "sha256": media.sha256, "mime_type": media.ref.mime_type},
        )
        return str(file.uri)

    def _reusable(self, record: dict[str, Any]) -> bool:
        """Whether a recorded upload is still ACTIVE and not about to expire (404, FAILED, expiry → no)."""
        expiry = _parse_time(record.get("expiration_time"))
        if expiry is not None and expiry - EXPIRY_MARGIN <= self._now():
            return False
        try:
            file = self.client.genai().files.get(name=record["name"])
        except Exception as exc:  # noqa: BLE001 - 404/403 mean "gone": upload again; others are judge errors
            if getattr(exc, "code", None) in (403, 404):
                return False
            raise JudgeError(f"Files API lookup of {record['name']} failed: {_describe(exc)}", kind="api_error") from None
        state = _state(file)
        if state == "PROCESSING":
            file = self._wait_active(file, Path(str(record.get("name"))))
            state = _state(file)
        expiry = _parse_time(_iso(getattr(file, "expiration_time", None)))
        return state == "ACTIVE" and (expiry is None or expiry - EXPIRY_MARGIN > self._now())

    def _upload(self, media: PreparedMedia) -> Any:
        """Upload a local file and wait until it is ACTIVE; MediaError on FAILED, JudgeError on API trouble."""
        assert media.ref.path is not None
        from reeljudge.gemini.settings import credentials_hint, has_gemini_credentials

        if not has_gemini_credentials(self.client.settings):
            raise JudgeError(f"no Gemini credentials to upload {media.ref.path.name}: {credentials_hint(self.client.settings)}", kind="no_credentials")
        try:
            file = self.client.genai().files.upload(
                file=str(media.ref.path),
                config={"mime_type": media.ref.mime_type, "display_name": f"reeljudge-{media.sha256[:16]}"},
            )
        except OSError as error:
            raise MediaError(f"{media.ref.path}: cannot read file for upload ({error.strerror or error})") from None
        except Exception as exc:  # noqa: BLE001
            raise JudgeError(f"Files API upload of {media.ref.path.name} failed: {_describe(exc)}", kind="api_error") from None
        return self._wait_active(file, media.ref.path)

    def _wait_active(self, file: Any, path: Path) -> Any:
        """Poll ``files.get`` until the file is ACTIVE; MediaError on FAILED, JudgeError past the deadline."""
        deadline = time.monotonic() + self.client.settings.deadline_s
        while True:
            state = _state(file)
            if state == "ACTIVE":
                return file
            if state == "FAILED":
                error = getattr(file, "error", None)
                detail = getattr(error, "message", None) or (error.get("message") if isinstance(error, dict) else None) or "no detail"
                raise MediaError(f"{path}: the Files API could not process this file (state FAILED: {detail})")
            if time.monotonic() + self.poll_s > deadline:
                raise JudgeError(
                    f"{path.name}: uploaded file {file.name} was still {state or 'unknown'} after {self.client.settings.deadline_s:g} s",
                    kind="timeout",
                )
            time.sleep(self.poll_s)
            try:
                file = self.client.genai().files.get(name=file.name)
            except Exception as exc:  # noqa: BLE001
                raise JudgeError(f"Files API lookup of {file.name} failed: {_describe(exc)}", kind="api_error") from None


def _state(file: Any) -> str:
    state = getattr(file, "state", None)
    return str(getattr(state, "name", state) or "")


def _iso(value: Any) -> str | None:
    if value is None:
        return None
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


def _parse_time(value: Any) -> datetime | None:
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def _describe(exc: Exception) -> str:
    code = getattr(exc, "code", None)
    message = getattr(exc, "message", None) or str(exc)
    return f"HTTP {code}: {message[:300]}" if code else f"{type(exc).__name__}: {message[:300]}"
