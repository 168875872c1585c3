"""Media as the Gemini judge receives it, on top of ``reeljudge.media``.

- local files: inline bytes when small (``inline_max_bytes``), else uploaded through the Files API
  once per content hash and reused across tests and runs: the upload record
  ``{sha256 → file name, uri, expiry}`` lives in the judge cache folder; before reuse the file is
  looked up (``files.get``): ACTIVE → reused, expiring within the hour / 404 / FAILED → uploaded
  again. A fresh upload is polled until ACTIVE and stops on FAILED. On Vertex (no Files API) local
  files go inline. Lookups, uploads and polling run under the one retry policy.
- ``gs://`` URIs: passed through on Vertex; refused with a reason on the Developer API.
- ``https://`` URLs: passed through as file URIs.
- cache mode ``plan``: local files are neither read nor uploaded; the part names the file and
  whether it goes inline or through the Files API, and ``reeljudge batch submit`` delivers it.

Concurrency: promptfoo may grade several tests on the same clip at once; two processes can then
both upload it. Both uploads are valid files; the record written last wins. Nothing breaks, one
upload is wasted.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from reeljudge.errors import JudgeError, MediaError
from reeljudge.gemini.client import JudgeClient
from reeljudge.gemini.request import MediaInput
from reeljudge.gemini.settings import require_credentials
from reeljudge.gemini.wire import describe_error
from reeljudge.media.refs import ContentRef, portable_path
from reeljudge.retry import GaveUp, call, deadline_in, poll

if TYPE_CHECKING:  # the clock is loaded when a file is uploaded or checked, never on a cache hit
    from datetime import datetime

DEFAULT_INLINE_MAX_BYTES = 1_000_000
VERTEX_INLINE_LIMIT = 20_000_000
EXPIRY_MARGIN_S = 3600.0
RECORD_KIND = "gemini.file"


def placeholder(media: ContentRef, fps: float | None = None, start_s: float | None = None,
                end_s: float | None = None) -> MediaInput:
    """The media part without location: enough for a cache key, never sent."""
    return MediaInput(media.sha256, media.ref.mime_type, fps=fps, start_offset_s=start_s, end_offset_s=end_s)


def deliver_media(
    media: ContentRef,
    client: JudgeClient,
    *,
    inline_max_bytes: int = DEFAULT_INLINE_MAX_BYTES,
    fps: float | None = None,
    start_s: float | None = None,
    end_s: float | None = None,
) -> MediaInput:
    """The media part to send: inline bytes, an uploaded file's URI, or the remote URI itself."""
    located = placeholder(media, fps, start_s, end_s)
    vertex = client.settings.resolved_backend == "vertex"
    if media.ref.path is None:
        uri = media.ref.uri or media.ref.ref
        if uri.startswith("gs://") and not vertex:
            raise MediaError(
                f"{uri}: gs:// URIs are read only by the Vertex backend; set backend: vertex "
                "(or GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT), or use a local file or https URL"
            )
        return replace(located, file_uri=uri)
    path = media.ref.path
    size = media.size
    assert size is not None, "content_ref measures every local file"
    assert client.cache is not None
    if client.cache.mode == "plan":  # delivered when the batch is submitted (reeljudge.batch.submit)
        return replace(located, local_path=portable_path(path), upload=size > inline_max_bytes and not vertex)
    if size <= inline_max_bytes or vertex:
        if vertex and size > VERTEX_INLINE_LIMIT:
            raise MediaError(
                f"{Path(path).name}: {size} bytes is too large to send inline to Vertex (limit {VERTEX_INLINE_LIMIT}) and the "
                "Files API is Developer-API only; put the file in Cloud Storage and pass its gs:// URI"
            )
        try:
            data = Path(path).read_bytes()
        except OSError as error:
            raise MediaError(f"{Path(path).name}: cannot read file ({error.strerror or error})") from None
        return replace(located, data=data)
    return replace(located, file_uri=FileUploads(client).uri_for(media))


class FileUploads:
    """Files API uploads per content hash, recorded in the judge cache folder and reused while ACTIVE."""

    def __init__(self, client: JudgeClient, *, poll_s: float | None = None, now: Callable[[], datetime] | None = None) -> None:
        self.client = client
        assert client.cache is not None
        self.cache = client.cache
        self.poll_s = poll_s if poll_s is not None else min(2.0, max(0.01, client.settings.backoff_initial_s))
        self._now = now or _utc_now

    def _identity(self, sha256: str) -> dict[str, str]:
        endpoint = self.client.settings.base_url or os.environ.get("GOOGLE_GEMINI_BASE_URL") or "default"
        return {"sha256": sha256, "endpoint": endpoint}

    def uri_for(self, media: ContentRef) -> str:
        """The URI of an ACTIVE uploaded copy of ``media``: the recorded one if still usable, else a new upload."""
        record = self.cache.get_record(RECORD_KIND, self._identity(media.sha256))
        if record is not None and self._reusable(record):
            return str(record["uri"])
        file = self._upload(media)
        self.cache.put_record(RECORD_KIND, self._identity(media.sha256), {
            "name": file.name, "uri": file.uri, "expiration_time": _iso(file.expiration_time),
            "sha256": media.sha256, "mime_type": media.ref.mime_type,
        })
        return str(file.uri)

    def _reusable(self, record: dict[str, Any]) -> bool:
        """Whether a recorded upload is still ACTIVE and not about to expire (404, FAILED, expiry → no)."""
        expiry = _parse_time(record.get("expiration_time"))
        if expiry is not None and (expiry - self._now()).total_seconds() <= EXPIRY_MARGIN_S:
            return False
        try:
            file = self._files_call(lambda _t: self.client.genai().files.get(name=record["name"]), f"lookup of {record['name']}")
        except _Gone:
            return False
        if _state(file) == "PROCESSING":
            file = self._wait_active(file, Path(str(record.get("name"))))
        expiry = _parse_time(_iso(getattr(file, "expiration_time", None)))
        return _state(file) == "ACTIVE" and (expiry is None or (expiry - self._now()).total_seconds() > EXPIRY_MARGIN_S)

    def _upload(self, media: ContentRef) -> Any:
        """Upload a local file and wait until it is ACTIVE; MediaError on FAILED, JudgeError on API trouble."""
        assert media.ref.path is not None
        path = media.ref.path
        require_credentials(self.client.settings, f"uploading {path.name}")
        upload = lambda _t: self.client.genai().files.upload(  # noqa: E731
            file=str(path), config={"mime_type": media.ref.mime_type, "display_name": f"reeljudge-{media.sha256[:16]}"}
        )
        try:
            file = self._files_call(upload, f"upload of {path.name}")
        except OSError as error:
            raise MediaError(f"{path.name}: cannot read file for upload ({error.strerror or error})") from None
        return self._wait_active(file, path)

    def _files_call(self, fn: Callable[[float], Any], what: str) -> Any:
        """One Files API call under the retry policy; _Gone on 403/404, JudgeError when it gives up."""
        try:
            return call(fn, self.client.settings.retry, self._classify)[0]
        except GaveUp as gave_up:
            cause = gave_up.__cause__
            if isinstance(cause, (FileNotFoundError, PermissionError, IsADirectoryError)):
                raise cause from None
            if getattr(cause, "code", None) in (403, 404):
                raise _Gone() from None
            detail = describe_error(cause) if cause is not None else gave_up.problem.text
            raise JudgeError(f"Files API {what} failed: {detail} ({gave_up})", kind="api_error") from None

    def _classify(self, exc: BaseException) -> Any:
        return self.client.classify(exc)

    def _wait_active(self, file: Any, path: Path) -> Any:
        """Poll ``files.get`` until the file is ACTIVE; MediaError on FAILED, JudgeError past the deadline."""
        deadline = deadline_in(self.client.settings.deadline_s)
        fetch = lambda _t: self.client.genai().files.get(name=file.name)  # noqa: E731
        try:
            file, _ = poll(fetch, lambda f: _state(f) != "PROCESSING", self.client.settings.retry, self._classify,
                           interval_s=self.poll_s, deadline=deadline, first=file)
        except GaveUp as gave_up:
            if gave_up.why == "deadline" and gave_up.problem.timed_out:
                raise JudgeError(
                    f"{path.name}: uploaded file {file.name} was still PROCESSING after {self.client.settings.deadline_s:g} s",
                    kind="timeout",
                ) from None
            raise JudgeError(f"Files API lookup of {file.name} failed: {gave_up}", kind="api_error") from None
        if _state(file) == "FAILED":
            error = getattr(file, "error", None)
            detail = getattr(error, "message", None) or (error.get("message") if isinstance(error, dict) else None) or "no detail"
            raise MediaError(f"{Path(path).name}: the Files API could not process this file (state FAILED: {detail})")
        return file


class _Gone(Exception):
    """A recorded upload the service no longer has (403/404): upload again."""


def _state(file: Any) -> str:
    state = getattr(file, "state", None)
    return str(getattr(state, "name", state) or "")


def _iso(value: Any) -> str | None:
    if value is None:
        return None
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


def _utc_now() -> datetime:
    """The time now, in UTC."""
    from datetime import datetime, timezone  # here: only an upload needs the clock

    return datetime.now(timezone.utc)


def _parse_time(value: Any) -> datetime | None:
    from datetime import datetime, timezone  # here: only an upload's expiry is read

    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)
