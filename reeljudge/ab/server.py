"""The rating server: a Starlette (ASGI) app served by uvicorn.

Raters open ``/r/<invite token>``: a static page (``static/rater.html`` + ``rater.js``) that asks
``/api/r/<token>/task`` for its next task, streams the two clips with HTTP Range support, and
posts its verdict to ``/api/r/<token>/submit``. Each token reaches only its own tasks, clips and
records. The admin pages (``admin.py``) need the admin token. Handlers are plain functions run in
a thread pool; each thread has its own database connection.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from reeljudge.ab.assignment import QCOptions, assignment_by_id, next_assignment, progress
from reeljudge.ab.bodies import BodyError, check_declared, parse_bounded, read_capped, unstorable_field
from reeljudge.ab.evidence import MAX_SPEED, RangeError, gather, requested_spans
from reeljudge.ab.limits import ConnectionLimits
from reeljudge.ab.protocol import SIDES, check_form
from reeljudge.ab.records import RecordError, build_record
from reeljudge.ab.store import AlreadyJudged, SubmissionIdTaken
from reeljudge.extras import require
from reeljudge.ab.workspace import Workspace
from reeljudge.package_data import rating_page_folder

STATIC_DIR = rating_page_folder()


@dataclass(frozen=True)
class ServeOptions:
    """Rating-server settings.

    Args:
        host: address to bind (127.0.0.1: this machine only; 0.0.0.0 exposes it to the network).
        port: TCP port.
        qc: quality-control settings (raters per sample, third raters, gold frequency).
        break_every: remind the rater to take a break after this many tasks in a row.
        break_minutes: … or after this many minutes of rating.
        max_speed: the fastest playback speed the page offers; a submit needs at least
            ``min_full_plays`` × the longer clip's duration ÷ this many seconds after the task was handed out.
        limits: connection deadlines and caps (``reeljudge.ab.limits``).
        parse_slots: submit bodies parsed at once (off the event loop); the others wait their turn.
    """

    host: str = "127.0.0.1"
    port: int = 8765
    qc: QCOptions = field(default_factory=QCOptions)
    break_every: int = 15
    break_minutes: float = 25.0
    max_speed: float = MAX_SPEED
    limits: ConnectionLimits = field(default_factory=ConnectionLimits)
    parse_slots: int = 2


def create_app(workspace: Workspace, options: ServeOptions = ServeOptions()) -> Any:
    """The ASGI app for one workspace."""
    require("the A/B rating server", "starlette")
    from starlette.applications import Starlette
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    from reeljudge.ab import admin

    api = _RaterApi(workspace, options)
    routes = [
        Route("/", _home),
        Route("/healthz", lambda request: _json({"ok": True})),
        Route("/r/{token}", api.page),
        Route("/api/r/{token}/task", api.task),
        Route("/api/r/{token}/submit", api.submit, methods=["POST"]),
        Route("/api/r/{token}/submit/{assignment_id}", api.submit, methods=["POST"]),
        Route("/api/r/{token}/clip/{assignment_id}/{which}", api.clip),
        Route("/api/r/{token}/mine", api.mine),
        Mount("/static", app=StaticFiles(directory=STATIC_DIR), name="static"),
        *admin.routes(workspace, options),
    ]
    return Starlette(routes=routes)


def _json(data: Any, status: int = 200) -> Any:
    from starlette.responses import JSONResponse

    return JSONResponse(data, status_code=status, headers={"Cache-Control": "no-store"})


def _refused(data: Any, status: int) -> Any:
    """A JSON error answered before the body was read (or read whole): the connection is closed after it."""
    response = _json(data, status)
    response.headers["Connection"] = "close"
    return response


def _unusable(body: dict[str, Any], assignment: Any) -> Any:
    """A 422 for a body holding text the store cannot keep, or naming another task than the URL; else None."""
    bad = unstorable_field(body)
    if bad is not None:
        message = f"{bad}: not storable text (a lone surrogate such as \\ud800, or a NUL character)"
        return _json({"stored": False, "violations": [{"field": bad, "message": message}]}, 422)
    if assignment is not None and body.get("assignment_id", assignment.assignment_id) != assignment.assignment_id:
        return _json({"stored": False, "violations": [{"field": "assignment_id", "message": "differs from the task in the URL"}]}, 422)
    return None


def _home(request: Any) -> Any:
    from starlette.responses import HTMLResponse

    return HTMLResponse("<!doctype html><title>reeljudge A/B</title><p>reeljudge A/B rating server. Open your personal invite link.</p>")


class _RaterApi:
    """The rater-facing endpoints; every one starts by resolving the token to a rater."""

    def __init__(self, workspace: Workspace, options: ServeOptions) -> None:
        self.ws, self.options = workspace, options
        self.protocol = workspace.protocol
        self._parsing = threading.BoundedSemaphore(options.parse_slots)

    def _rater(self, request: Any) -> str | None:
        return self.ws.store.rater_for_token(request.path_params["token"])

    def page(self, request: Any) -> Any:
        from starlette.responses import FileResponse, HTMLResponse

        if self._rater(request) is None:
            return HTMLResponse("<!doctype html><title>Not found</title><p>This invite link is not valid.</p>", status_code=404)
        return FileResponse(STATIC_DIR / "rater.html", headers={"Cache-Control": "no-store"})

    def task(self, request: Any) -> Any:
        rater = self._rater(request)
        if rater is None:
            return _json({"error": "unknown invite link"}, 404)
        assignment = next_assignment(self.ws.store, rater, self.options.qc)
        done, total = progress(self.ws.store, rater, self.options.qc)
        body: dict[str, Any] = {
            "rater": rater, "progress": {"done": done, "total": total}, "protocol": self.protocol.public(),
            "break": {"every": self.options.break_every, "minutes": self.options.break_minutes}, "task": None,
        }
        if assignment is not None:
            body["task"] = self._task_body(request, assignment)
        return _json(body)

    def _task_body(self, request: Any, assignment: Any) -> dict[str, Any]:
        sample = assignment.sample
        token = request.path_params["token"]
        base = f"/api/r/{token}/clip/{assignment.assignment_id}"
        clips = {}
        for side, sha in assignment.clips.items():
            clip = self.ws.store.clip(sha)
            assert clip is not None
            clips[side] = {"url": f"{base}/{side}", "duration": clip.duration, "fps": clip.fps, "width": clip.width, "height": clip.height}
        source = None
        if sample.source_clip:
            clip = self.ws.store.clip(sample.source_clip)
            source = {"url": f"{base}/source", "duration": clip.duration if clip else None}
        return {
            "assignment_id": assignment.assignment_id, "prompt": sample.prompt, "family": sample.family,
            "family_label": self.protocol.families[sample.family].label, "clips": clips, "source": source,
            "min_full_plays": self.protocol.rules.min_full_plays, "max_speed": self.options.max_speed,
        }

    def clip(self, request: Any) -> Any:
        from starlette.responses import FileResponse, PlainTextResponse

        rater = self._rater(request)
        assignment = assignment_by_id(self.ws.store, request.path_params["assignment_id"])
        which = request.path_params["which"]
        if rater is None or assignment is None or assignment.rater_id != rater or which not in (*SIDES, "source"):
            return PlainTextResponse("not found", status_code=404)
        sha = assignment.sample.source_clip if which == "source" else assignment.clips[which]
        clip = self.ws.store.clip(sha) if sha else None
        if clip is None:
            return PlainTextResponse("not found", status_code=404)
        try:
            spans = requested_spans(request.headers.get("range"), clip.bytes)
        except RangeError as error:
            return PlainTextResponse(str(error), status_code=416, headers={"Content-Range": f"bytes */{clip.bytes}"})
        response = FileResponse(self.ws.clips.path(clip), media_type=clip.mime, headers={"Cache-Control": "private, max-age=3600"})
        return _Logged(response, lambda: self.ws.store.log_serve(assignment.assignment_id, which, spans))

    def mine(self, request: Any) -> Any:
        rater = self._rater(request)
        if rater is None:
            return _json({"error": "unknown invite link"}, 404)
        return _json({"records": [blinded(r) for r in self.ws.store.judgements(rater_id=rater)]})

    async def submit(self, request: Any) -> Any:
        """Token and task from the URL first; only then the body, read capped and parsed off the loop, bounded."""
        from starlette.concurrency import run_in_threadpool

        token, in_url = request.path_params["token"], request.path_params.get("assignment_id")
        try:
            check_declared(request)
            rater, assignment = await run_in_threadpool(self._owner, token, in_url)
            if rater is None or (in_url is not None and assignment is None):
                return _refused({"error": "no such task for this invite link"}, 404)
            raw = await read_capped(request)
        except BodyError as error:
            return _refused({"error": error.message}, error.status)
        return await run_in_threadpool(self._parse_and_submit, rater, assignment, raw)

    def _parse_and_submit(self, rater: str, assignment: Any, raw: bytes) -> Any:
        """In a worker thread: parse the body (at most ``parse_slots`` at once, bounded), then ``_submit``."""
        try:
            with self._parsing:
                body = parse_bounded(raw)
        except BodyError as error:
            return _refused({"error": error.message}, error.status)
        del raw
        return self._submit(rater, assignment, body)

    def _owner(self, token: str, assignment_id: str | None) -> tuple[str | None, Any]:
        """The token's rater, and the task named in the URL if it is that rater's (None otherwise)."""
        rater = self.ws.store.rater_for_token(token)
        if rater is None or assignment_id is None:
            return rater, None
        assignment = assignment_by_id(self.ws.store, assignment_id)
        return rater, assignment if assignment is not None and assignment.rater_id == rater else None

    def _submit(self, rater: str, assignment: Any, body: dict[str, Any]) -> Any:
        refused = _unusable(body, assignment)
        if refused is not None:
            return refused
        if assignment is None:
            assignment = assignment_by_id(self.ws.store, str(body.get("assignment_id") or ""))
        if assignment is None or assignment.rater_id != rater:
            return _json({"error": "no such task for this invite link"}, 404)
        submission_id = str(body.get("submission_id") or "")
        for record in self.ws.store.judgements(rater_id=rater, sample_id=assignment.sample.sample_id):
            if record["submission_id"] == submission_id:
                return _json({"stored": False, "duplicate": True, "record_id": record["record_id"]})
        form = body.get("form") if isinstance(body.get("form"), dict) else {}
        clips = {side: self.ws.store.clip(sha) for side, sha in assignment.clips.items()}
        durations = {side: clip.duration if clip else 0.0 for side, clip in clips.items()}
        watch, problems = _watch(body.get("watch"), durations)
        problems += [v.as_dict() for v in check_form(self.protocol, assignment.sample.family, form)]
        problems += _watch_problems(watch, self.protocol.rules.min_full_plays)
        evidence = gather(self.ws.store.serves(assignment.assignment_id), {s: c.bytes if c else 0 for s, c in clips.items()},
                          durations, assignment.served_at, self.protocol.rules.min_full_plays, self.options.max_speed)
        problems += evidence.violations(self.protocol.rules.min_full_plays)
        watch["server"] = evidence.as_dict()
        if problems:
            return _json({"stored": False, "violations": problems}, 422)
        return self._store(rater, assignment, form, watch, submission_id)

    def _store(self, rater: str, assignment: Any, form: dict[str, Any], watch: dict[str, Any], submission_id: str) -> Any:
        sample = assignment.sample
        try:
            record = build_record(
                sample_id=sample.sample_id, family=sample.family, protocol=self.protocol.id, shown=assignment.shown,
                clips=assignment.clips, form=form, rater_id=rater, submission_id=submission_id or None, watch=watch,
                served_at=assignment.served_at,
            )
            stored, created = self.ws.store.append_judgement(record)
        except RecordError as error:
            return _json({"stored": False, "violations": [{"field": "record", "message": error.message}]}, 422)
        except AlreadyJudged:
            message = "you already submitted another verdict for this task; it stands (records are never changed)"
            return _json({"stored": False, "error": message}, 409)
        except SubmissionIdTaken as error:
            return _json({"stored": False, "error": error.message}, 409)
        return _json({"stored": created, "duplicate": not created, "record_id": stored["record_id"]})


class _Logged:
    """An ASGI response that logs a clip's byte spans after its body was sent and before its last message.

    So a dropped connection or an error status logs nothing, and the log is committed before the
    client sees the response complete (a submit right after cannot outrun it).
    """

    def __init__(self, response: Any, log: Callable[[], None]) -> None:
        self.response, self.log = response, log

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        from starlette.concurrency import run_in_threadpool

        status = 0

        async def sending(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body" and not message.get("more_body", False) and status in (200, 206):
                await run_in_threadpool(self.log)
            await send(message)

        await self.response(scope, receive, sending)


WATCH_EVENTS = {"play", "pause", "seek", "ended", "full_play", "rate", "step", "loop"}
MAX_AT_MS = 7 * 24 * 3600 * 1000  # a page open longer than a week is not a rating session
SLACK_S = 0.1  # a media clock may read a little past the last frame


def _watch(raw: Any, durations: dict[str, float]) -> tuple[dict[str, Any], list[dict[str, str]]]:
    """The watch log as posted (well-formed events, at most 2000), full plays counted, and violations.

    Times are numbers ≥ 0 (the body parser already refused NaN and Infinity); ``t`` is at most the
    clip's duration and ``at_ms`` at most a week: a number out of bounds refuses the submit.
    """
    log, problems = [], []
    longest = max(durations.values(), default=0.0)
    for i, event in enumerate((raw or {}).get("log", []) if isinstance(raw, dict) else []):
        if not (isinstance(event, dict) and event.get("side") in ("A", "B", "both") and event.get("event") in WATCH_EVENTS):
            continue
        item = {k: event.get(k) for k in ("side", "event", "t", "at_ms")}
        if not all(isinstance(item[k], (int, float)) and not isinstance(item[k], bool) for k in ("t", "at_ms")):
            continue
        bound = durations.get(item["side"], longest) + SLACK_S
        if not (0 <= item["t"] <= bound and 0 <= item["at_ms"] <= MAX_AT_MS):
            problems.append({"field": "watch", "message": (
                f"watch log event {i}: t = {item['t']} s and at_ms = {item['at_ms']} must lie within the clip "
                f"(0 to {bound - SLACK_S:.2f} s) and the session (0 to {MAX_AT_MS} ms)")})
            continue
        value = event.get("value")
        if isinstance(value, (bool, str)) or value is None or (isinstance(value, (int, float)) and abs(value) <= 1e6):
            item["value"] = value[:64] if isinstance(value, str) else value
        log.append(item)
    log = log[-2000:]
    plays = {side: sum(1 for e in log if e["side"] == side and e["event"] == "full_play") for side in SIDES}
    return {"full_plays": plays, "log": log}, problems[:5]


def _watch_problems(watch: dict[str, Any], minimum: int) -> list[dict[str, str]]:
    """A violation per clip the page did not report played to the end ``minimum`` times."""
    return [
        {"field": "watch", "message": f"Play clip {side} to the end {minimum} times before submitting (so far {n})."}
        for side, n in watch["full_plays"].items() if n < minimum
    ]


def blinded(record: dict[str, Any]) -> dict[str, Any]:
    """A rater's own record as the rater saw it: sides, never systems, sample ids or gold marks."""
    side_of = {record["shown"][side]["system"]: side for side in SIDES}
    return {
        "record_id": record["record_id"], "submission_id": record["submission_id"], "winner": record["winner_side"],
        "primary_tag": record["primary_tag"], "secondary_tags": record["secondary_tags"],
        "ratings": {side_of[system]: values for system, values in record["ratings"].items() if system in side_of},
        "note": record["note"], "created_at": record["created_at"],
    }
