"""A wire-level fake of the Gemini API on 127.0.0.1, so the real google-genai client runs unchanged.

Speaks SPEC §4's endpoints: ``models/{m}:generateContent`` and ``:countTokens`` (Developer API and
Vertex paths), the Files API resumable upload (``/upload/{v}/files`` then the session URL it hands
out) and ``files/{id}`` with PROCESSING → ACTIVE / FAILED, and Veo-style long-running operations
(``:predictLongRunning``, then ``GET operations/{id}`` and ``GET files/{id}:download?alt=media`` on the
Developer API, the download URI on the host a forwarding proxy names in ``X-Forwarded-Host`` (see
``tests/support/google_proxy.py``), ``:fetchPredictOperation`` with inline base64 video on Vertex), scripted per operation
with ``script_operation``, and the Batch API (``:batchGenerateContent``, ``batches/{id}`` get, list,
cancel, delete; inline and file input and output; scripted per job with ``fake.batches.script``:
see ``tests/support/fake_batches.py``). Replies are scripted per test: rules match a
substring of the request's text (or a predicate) and play their replies in order, the last one
repeating. Faults are replies too: HTTP errors, requests never answered (the client's timeout fires,
however slow or fast the machine), blocked prompts, SAFETY and MAX_TOKENS finishes, damaged JSON.

Use in tests::

    with FakeGemini() as fake:
        fake.on("Grade these search terms", json_reply({...}))
        client = genai.Client(api_key="test", http_options={"base_url": fake.url})

Or from a shell: ``PYTHONPATH=tests python -m support.fake_gemini --port 8765 --script script.json`` (from the repository root).
"""

from __future__ import annotations

import argparse
import base64
import functools
import itertools
import json
import re
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, Callable

from support.fake_batches import FakeBatches
from support.local_server import LocalServer

Reply = dict[str, Any]
#: a rule's test of a request from its body and its text (:meth:`FakeGemini.on` also takes a substring, or None: any)
MatchFunction = Callable[[dict[str, Any], str], bool]
Matcher = str | MatchFunction | None

STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    408: "DEADLINE_EXCEEDED",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    502: "BAD_GATEWAY",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


# ---- reply constructors -------------------------------------------------------------------------


def text_reply(
    text: str, *, finish: str = "STOP", prompt_tokens: int = 120, output_tokens: int = 40, logprobs: Any = None
) -> Reply:
    """A candidate carrying ``text`` with the given finish reason and token counts."""
    return {
        "kind": "text",
        "text": text,
        "finish": finish,
        "usage": (prompt_tokens, output_tokens),
        "logprobs": logprobs,
    }


def json_reply(value: Any, **kwargs: Any) -> Reply:
    """A candidate whose text is ``value`` as JSON."""
    return text_reply(json.dumps(value), **kwargs)


def error_reply(code: int, message: str | None = None, *, retry_delay_s: float | None = None) -> Reply:
    """An HTTP error in Google's ``{"error": {code, message, status}}`` form."""
    return {"kind": "error", "code": code, "message": message or f"fake {code}", "retry_delay_s": retry_delay_s}


def unanswered_reply() -> Reply:
    """No answer: the request is held until the client hangs up (its per-attempt timeout fired), so the
    timeout fires whatever the timeout and however loaded the machine (a reply that is merely late
    would race it). Held at most ``UNANSWERED_HOLD_S``."""
    return {"kind": "unanswered"}


#: the longest an unanswered request is held (a bound for a client that never hangs up)
UNANSWERED_HOLD_S = 120.0


def blocked_reply(reason: str = "PROHIBITED_CONTENT") -> Reply:
    """A prompt blocked before generation: promptFeedback.blockReason and no candidates."""
    return {"kind": "blocked", "reason": reason}


def finish_reply(reason: str, text: str = "") -> Reply:
    """A candidate stopped for ``reason`` (SAFETY, RECITATION, …) with optional partial text."""
    return text_reply(text, finish=reason)


def truncated_reply(value: Any) -> Reply:
    """A MAX_TOKENS finish whose text is the first half of ``value`` as JSON."""
    full = json.dumps(value)
    return text_reply(full[: max(1, len(full) // 2)], finish="MAX_TOKENS")


def no_candidates_reply() -> Reply:
    """A 200 reply with no candidates and no block reason."""
    return {"kind": "empty"}


@functools.lru_cache(maxsize=1)
def tiny_mp4() -> bytes:
    """A real, decodable one-second 128x72 H.264 MP4, rendered by the fixture clip generator."""
    try:
        from reeljudge.synth.clips import ClipSpec, make_clip
    except ImportError:  # run as a script from elsewhere
        sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
        from reeljudge.synth.clips import ClipSpec, make_clip
    with tempfile.TemporaryDirectory(prefix="fake-gemini-") as work:
        path = make_clip(f"{work}/tiny.mp4", ClipSpec(width=128, height=72, fps=24, frames=24, seed=3))
        return path.read_bytes()


OperationOutcome = str  # "video" | "error" | "filtered" | "empty" | "never"


@dataclass
class OperationScript:
    """How one video operation plays out; started operations take scripts in order, then the default.

    ``start_error``: an ``error_reply`` answered to ``:predictLongRunning`` (no operation is made).
    ``poll_errors``: error replies answered to the first polls, before the operation's own answers.
    ``outcome``: ``video`` (done with one sample), ``error`` (done with ``error``), ``filtered`` (done,
    no samples, RAI filter count and reasons), ``empty`` (done, no samples, no reason), ``never`` (not done).
    ``download_error``: an ``error_reply`` answered to the video download.
    """

    outcome: OperationOutcome = "video"
    polls_before_done: int | None = None
    start_error: Reply | None = None
    poll_errors: list[Reply] = field(default_factory=list)
    error: dict[str, Any] = field(default_factory=lambda: {"code": 3, "message": "fake gemini: the prompt could not be rendered"})
    filtered_reasons: list[str] = field(
        default_factory=lambda: ["Video generation failed because the prompt violates the usage guidelines (fake)."]
    )
    download_error: Reply | None = None


# ---- the server ----------------------------------------------------------------------------------


@dataclass
class Rule:
    """Replies for requests that match: played in order, the last repeats (``times`` caps uses)."""

    match: Matcher
    replies: list[Reply]
    times: int | None = None
    used: int = 0

    def matches(self, body: dict[str, Any], text: str) -> bool:
        """Whether this rule applies to a request (and still has uses left)."""
        if self.times is not None and self.used >= self.times:
            return False
        if self.match is None:
            return True
        if isinstance(self.match, str):
            return self.match in text
        return bool(self.match(body, text))

    def next_reply(self) -> Reply:
        """The reply for this use."""
        reply = self.replies[min(self.used, len(self.replies) - 1)]
        self.used += 1
        return reply


@dataclass
class RecordedRequest:
    """One request the fake received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    text: str = ""


@dataclass
class FakeFile:
    """An uploaded file and the states it will report on ``files.get``."""

    name: str
    mime_type: str
    display_name: str
    data: bytes = b""
    states: list[str] = field(default_factory=lambda: ["ACTIVE"])
    gets: int = 0
    expiration_time: str = "2099-01-01T00:00:00Z"


class FakeGemini(LocalServer):
    """The fake server; start with ``with FakeGemini() as fake`` or ``start()``/``stop()``."""

    def __init__(self, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.rules: list[Rule] = []
        self.requests: list[RecordedRequest] = []
        self.files: dict[str, FakeFile] = {}
        self.operations: dict[str, dict[str, Any]] = {}
        self.file_states: list[str] = ["PROCESSING", "ACTIVE"]
        self.file_errors: list[Reply] = []  # error replies played, in order, on the next Files API requests
        self.file_expiration: str = "2099-01-01T00:00:00Z"  # expirationTime given to new uploads
        self.operation_polls_before_done: int = 1
        self.operation_scripts: list[OperationScript] = []
        self.video_bytes: bytes | None = None  # None: tiny_mp4(), a real decodable clip
        self.batches = FakeBatches(self)  # the Batch API (tests/support/fake_batches.py)
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._sessions: dict[str, dict[str, Any]] = {}
        self._listen(_make_handler(self), name="fake-gemini", host=host, port=port)  # url: the base URL for google-genai

    # scripting
    def on(self, match: Matcher, *replies: Reply, times: int | None = None) -> Rule:
        """Answer requests matching ``match`` (substring of their text, predicate, or None for any)."""
        if not replies:
            raise ValueError("a rule needs at least one reply")
        rule = Rule(match, list(replies), times)
        with self._lock:
            self.rules.append(rule)
        return rule

    def script_operation(self, outcome: OperationOutcome = "video", **kwargs: Any) -> OperationScript:
        """Script the next started video operation (see ``OperationScript``)."""
        script = OperationScript(outcome, **kwargs)
        with self._lock:
            self.operation_scripts.append(script)
        return script

    def reset(self) -> None:
        """Forget rules, requests, files and operations."""
        with self._lock:
            self.rules.clear()
            self.requests.clear()
            self.files.clear()
            self.operations.clear()
            self.operation_scripts.clear()
        self.batches = FakeBatches(self)

    def operation_requests(self) -> dict[str, list[RecordedRequest]]:
        """The video-operation traffic: ``start``, ``poll`` and ``download`` requests, in order."""
        out: dict[str, list[RecordedRequest]] = {"start": [], "poll": [], "download": []}
        for r in self.requests:
            if r.path.endswith(":predictLongRunning"):
                out["start"].append(r)
            elif r.path.endswith(":fetchPredictOperation") or _OPERATION_GET.search(r.path):
                out["poll"].append(r)
            elif r.path.endswith(":download") or r.path.startswith("/download/"):
                out["download"].append(r)
        return out

    def _next_script(self) -> OperationScript:
        with self._lock:
            return self.operation_scripts.pop(0) if self.operation_scripts else OperationScript()

    def expire_file(self, name: str) -> None:
        """Forget an uploaded file (``files/<id>`` or ``<id>``), as the Files API does after 48 h: gets answer 404."""
        with self._lock:
            self.files.pop(name.rsplit("/", 1)[-1], None)

    def uploads(self) -> list[RecordedRequest]:
        """The finished uploads (one per file created)."""
        return [r for r in self.requests if r.path.startswith("/upload/files:finalize/")]

    def calls(self, action: str = "generateContent") -> list[RecordedRequest]:
        """The recorded requests for one model action (``generateContent``, ``countTokens``…)."""
        return [r for r in self.requests if r.path.endswith(f":{action}")]

    # request handling (called from handler threads)
    def _record(self, method: str, path: str, headers: dict[str, str], body: Any) -> RecordedRequest:
        request = RecordedRequest(method, path, headers, body, request_text(body) if isinstance(body, dict) else "")
        with self._lock:
            self.requests.append(request)
        return request

    def _reply_for(self, body: dict[str, Any], text: str) -> Reply:
        with self._lock:
            for rule in self.rules:
                if rule.matches(body, text):
                    return rule.next_reply()
        return error_reply(400, "fake gemini: no scripted reply matches this request")


def request_text(body: dict[str, Any]) -> str:
    """The text parts of a generateContent body's contents (not its system instruction), joined."""
    chunks: list[str] = []
    for content in list(body.get("contents") or []):
        if isinstance(content, str):
            chunks.append(content)
            continue
        for part in content.get("parts") or []:
            if isinstance(part, dict) and part.get("text"):
                chunks.append(part["text"])
    return "\n".join(chunks)


def system_text(body: dict[str, Any]) -> str:
    """The text of a generateContent body's system instruction."""
    system = body.get("systemInstruction") or body.get("system_instruction") or {}
    if isinstance(system, str):
        return system
    return "\n".join(p.get("text", "") for p in system.get("parts") or [] if isinstance(p, dict))


def candidate_json(reply: Reply, model: str) -> dict[str, Any]:
    """The camelCase generateContent response for a text reply."""
    prompt_tokens, output_tokens = reply["usage"]
    candidate: dict[str, Any] = {
        "content": {"role": "model", "parts": [{"text": reply["text"]}] if reply["text"] else []},
        "finishReason": reply["finish"],
        "index": 0,
    }
    if reply.get("logprobs") is not None:
        candidate["logprobsResult"] = reply["logprobs"]
    return {
        "candidates": [candidate],
        "usageMetadata": {
            "promptTokenCount": prompt_tokens,
            "candidatesTokenCount": output_tokens,
            "totalTokenCount": prompt_tokens + output_tokens,
        },
        "modelVersion": model,
    }


_MODEL_ACTION = re.compile(r"models/([^/:]+):(\w+)$")
_FILE_GET = re.compile(r"^/[^/]+/files/([^/:]+)$")
_OPERATION_GET = re.compile(r"/operations/([^/:]+)$")
_FILE_DOWNLOAD = re.compile(r"^/[^/]+/files/([^/:]+):download$")


def _make_handler(fake: FakeGemini) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # keep test output clean
            pass

        # plumbing
        def _body_bytes(self) -> bytes:
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else b""

        def _send(self, code: int, payload: Any, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode() if payload is not None else b""
            try:
                self.send_response(code)
                self.send_header("Content-Type", "application/json; charset=UTF-8")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout tests)

        def _hold_until_hung_up(self) -> None:
            """Answer nothing: wait until the client closes the connection (or UNANSWERED_HOLD_S pass)."""
            self.close_connection = True
            self.connection.settimeout(UNANSWERED_HOLD_S)
            try:
                while self.connection.recv(65536):
                    pass
            except OSError:
                pass  # reset by the client, or held long enough

        def _error(self, code: int, message: str, retry_delay_s: float | None = None) -> None:
            error: dict[str, Any] = {"code": code, "message": message, "status": STATUS_NAMES.get(code, "UNKNOWN")}
            if retry_delay_s is not None:
                error["details"] = [
                    {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{retry_delay_s:g}s"}
                ]
            self._send(code, {"error": error})

        # routes
        def do_POST(self) -> None:  # noqa: N802 - http.server naming
            raw = self._body_bytes()
            path = self.path.split("?", 1)[0]
            if path.startswith("/upload/") and path.endswith("/files"):
                return self._upload_start(raw)
            if path.startswith("/upload-session/"):
                return self._upload_chunk(path.rsplit("/", 1)[-1], raw)
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                return self._error(400, "fake gemini: body is not JSON")
            if fake.batches.post(self, path, body):
                return None
            match = _MODEL_ACTION.search(path)
            if not match:
                return self._error(404, f"fake gemini: no route for POST {path}")
            model, action = match.groups()
            request = fake._record("POST", path, dict(self.headers), body)
            if action == "countTokens":
                return self._send(200, {"totalTokens": max(1, len(request.text) // 4)})
            if action == "predictLongRunning":
                return self._start_operation(model, path, body)
            if action == "fetchPredictOperation":
                name = str(body.get("operationName") or body.get("operation_name") or "")
                return self._operation_poll(name.rsplit("/operations/", 1)[-1], vertex=True)
            if action != "generateContent":
                return self._error(404, f"fake gemini: action {action} not supported")
            self._play(fake._reply_for(body, request.text), model)

        def do_GET(self) -> None:  # noqa: N802
            path, _, query = self.path.partition("?")
            fake._record("GET", path, dict(self.headers), {"query": query} if query else None)
            if fake.batches.get(self, path, query):
                return None
            file_match = _FILE_GET.match(path)
            if file_match:
                return self._file_get(file_match.group(1))
            download_match = _FILE_DOWNLOAD.match(path)
            if download_match:
                if "alt=media" not in query.split("&"):
                    return self._error(400, "fake gemini: a file download needs ?alt=media")
                return self._download(download_match.group(1))
            op_match = _OPERATION_GET.search(path)
            if op_match:
                return self._operation_poll(op_match.group(1), vertex=False)
            if path.startswith("/download/"):
                return self._download(path.rsplit("/", 1)[-1].split(".", 1)[0])
            self._error(404, f"fake gemini: no route for GET {path}")

        def do_DELETE(self) -> None:  # noqa: N802
            if not fake.batches.delete(self, self.path.split("?", 1)[0]):
                self._error(404, f"fake gemini: no route for DELETE {self.path}")

        def _play(self, reply: Reply, model: str) -> None:
            kind = reply["kind"]
            if kind == "unanswered":
                return self._hold_until_hung_up()
            if kind == "error":
                return self._error(reply["code"], reply["message"], reply.get("retry_delay_s"))
            if kind == "blocked":
                return self._send(
                    200,
                    {
                        "promptFeedback": {"blockReason": reply["reason"]},
                        "usageMetadata": {"promptTokenCount": 50, "totalTokenCount": 50},
                    },
                )
            if kind == "empty":
                return self._send(200, {"candidates": [], "usageMetadata": {"promptTokenCount": 50}})
            self._send(200, candidate_json(reply, model))

        # Files API
        def _file_fault(self) -> bool:
            """Play the next scripted Files API error, if any (True when one was sent)."""
            with fake._lock:
                reply = fake.file_errors.pop(0) if fake.file_errors else None
            if reply is None:
                return False
            self._error(reply["code"], reply["message"], reply.get("retry_delay_s"))
            return True

        def _upload_start(self, raw: bytes) -> None:
            if self._file_fault():
                fake._record("POST", "/upload/files:start", dict(self.headers), {"fault": True})
                return
            meta = json.loads(raw or b"{}").get("file", {})
            session = f"s{next(fake._ids)}"
            fake._sessions[session] = {
                "meta": meta,
                "data": b"",
                "mime": self.headers.get("X-Goog-Upload-Header-Content-Type", meta.get("mimeType", "")),
            }
            fake._record("POST", "/upload/files:start", dict(self.headers), meta)
            self._send(
                200,
                {},
                {"X-Goog-Upload-URL": f"{fake.url}/upload-session/{session}", "X-Goog-Upload-Status": "active"},
            )

        def _upload_chunk(self, session_id: str, raw: bytes) -> None:
            session = fake._sessions.get(session_id)
            if session is None:
                return self._error(404, "fake gemini: unknown upload session")
            session["data"] += raw
            if "finalize" not in (self.headers.get("X-Goog-Upload-Command") or ""):
                return self._send(200, {}, {"X-Goog-Upload-Status": "active"})
            file_id = f"file-{next(fake._ids)}"
            meta = session["meta"]
            stored = FakeFile(
                name=f"files/{file_id}",
                mime_type=meta.get("mimeType") or meta.get("mime_type") or session["mime"],
                display_name=meta.get("displayName") or meta.get("display_name") or "",
                data=session["data"],
                states=list(fake.file_states),
                expiration_time=fake.file_expiration,
            )
            fake.files[file_id] = stored
            fake._record("POST", f"/upload/files:finalize/{file_id}", dict(self.headers), {"size": len(stored.data)})
            self._send(200, {"file": self._file_json(stored, 0)}, {"X-Goog-Upload-Status": "final"})

        def _file_json(self, stored: FakeFile, index: int) -> dict[str, Any]:
            state = stored.states[min(index, len(stored.states) - 1)]
            out: dict[str, Any] = {
                "name": stored.name,
                "displayName": stored.display_name,
                "mimeType": stored.mime_type,
                "sizeBytes": str(len(stored.data)),
                "state": state,
                "uri": f"{fake.url}/v1beta/{stored.name}",
                "expirationTime": stored.expiration_time,
            }
            if state == "FAILED":
                out["error"] = {"code": 400, "message": "fake gemini: file processing failed"}
            return out

        def _file_get(self, file_id: str) -> None:
            if self._file_fault():
                return None
            stored = fake.files.get(file_id)
            if stored is None:
                return self._error(404, f"fake gemini: files/{file_id} not found (expired or never uploaded)")
            stored.gets += 1
            self._send(200, self._file_json(stored, stored.gets))

        # Veo-style operations. Developer API: POST models/{m}:predictLongRunning -> {"name"}, GET
        # {name} until done, response.generateVideoResponse.generatedSamples[].video.uri naming
        # files/{id}:download?alt=media. Vertex: POST .../publishers/google/models/{m}:predictLongRunning,
        # POST ...:fetchPredictOperation {"operationName"}, response.videos[].bytesBase64Encoded.
        def _start_operation(self, model: str, path: str, body: dict[str, Any]) -> None:
            script = fake._next_script()
            if script.start_error is not None:
                reply = script.start_error
                return self._error(reply["code"], reply["message"], reply.get("retry_delay_s"))
            op_id = f"op{next(fake._ids)}"
            resource = path.split(":", 1)[0].lstrip("/").split("/", 1)[-1]  # drop the API version
            polls = fake.operation_polls_before_done if script.polls_before_done is None else script.polls_before_done
            fake.operations[op_id] = {
                "polls": 0,
                "model": model,
                "body": body,
                "name": f"{resource}/operations/{op_id}",
                "script": script,
                "polls_before_done": polls,
            }
            self._send(200, {"name": fake.operations[op_id]["name"]})

        def _operation_poll(self, op_id: str, *, vertex: bool) -> None:
            op = fake.operations.get(op_id)
            if op is None:
                return self._error(404, f"fake gemini: operation {op_id} not found")
            script: OperationScript = op["script"]
            op["polls"] += 1
            if op["polls"] <= len(script.poll_errors):
                reply = script.poll_errors[op["polls"] - 1]
                return self._error(reply["code"], reply["message"], reply.get("retry_delay_s"))
            answered = op["polls"] - len(script.poll_errors)
            name = op["name"]
            if script.outcome == "never" or answered <= op["polls_before_done"]:
                return self._send(200, {"name": name, "metadata": {"progress": "fake"}, "done": False})
            if script.outcome == "error":
                return self._send(200, {"name": name, "done": True, "error": script.error})
            samples: list[dict[str, Any]] = []
            if script.outcome == "video":
                if vertex:
                    data = base64.b64encode(fake.video_bytes or tiny_mp4()).decode("ascii")
                    samples = [{"bytesBase64Encoded": data, "mimeType": "video/mp4"}]
                else:
                    version = self.path.lstrip("/").split("/", 1)[0]
                    file_id = f"vid{op_id}"
                    uri = f"{self._public_base()}/{version}/files/{file_id}:download?alt=media"
                    op["download_error"] = script.download_error
                    samples = [{"video": {"uri": uri}}]
            result: dict[str, Any] = {}
            if samples:
                result["videos" if vertex else "generatedSamples"] = samples
            if script.outcome == "filtered":
                result["raiMediaFilteredCount"] = len(script.filtered_reasons)
                result["raiMediaFilteredReasons"] = list(script.filtered_reasons)
            if vertex:
                response = {"@type": "type.googleapis.com/cloud.ai.large_models.vision.GenerateVideoResponse", **result}
            else:
                response = {
                    "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse",
                    "generateVideoResponse": result,
                }
            self._send(200, {"name": name, "done": True, "response": response})

        def _public_base(self) -> str:
            """The base URL a client reached this server at: a forwarding proxy's (X-Forwarded-Proto/-Host), else ours."""
            forwarded = self.headers.get("X-Forwarded-Host")
            if forwarded:
                return f"{self.headers.get('X-Forwarded-Proto', 'https')}://{forwarded}"
            return fake.url

        def _download(self, file_id: str) -> None:
            op = fake.operations.get(file_id[3:]) if file_id.startswith("vid") else None
            fault = op.get("download_error") if op else None
            if fault is not None:
                return self._error(fault["code"], fault["message"])
            stored = fake.files.get(file_id) if file_id.startswith("batchout") else None
            data = stored.data if stored is not None else (fake.video_bytes or tiny_mp4())
            try:
                self.send_response(200)
                self.send_header("Content-Type", "video/mp4")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass

    return Handler


def _load_script(path: str, fake: FakeGemini) -> None:
    """Rules from a JSON file: ``[{"match": "substring" | null, "replies": [reply, …]}]``."""
    with open(path, encoding="utf-8") as fh:
        for rule in json.load(fh):
            fake.on(rule.get("match"), *rule["replies"], times=rule.get("times"))


def main() -> None:
    """Run the fake from a shell until interrupted."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--script", help="JSON file of rules")
    args = parser.parse_args()
    fake = FakeGemini(port=args.port)
    if args.script:
        _load_script(args.script, fake)
    print(f"fake gemini on {fake.url}", flush=True)
    try:
        fake._server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
