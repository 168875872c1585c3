"""Planning: a judge request that misses the cache in mode ``plan`` is recorded, not sent.

:func:`plan_request` is the client's planner for such a request (handed in by ``planner.py``). The planned record holds
everything needed to send it later from another process and read its reply the same way: the
model and generation settings, the system text, the content parts (text, media by content hash
with where it is: a remote URI, or a local file to send inline or upload at submit time), the
JSON Schema, and the identity of the reply parser (``reeljudge.gemini.parsers``). It is stored
under the request's own cache key, so the collected reply lands where the online path looks.

The assertion then fails with "queued for batch" (kind ``queued_for_batch``): never a pass.
"""

from __future__ import annotations

import base64
import time
from typing import TYPE_CHECKING, Any, Callable, NoReturn

from reeljudge.batch.store import BatchStore
from reeljudge.errors import JudgeError
from reeljudge.gemini.parsers import identity_of

if TYPE_CHECKING:  # pragma: no cover - typing only
    from reeljudge.gemini.client import JudgeClient
    from reeljudge.gemini.request import JudgeRequest, MediaInput

QUEUED = "queued_for_batch"
NOT_BATCHABLE = "not_batchable"


def plan_request(client: "JudgeClient", request: "JudgeRequest", parse: Callable[[str], Any], key: str) -> NoReturn:
    """Record ``request`` for the Batch API (unless already planned) and fail as queued for batch."""
    settings = client.settings
    if settings.resolved_backend == "vertex":
        raise JudgeError(
            "batch mode needs the Gemini Developer API: Vertex AI batch jobs read their input from Cloud Storage "
            "or BigQuery, which reeljudge does not write; run the plan with an API key (backend: developer)",
            kind=NOT_BATCHABLE,
        )
    parser = identity_of(parse)
    if parser is None:
        raise JudgeError(
            f"the {request.kind} request cannot be planned for a batch: its reply parser is a plain function; "
            "declare it with reeljudge.gemini.parsers.reply_parser so the reply can be read when it is collected",
            kind=NOT_BATCHABLE,
        )
    store = BatchStore(settings.cache_dir)
    existing = store.read_planned(key)
    if existing is None:
        store.write_planned(planned_record(request, settings, key, parser))
        raise JudgeError(
            f"queued for batch: this {request.kind} request is planned for the Gemini Batch API (key {key[:16]}…); "
            "send it with `reeljudge batch submit`, fetch the replies with `reeljudge batch collect` (or do every "
            "round with `reeljudge batch run -- <promptfoo eval args>`), then run again",
            kind=QUEUED,
        )
    raise JudgeError(f"queued for batch: {_state_of(existing, store)}", kind=QUEUED)


def planned_record(request: "JudgeRequest", settings: Any, key: str, parser: dict[str, Any]) -> dict[str, Any]:
    """The JSON record of one planned request (see the module doc)."""
    return {
        "key": key,
        "kind": request.kind,
        "model": settings.model,
        "generation": settings.generation_fingerprint(),
        "request": {
            "system": request.system,
            "parts": [part if isinstance(part, str) else media_json(part) for part in request.parts],
            "schema": request.schema,
            "media_resolution": request.media_resolution,
            "logprobs": request.response_logprobs,
        },
        "turns": [],
        "parser": parser,
        "planned": time.time(),
        "submission": None,
        "failures": [],
    }


def media_json(media: "MediaInput") -> dict[str, Any]:
    """A media part as the plan keeps it: content hash, where it is, and the part's video settings."""
    record: dict[str, Any] = {
        "sha256": media.sha256, "mime_type": media.mime_type, "fps": media.fps,
        "start_offset_s": media.start_offset_s, "end_offset_s": media.end_offset_s,
    }
    if media.file_uri:
        record["file_uri"] = media.file_uri
    elif media.local_path:
        record["local_path"], record["upload"] = media.local_path, media.upload
    elif media.data is not None:
        record["data_b64"] = base64.b64encode(media.data).decode("ascii")
    else:
        raise JudgeError(f"media {media.sha256[:12]} has neither a URI, a file nor bytes", kind="media_error")
    return {"media": record}


def _state_of(record: dict[str, Any], store: BatchStore) -> str:
    """Where a request that was planned before stands, in one sentence."""
    kind, key = record.get("kind", "judge"), str(record.get("key", ""))[:16]
    sid = record.get("submission")
    submission = store.read_submission(sid) if sid else None
    if submission is not None and not submission.get("collected"):
        job = submission.get("job") or "(job not created yet)"
        return (f"this {kind} request (key {key}…) is in batch job {job} (submission {sid}), not collected yet; "
                "run `reeljudge batch collect`, then run again")
    failures = record.get("failures") or []
    if failures:
        last = failures[-1]
        return (f"this {kind} request (key {key}…) is planned again after a failed batch attempt "
                f"({last.get('reason', 'no reason recorded')}); `reeljudge batch submit` sends it again")
    if record.get("turns"):
        return (f"this {kind} request (key {key}…) is planned for a second turn: its batch reply could not be used "
                "and the reason is fed back to the judge; `reeljudge batch submit` sends it")
    return f"this {kind} request (key {key}…) is planned and not submitted yet; run `reeljudge batch submit`"
