"""Submitting planned requests to the Gemini Batch API: one job per model, inline or as a JSONL file.

Steps, each leaving files the next run can resume from:

1. a submission record (state ``creating``) and its keys are written, and every planned request
   it takes is marked with the submission's id (so a second ``submit`` never sends it twice);
2. the requests are rebuilt (``requests.py``), their media delivered, and written one by one to
   ``jobs/<id>.input.jsonl``; a request that cannot be sent stays planned with the reason;
3. a small set (``inline_max_requests`` and ``inline_max_bytes``) goes inline in the create call,
   a larger one is uploaded through the Files API and named as the job's source;
4. ``batches.create`` (display name ``reeljudge-<id>``) under the retry policy, except after a
   timeout: the job may exist, so the next ``submit`` looks for it by display name
   (``batches.list``) before creating it again.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from reeljudge.batch.requests import ItemProblem, JsonlLines, MediaDelivery, inlined_request, rebuild
from reeljudge.batch.store import BatchStore, released
from reeljudge.errors import JudgeError
from reeljudge.gemini.client import JudgeClient
from reeljudge.gemini.settings import require_credentials
from reeljudge.retry import GaveUp, Problem, call

INLINE_MAX_REQUESTS = 100
INLINE_MAX_BYTES = 4_000_000  # well under the API's 20 MB request limit


@dataclass(frozen=True)
class SubmitOptions:
    """How to submit: ``source`` auto/inline/file and the limits under which auto sends inline."""

    source: str = "auto"
    inline_max_requests: int = INLINE_MAX_REQUESTS
    inline_max_bytes: int = INLINE_MAX_BYTES
    progress: bool = True


def submit(client: JudgeClient, options: SubmitOptions = SubmitOptions(),
           log: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """Send every planned request not already out; the submission records made (or resumed)."""
    settings = client.settings
    if settings.resolved_backend == "vertex":
        raise JudgeError("the Batch API input reeljudge writes (inline or a Files API JSONL) is Developer-API only",
                         kind="not_batchable")
    require_credentials(settings, "submitting a batch")
    store = BatchStore(settings.cache_dir)
    done = [_resume(store, client, s, options, log) for s in store.submissions() if s.get("state") == "creating"]
    open_ids = store.open_submission_ids()
    for model in sorted({r["model"] for r in _free(store, open_ids)}):
        keys = (r["key"] for r in _free(store, open_ids) if r["model"] == model)
        submission = store.new_submission(model, options.source, keys)
        for key in store.keys_of(submission["id"]):
            record = store.read_planned(key)
            if record is not None:
                store.write_planned({**record, "submission": submission["id"]})
        done.append(_send(store, client, submission, options, log))
    if not done:
        log("nothing to submit: no planned request is waiting (plan with REELJUDGE_CACHE=plan first)")
    return done


def _free(store: BatchStore, open_ids: set[str]) -> Iterator[dict[str, Any]]:
    """Planned requests not part of a submission that is still out."""
    for record in store.planned():
        if record.get("submission") not in open_ids:
            yield record


def _resume(store: BatchStore, client: JudgeClient, submission: dict[str, Any], options: SubmitOptions,
            log: Callable[[str], None]) -> dict[str, Any]:
    """A submission interrupted before its job was recorded: adopt the job if it exists, else send it."""
    found = _find_job(client, submission["display_name"])
    if found is not None:
        log(f"submission {submission['id']}: found its job {found.name} (created before an interruption)")
        return _record_job(store, submission, found)
    return _send(store, client, submission, options, log)


def _send(store: BatchStore, client: JudgeClient, submission: dict[str, Any], options: SubmitOptions,
          log: Callable[[str], None]) -> dict[str, Any]:
    """Build, upload if large, and create the job of one submission; its record, updated."""
    path, inline, count = _write_input(store, client, submission, options, log)
    submission = {**submission, "count": count}
    if count == 0:
        path.unlink(missing_ok=True)
        store.write_submission({**submission, "state": "empty", "collected": True})
        log(f"submission {submission['id']}: no request could be sent (see `reeljudge batch status`)")
        return {**submission, "state": "empty", "collected": True}
    if inline is None:
        src: Any = _upload_input(client, path, submission["display_name"])
        submission = {**submission, "source": "file", "input_file": src}
        store.write_submission(submission)
    else:
        src = inline
        submission = {**submission, "source": "inline"}
    job = _create(client, submission["model"], src, submission["display_name"])
    path.unlink(missing_ok=True)
    record = _record_job(store, submission, job)
    log(f"submitted {count} {submission['model']} request(s) {submission['source']} as {job.name} "
        f"(submission {submission['id']}, state {record['state']})")
    return record


def _write_input(store: BatchStore, client: JudgeClient, submission: dict[str, Any], options: SubmitOptions,
                 log: Callable[[str], None]) -> tuple[Path, list[Any] | None, int]:
    """Write the JSONL input of a submission and the keys it holds, one request at a time; also the
    inline list while it stays small. (path, inline requests or None, count)."""
    from tqdm import tqdm

    from reeljudge.atomic import atomic_path

    sid = submission["id"]
    path = store.jobs_dir / f"{sid}.input.jsonl"
    delivery, lines, count, size = MediaDelivery(client), JsonlLines(client.genai()._api_client), 0, 0
    inline: list[Any] | None = [] if options.source in ("auto", "inline") else None
    keys = tqdm(store.keys_of(sid), total=submission["count"], desc="building requests", unit="req",
                disable=not options.progress, leave=False)
    with open(path, "w", encoding="utf-8") as out, atomic_path(store.jobs_dir / f"{sid}.keys") as sent_path, \
            open(sent_path, "w", encoding="ascii") as sent:
        for key in keys:
            record = store.read_planned(key)
            if record is None or record.get("submission") != sid:
                continue
            try:
                request, settings = rebuild(record, client.settings)
                item = inlined_request(record, delivery.deliver(request), settings)
            except ItemProblem as problem:
                if problem.stale:
                    store.remove_planned(key)
                    log(f"dropped a planned {record.get('kind')} request ({key[:16]}…): {problem}; "
                        "the next eval in plan mode plans what it needs now")
                else:
                    store.write_planned(released(record, sid, f"not sent: {problem}"))
                continue
            line = lines.line(record, item)
            out.write(line + "\n")
            sent.write(key + "\n")
            count, size = count + 1, size + len(line) + 1
            if inline is not None and options.source == "auto" and (
                    count > options.inline_max_requests or size > options.inline_max_bytes):
                inline = None
            if inline is not None:
                inline.append(item)
    return path, inline, count


def _upload_input(client: JudgeClient, path: os.PathLike[str], display_name: str) -> str:
    """Upload a batch input file through the Files API; its name (``files/…``)."""
    upload = lambda _t: client.genai().files.upload(  # noqa: E731
        file=str(path), config={"mime_type": "application/jsonl", "display_name": display_name})
    try:
        file, _ = call(upload, client.settings.retry, client.classify)
    except GaveUp as gave_up:
        raise JudgeError(f"uploading the batch input file failed: {gave_up}", kind="api_error") from None
    return str(file.name)


def _create(client: JudgeClient, model: str, src: Any, display_name: str) -> Any:
    """``batches.create``, retried on 429/5xx but never after a timeout (the job may exist)."""

    def classify(exc: BaseException) -> Problem:
        problem = client.classify(exc)
        return Problem(False, problem.text, timed_out=True) if problem.timed_out else problem

    create = lambda _t: client.genai().batches.create(model=model, src=src, config={"display_name": display_name})  # noqa: E731
    try:
        return call(create, client.settings.retry, classify)[0]
    except GaveUp as gave_up:
        hint = " (it may exist: the next `reeljudge batch submit` looks for it first)" if gave_up.problem.timed_out else ""
        raise JudgeError(f"creating the batch job failed: {gave_up}{hint}", kind="api_error") from None


def _find_job(client: JudgeClient, display_name: str) -> Any:
    """The job with ``display_name`` among the account's batch jobs, or None."""
    try:
        jobs = call(lambda _t: list(client.genai().batches.list(config={"page_size": 100})),
                    client.settings.retry, client.classify)[0]
    except GaveUp as gave_up:
        raise JudgeError(f"listing batch jobs failed: {gave_up}", kind="api_error") from None
    return next((j for j in jobs if getattr(j, "display_name", None) == display_name), None)


def _record_job(store: BatchStore, submission: dict[str, Any], job: Any) -> dict[str, Any]:
    record = {**submission, "job": job.name, "state": job_state(job), "submitted": time.time()}
    store.write_submission(record)
    return record


def job_state(job: Any) -> str:
    """A job's state name (``JOB_STATE_…``)."""
    state = getattr(job, "state", None)
    return str(getattr(state, "name", state) or "JOB_STATE_UNSPECIFIED")
