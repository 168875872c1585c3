"""Waiting for batch jobs and collecting their results into the judge cache.

Each result is read exactly like an online reply: ``wire.checked_reply`` (blocked, cut off, refused,
empty), then the request's own reply parser, rebuilt from the plan (``gemini.parsers``). Then:

- a usable reply is written to the judge cache under the request's key (the entry an online call
  writes, usage priced at the batch rate) and the planned request is removed;
- a reply the parser refuses is fed back once, as online: the planned request gets a second turn
  (the reply and the objection) and goes out with the next submit; refused again, it fails;
- an item error, a refused or blocked reply, or a job that ended FAILED, CANCELLED or EXPIRED
  leaves the request planned with the reason: listed, and sent again by the next submit;
- a result whose key this submission did not send is reported and never written.

Results stream one at a time (a results file is downloaded to disk and read line by line), and
every item's outcome is written as it is read, so an interrupted collect resumes where it stopped
and a second collect of the same job changes nothing. Cache entries are synced to disk in bulk
(every ``SYNC_EVERY`` replies) before their planned requests are removed: a power loss can cost a
reply that was already paid for, never leave a request neither cached nor planned.
"""

from __future__ import annotations

import json
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from reeljudge.atomic import sync_all
from reeljudge.batch.store import FINAL_STATES, BatchStore, released
from reeljudge.batch.submit import job_state
from reeljudge.cache import JudgeCache
from reeljudge.errors import JudgeError
from reeljudge.gemini import wire
from reeljudge.gemini.client import JudgeClient, reply_entry
from reeljudge.gemini.request import Usage
from reeljudge.gemini.parsers import NamedParser, rebuild
from reeljudge.gemini.pricing import estimate_cost
from reeljudge.gemini.replies import ReplyInvalid
from reeljudge.retry import GaveUp, deadline_in, poll

SUCCEEDED = frozenset({"JOB_STATE_SUCCEEDED", "JOB_STATE_PARTIALLY_SUCCEEDED"})
SYNC_EVERY = 500  # cache entries written between two syncs (a planned request goes only once its reply is on disk)


@dataclass
class Outcome:
    """What one collect did."""

    submission: str
    job: str
    state: str
    collected: int = 0
    fed_back: int = 0
    failed: list[tuple[str, str, str]] = field(default_factory=list)  # (key, kind, reason)
    unknown: list[str] = field(default_factory=list)
    already: int = 0
    missing: int = 0
    usage: Usage = field(default_factory=Usage)
    online_cost_usd: float | None = 0.0
    was_collected: bool = False

    @property
    def finished(self) -> bool:
        """Whether the job reached a final state."""
        return self.state in FINAL_STATES


def wait(client: JudgeClient, submission: dict[str, Any], *, interval_s: float, deadline_s: float,
         progress: bool = True) -> Any:
    """The job once it reaches a final state; JudgeError when polling gives up or the deadline passes."""
    from tqdm import tqdm

    bar = tqdm(desc=f"{submission['job']}", bar_format="{desc}: {postfix} [{elapsed}]", disable=not progress, leave=False)

    def fetch(_timeout: float) -> Any:
        job = client.genai().batches.get(name=submission["job"])
        bar.set_postfix_str(job_state(job))
        return job

    try:
        job, _ = poll(fetch, lambda j: job_state(j) in FINAL_STATES, client.settings.retry, client.classify,
                      interval_s=interval_s, deadline=deadline_in(deadline_s))
    except GaveUp as gave_up:
        raise JudgeError(f"waiting for {submission['job']}: {gave_up}", kind="timeout" if gave_up.problem.timed_out
                         else "api_error") from None
    finally:
        bar.close()
    return job


def collect(client: JudgeClient, submission: dict[str, Any], job: Any, *, progress: bool = True) -> Outcome:
    """Stream a finished job's results into the cache (see the module doc); what happened."""
    store = BatchStore(client.settings.cache_dir)
    sid, state = submission["id"], job_state(job)
    outcome = Outcome(sid, submission["job"], state)
    if submission.get("collected"):
        outcome.was_collected = True
        return outcome
    if state not in FINAL_STATES:
        return outcome
    if state in SUCCEEDED:
        _read_results(client, store, submission, job, outcome, progress)
    for key in store.keys_of(sid):  # anything still out: the job ended without it, or with no result for it
        record = store.read_planned(key)
        if record is not None and record.get("submission") == sid:
            why = f"the batch job ended {state}" if state not in SUCCEEDED else "the batch job returned no result for it"
            store.write_planned(released(record, sid, why))
            outcome.failed.append((key, record.get("kind", "?"), why))
            outcome.missing += state in SUCCEEDED
    store.write_submission({**submission, "state": state, "collected": True, "collected_at": time.time(),
                            "counts": {"collected": outcome.collected, "fed_back": outcome.fed_back,
                                       "failed": len(outcome.failed), "unknown": len(outcome.unknown)}})
    return outcome


def _read_results(client: JudgeClient, store: BatchStore, submission: dict[str, Any], job: Any, outcome: Outcome,
                  progress: bool) -> None:
    from tqdm import tqdm

    cache = JudgeCache(client.settings.cache_dir, "readwrite")
    parsers: dict[str, NamedParser] = {}
    written: list[str] = []  # cached replies whose planned requests go once the cache is synced
    with tqdm(total=submission.get("count"), desc="collecting", unit="reply", disable=not progress, leave=False) as bar:
        for key, response, error in _results(client, store, submission, job):
            if _one(store, cache, parsers, submission, key, response, error, outcome):
                written.append(key)
            if len(written) >= SYNC_EVERY:
                _settle(store, written)
            bar.update(1)
    _settle(store, written)


def _settle(store: BatchStore, written: list[str]) -> None:
    """Sync the cache entries just written (one ``sync`` for many), then forget their planned requests."""
    if written:
        sync_all()
        for key in written:
            store.remove_planned(key)
        written.clear()


def _results(client: JudgeClient, store: BatchStore, submission: dict[str, Any], job: Any) -> Iterator[tuple[str, Any, Any]]:
    """(key, response object or None, error or None) for every result of the job, streamed."""
    dest = getattr(job, "dest", None)
    inlined = getattr(dest, "inlined_responses", None)
    if inlined is not None:
        keys = store.keys_of(submission["id"])
        for item in inlined:
            fallback = next(keys, None)
            key = (getattr(item, "metadata", None) or {}).get("key") or fallback or ""
            yield key, getattr(item, "response", None), getattr(item, "error", None)
        return
    name = getattr(dest, "file_name", None)
    if not name:
        raise JudgeError(f"{submission['job']} succeeded but names neither inline responses nor a results file", kind="api_error")
    with tempfile.TemporaryDirectory(prefix="reeljudge-batch-") as work:
        path = Path(work) / "results.jsonl"
        client.genai().files.download(file=name, destination=str(path))
        yield from _file_results(path)


def _file_results(path: Path) -> Iterator[tuple[str, Any, Any]]:
    from google.genai import types

    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                response = types.GenerateContentResponse.model_validate(item["response"]) if item.get("response") else None
            except (ValueError, KeyError, TypeError) as error:
                yield f"<line {number}>", None, {"message": f"unreadable results line ({error})"}
                continue
            yield str(item.get("key", "")), response, item.get("error")


def _one(store: BatchStore, cache: JudgeCache, parsers: dict[str, NamedParser], submission: dict[str, Any], key: str,
         response: Any, error: Any, outcome: Outcome) -> bool:
    """Handle one result (see the module doc); True when a reply was written to the cache."""
    sid = submission["id"]
    record = store.read_planned(key) if len(key) == 64 else None
    if record is None or record.get("submission") != sid:
        if (record is not None and record.get("last_submission") == sid) or (record is None and cache.is_cached(key)):
            outcome.already += 1
        else:
            outcome.unknown.append(key)
        return False
    if cache.is_cached(key):  # written by an interrupted collect (or meanwhile online): only the plan is left
        outcome.already += 1
        return True
    kind = record.get("kind", "?")
    try:
        if error is not None:
            raise JudgeError(f"the batch item failed: {_error_text(error)}", kind="api_error")
        if response is None:
            raise JudgeError("the batch item carries neither a response nor an error", kind="empty")
        max_tokens = int((record.get("generation") or {}).get("max_output_tokens") or 0)
        text, finish, logprobs = wire.checked_reply(response, max_tokens)
        try:
            value = _parser(parsers, record)(text)
        except ReplyInvalid as invalid:
            _fed_back_or_failed(store, record, sid, text, invalid, outcome)
            return False
    except (JudgeError, ValueError) as problem:
        reason = f"{getattr(problem, 'kind', 'error')}: {problem}"
        store.write_planned(released(record, sid, reason))
        outcome.failed.append((key, kind, reason))
        return False
    usage = wire.usage_of(response, record["model"], batch=True)
    entry = reply_entry(record["model"], text, value, finish, usage, logprobs, via="batch", job=submission["job"])
    cache.put(key, kind, entry, sync=False)
    outcome.collected += 1
    outcome.usage = outcome.usage + usage
    online = estimate_cost(record["model"], usage.prompt_tokens, usage.output_tokens)
    outcome.online_cost_usd = None if online is None or outcome.online_cost_usd is None else outcome.online_cost_usd + online
    return True


def _parser(parsers: dict[str, NamedParser], record: dict[str, Any]) -> NamedParser:
    identity = record.get("parser") or {}
    token = json.dumps(identity, sort_keys=True)
    if token not in parsers:
        parsers[token] = rebuild(identity)
    return parsers[token]


def _fed_back_or_failed(store: BatchStore, record: dict[str, Any], sid: str, text: str, invalid: ReplyInvalid,
                        outcome: Outcome) -> None:
    """An unusable reply: a second turn with the objection (as online), or a failure the second time."""
    if not record.get("turns"):
        turns = [{"role": "model", "text": text}, {"role": "user", "text": wire.feedback_text(str(invalid))}]
        store.write_planned({**record, "turns": turns, "submission": None, "last_submission": sid})
        outcome.fed_back += 1
        return
    reason = f"{invalid.kind}: the judge's reply could not be used twice (second time: {invalid})"
    store.write_planned({**released(record, sid, reason), "turns": []})
    outcome.failed.append((record["key"], record.get("kind", "?"), reason))


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        return f"{error.get('code', '?')} {error.get('message', '')}".strip()
    return f"{getattr(error, 'code', '?')} {getattr(error, 'message', '') or error}".strip()


def report(outcome: Outcome, log: Callable[[str], None] = print, limit: int = 20) -> None:
    """Say what a collect did: counts, cost at batch and online prices, failed items and unknown keys."""
    if outcome.was_collected:
        log(f"{outcome.job}: already collected (submission {outcome.submission}); nothing to do")
        return
    if not outcome.finished:
        log(f"{outcome.job}: {outcome.state}, not finished yet; run `reeljudge batch wait` or collect again later")
        return
    cost = "unknown" if outcome.usage.cost_usd is None else f"${outcome.usage.cost_usd:.4f}"
    online = "unknown" if outcome.online_cost_usd is None else f"${outcome.online_cost_usd:.4f}"
    log(f"{outcome.job} {outcome.state}: {outcome.collected} replies cached, {outcome.fed_back} fed back for a second "
        f"turn, {len(outcome.failed)} failed (left planned), {len(outcome.unknown)} unknown key(s); "
        f"estimated cost {cost} at batch prices ({online} online)")
    for key, kind, reason in outcome.failed[:limit]:
        log(f"  failed {kind} {key[:16]}…: {reason}")
    if len(outcome.failed) > limit:
        log(f"  … {len(outcome.failed) - limit} more failed; `reeljudge batch status --failed` lists them")
    for key in outcome.unknown[:limit]:
        log(f"  result for unknown key {key[:70]!r}: not part of this submission, not written")
