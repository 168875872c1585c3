"""The Gemini Batch API (Developer API) for the fake server: create, get, list, cancel, delete.

Wire forms, as google-genai 3.4 sends and reads them (``google/genai/batches.py``):

- ``POST /{v}/models/{m}:batchGenerateContent`` with ``{"batch": {"displayName", "inputConfig":
  {"requests": {"requests": [{"request": GenerateContentRequest, "metadata": {...}}]}}}}`` (inline)
  or ``{"inputConfig": {"fileName": "files/…"}}`` (an uploaded JSONL file of
  ``{"key", "request"}`` lines); the answer is an operation-like record ``{"name": "batches/…",
  "metadata": {"model", "displayName", "state": "BATCH_STATE_…", "createTime", …}, "done"}``
  (the SDK maps ``BATCH_STATE_X`` to ``JOB_STATE_X``);
- ``GET /{v}/batches/{id}``; when done and succeeded, ``metadata.output`` holds
  ``{"inlinedResponses": {"inlinedResponses": [{"response" | "error", "metadata"}]}}`` or
  ``{"responsesFile": "files/…"}``, a JSONL file of ``{"key", "response" | "error"}`` lines that
  ``GET /{v}/files/{id}:download?alt=media`` returns;
- ``GET /{v}/batches?pageSize&pageToken`` → ``{"operations": [...], "nextPageToken"}``;
- ``POST /{v}/batches/{id}:cancel`` and ``DELETE /{v}/batches/{id}``.

Every item is answered by the fake's ordinary rules (the same matching as ``generateContent``);
an error reply becomes that item's ``error``. A job is scripted with :class:`BatchScript`.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from support.fake_gemini import FakeGemini

STATES = ("PENDING", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED", "EXPIRED")
_BATCH_GET = re.compile(r"^/[^/]+/batches/([^/:]+)$")
_BATCH_CANCEL = re.compile(r"^/[^/]+/batches/([^/:]+):cancel$")
_BATCH_LIST = re.compile(r"^/[^/]+/batches$")


@dataclass
class BatchScript:
    """How one created job plays out (jobs take scripts in order, then the default).

    ``final``: the state it ends in (SUCCEEDED, FAILED, CANCELLED, EXPIRED; or RUNNING: never ends).
    ``polls_before_done``: gets answered PENDING/RUNNING before the final state.
    ``item_errors``: request index → an ``error_reply`` for that item, whatever the rules say.
    ``extra_results``: raw result entries appended to the output (e.g. a key nobody sent).
    ``drop``: request indexes that get no result at all.
    ``create_error``: an ``error_reply`` answered to the create call (no job is made).
    """

    final: str = "SUCCEEDED"
    polls_before_done: int = 1
    item_errors: dict[int, dict[str, Any]] = field(default_factory=dict)
    extra_results: list[dict[str, Any]] = field(default_factory=list)
    drop: set[int] = field(default_factory=set)
    create_error: dict[str, Any] | None = None


@dataclass
class FakeJob:
    """One batch job the fake holds."""

    id: str
    model: str
    display_name: str
    source: str  # "inline" | "file"
    requests: list[dict[str, Any]]  # [{"key", "request", "metadata"}]
    script: BatchScript
    gets: int = 0
    state: str = "PENDING"
    output: dict[str, Any] | None = None


class FakeBatches:
    """The batch jobs of one fake server and the routes that serve them."""

    def __init__(self, fake: "FakeGemini") -> None:
        self.fake = fake
        self.jobs: dict[str, FakeJob] = {}
        self.scripts: list[BatchScript] = []
        self._lock = threading.Lock()

    def script(self, final: str = "SUCCEEDED", **kwargs: Any) -> BatchScript:
        """Script the next created job."""
        if final not in STATES:
            raise ValueError(f"final state must be one of {STATES}")
        script = BatchScript(final, **kwargs)
        with self._lock:
            self.scripts.append(script)
        return script

    def creates(self) -> list[Any]:
        """The recorded create requests."""
        return [r for r in self.fake.requests if r.path.endswith(":batchGenerateContent")]

    # routes (return True when handled)
    def post(self, handler: Any, path: str, body: dict[str, Any]) -> bool:
        match = re.search(r"models/([^/:]+):batchGenerateContent$", path)
        if match:
            self.fake._record("POST", path, dict(handler.headers), body)
            self._create(handler, match.group(1), body)
            return True
        cancel = _BATCH_CANCEL.match(path)
        if cancel:
            self.fake._record("POST", path, dict(handler.headers), body)
            job = self.jobs.get(cancel.group(1))
            if job is None:
                handler._error(404, f"fake gemini: batches/{cancel.group(1)} not found")
            else:
                if job.state in ("PENDING", "RUNNING"):
                    job.state = "CANCELLED"
                handler._send(200, {})
            return True
        return False

    def get(self, handler: Any, path: str, query: str) -> bool:
        if _BATCH_LIST.match(path):
            self._list(handler, query)
            return True
        match = _BATCH_GET.match(path)
        if not match:
            return False
        job = self.jobs.get(match.group(1))
        if job is None:
            handler._error(404, f"fake gemini: batches/{match.group(1)} not found")
            return True
        self._advance(job)
        handler._send(200, self._job_json(job))
        return True

    def delete(self, handler: Any, path: str) -> bool:
        match = _BATCH_GET.match(path)
        if not match:
            return False
        self.fake._record("DELETE", path, dict(handler.headers), None)
        if self.jobs.pop(match.group(1), None) is None:
            handler._error(404, f"fake gemini: batches/{match.group(1)} not found")
        else:
            handler._send(200, {})
        return True

    # behaviour
    def _create(self, handler: Any, model: str, body: dict[str, Any]) -> None:
        with self._lock:
            script = self.scripts.pop(0) if self.scripts else BatchScript()
        if script.create_error is not None:
            return handler._error(script.create_error["code"], script.create_error["message"])
        batch = body.get("batch") or {}
        config = batch.get("inputConfig") or batch.get("input_config") or {}
        try:
            source, requests = self._requests(config)
        except ValueError as error:
            return handler._error(400, f"fake gemini: {error}")
        job_id = f"batch{next(self.fake._ids)}"
        job = FakeJob(job_id, model, batch.get("displayName") or batch.get("display_name") or "", source, requests, script)
        self.jobs[job_id] = job
        handler._send(200, self._job_json(job))

    def _requests(self, config: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
        """(source, [{"key", "request", "metadata"}]) from an inputConfig; ValueError when malformed."""
        if "requests" in config:
            items = (config["requests"] or {}).get("requests")
            if not isinstance(items, list) or not items:
                raise ValueError("inputConfig.requests.requests must be a non-empty list")
            out = []
            for n, item in enumerate(items):
                if not isinstance(item.get("request"), dict) or not isinstance(item["request"].get("contents"), list):
                    raise ValueError(f"inline request {n} has no request.contents")
                out.append({"key": (item.get("metadata") or {}).get("key"), "request": item["request"],
                            "metadata": item.get("metadata")})
            return "inline", out
        name = config.get("fileName") or config.get("file_name")
        if not name:
            raise ValueError("inputConfig needs requests or fileName")
        stored = self.fake.files.get(str(name).rsplit("/", 1)[-1])
        if stored is None:
            raise ValueError(f"input file {name} not found")
        out = []
        for n, line in enumerate(stored.data.decode("utf-8").splitlines()):
            if not line.strip():
                continue
            item = json.loads(line)
            if not isinstance(item.get("key"), str) or not isinstance((item.get("request") or {}).get("contents"), list):
                raise ValueError(f"input file line {n + 1} needs a string key and request.contents")
            out.append({"key": item["key"], "request": item["request"], "metadata": None})
        return "file", out

    def _advance(self, job: FakeJob) -> None:
        if job.state in ("SUCCEEDED", "FAILED", "CANCELLED", "EXPIRED"):
            return
        job.gets += 1
        if job.gets <= job.script.polls_before_done or job.script.final == "RUNNING":
            job.state = "RUNNING"
            return
        job.state = job.script.final
        if job.state == "SUCCEEDED":
            job.output = self._output(job)

    def _output(self, job: FakeJob) -> dict[str, Any]:
        results = []
        for n, item in enumerate(job.requests):
            if n in job.script.drop:
                continue
            results.append({**self._answer(job, n, item), "key": item["key"], "metadata": item["metadata"]})
        results += job.script.extra_results
        if job.source == "inline":
            inline = [{k: v for k, v in r.items() if k in ("response", "error", "metadata") and v is not None} for r in results]
            return {"inlinedResponses": {"inlinedResponses": inline}}
        from support.fake_gemini import FakeFile

        lines = [json.dumps({k: v for k, v in r.items() if k in ("key", "response", "error") and v is not None}) for r in results]
        file_id = f"batchout{job.id}"
        self.fake.files[file_id] = FakeFile(name=f"files/{file_id}", mime_type="application/jsonl",
                                            display_name=f"{job.display_name}-results", data="\n".join(lines).encode() + b"\n")
        return {"responsesFile": f"files/{file_id}"}

    def _answer(self, job: FakeJob, index: int, item: dict[str, Any]) -> dict[str, Any]:
        from support.fake_gemini import candidate_json, request_text

        reply = job.script.item_errors.get(index) or self.fake._reply_for(item["request"], request_text(item["request"]))
        if reply["kind"] == "unanswered":  # a batch has no per-request timeout: the service reports the request's end
            return {"error": {"code": 504, "message": "fake gemini: the request was never answered"}}
        if reply["kind"] == "error":
            return {"error": {"code": reply["code"], "message": reply["message"]}}
        if reply["kind"] == "blocked":
            return {"response": {"promptFeedback": {"blockReason": reply["reason"]}, "usageMetadata": {"promptTokenCount": 50}}}
        if reply["kind"] == "empty":
            return {"response": {"candidates": [], "usageMetadata": {"promptTokenCount": 50}}}
        return {"response": candidate_json(reply, job.model)}

    def _job_json(self, job: FakeJob) -> dict[str, Any]:
        metadata: dict[str, Any] = {
            "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatch",
            "name": f"batches/{job.id}", "model": f"models/{job.model}", "displayName": job.display_name,
            "state": f"BATCH_STATE_{job.state}", "createTime": "2026-01-01T00:00:00Z", "updateTime": "2026-01-01T00:00:01Z",
            "batchStats": {"requestCount": str(len(job.requests))},
        }
        done = job.state in ("SUCCEEDED", "FAILED", "CANCELLED", "EXPIRED")
        if done:
            metadata["endTime"] = "2026-01-01T00:00:02Z"
        if job.output is not None:
            metadata["output"] = job.output
        return {"name": f"batches/{job.id}", "metadata": metadata, "done": done}

    def _list(self, handler: Any, query: str) -> None:
        params = dict(p.split("=", 1) for p in query.split("&") if "=" in p)
        size = int(params.get("pageSize") or 50)
        start = int(params.get("pageToken") or 0)
        jobs = list(self.jobs.values())[start:start + size]
        payload: dict[str, Any] = {"operations": [self._job_json(j) for j in jobs]}
        if start + size < len(self.jobs):
            payload["nextPageToken"] = str(start + size)
        handler._send(200, payload)
