"""The rating server: a Starlette (ASGI) app served by uvicorn.

Raters open ``/r/<invite token>``: a static page (``static/rater.html`` + ``rater.js``) that asks
``/api/r/<token>/task`` for its next task, streams the two clips with HTTP Range support, and
posts its verdict to ``/api/r/<token>/submit/<task>`` (token and task are checked before the body
is read; ``submit.py`` checks and stores it). Each token reaches only its own tasks, clips and
records. The admin pages (``admin.py``) need the admin token. Handlers are plain functions run in
a thread pool; each thread has its own database connection.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from reeljudge.ab.page.assets import Assets
from reeljudge.ab.study.assignment import ASSIGNMENT_ID, QCOptions, assignment_by_id, next_task, progress
from reeljudge.ab.transport.bodies import BodyError, check_declared, parse_bounded, read_capped
from reeljudge.ab.store.evidence import MAX_SPEED, RangeError, requested_spans
from reeljudge.ab.transport.fair_share import VALID_TOKEN, FairShare, RateLimits
from reeljudge.ab.transport.limits import ConnectionLimits
from reeljudge.ab.transport.loop_lag import FILE_NAME as LOOP_LAG_FILE, LoopLag
from reeljudge.ab.store.protocol import SIDES
from reeljudge.ab.page.submit import Submitter
from reeljudge.extras import require
from reeljudge.ab.study.workspace import Workspace
from reeljudge.package_data import rating_page_folder

if TYPE_CHECKING:  # starlette: the rating extra, imported where a server starts
    from starlette.requests import Request
    from starlette.responses import Response

    from reeljudge.ab.study.assignment import Assignment
    from reeljudge.ab.transport.clip_response import ClipResponse

STATIC_DIR = rating_page_folder()
#: a rater's own records per ``/mine`` answer (oldest first; ``next`` asks for the page after): each costs one page
MINE_PAGE = 20


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
        limits: connection deadlines and caps (``reeljudge.ab.transport.limits``).
        rates: requests per invite token and per address without one (``reeljudge.ab.transport.fair_share``).
        parse_slots: submit bodies parsed at once (off the event loop); the others wait their turn.
    """

    host: str = "127.0.0.1"
    port: int = 8765
    qc: QCOptions = field(default_factory=QCOptions)
    break_every: int = 15
    break_minutes: float = 25.0
    max_speed: float = MAX_SPEED
    limits: ConnectionLimits = field(default_factory=ConnectionLimits)
    rates: RateLimits = field(default_factory=RateLimits)
    parse_slots: int = 2


def create_app(workspace: Workspace, options: ServeOptions = ServeOptions()) -> Any:
    """The ASGI app for one workspace, every request charged to its rater's or its address's fair share first."""
    require("the A/B rating server", "starlette")
    from starlette.applications import Starlette
    from starlette.routing import Route

    from reeljudge.ab.page import admin

    api, lag = _RaterApi(workspace, options), LoopLag(workspace.root / LOOP_LAG_FILE)
    routes = [
        Route("/", _home),
        Route("/healthz", lambda request: _json({"ok": True, **lag.figure()})),
        Route("/r/{token}", api.page),
        Route("/r/{token}/static/{name}", api.static),
        Route("/api/r/{token}/task", api.task),
        Route("/api/r/{token}/submit", api.submit, methods=["POST"]),
        Route("/api/r/{token}/submit/{assignment_id}", api.submit, methods=["POST"]),
        Route("/api/r/{token}/clip/{assignment_id}/{which}", api.clip),
        Route("/api/r/{token}/mine", api.mine),
        Route("/static/{name}", api.shared_static),
        *admin.routes(workspace, options.qc),
    ]
    app = Starlette(routes=routes, lifespan=lag.lifespan)  # the lifespan runs the loop-lag tick
    return FairShare(app, lambda token: workspace.store.rater_for_token(token) is not None, options.rates)


def _json(data: Any, status: int = 200) -> Response:
    from starlette.responses import JSONResponse

    return JSONResponse(data, status_code=status, headers={"Cache-Control": "no-store"})


def _refused(data: Any, status: int) -> Response:
    """A JSON error answered before the body was read (or read whole): the connection is closed after it."""
    response = _json(data, status)
    response.headers["Connection"] = "close"
    return response


def _home(request: Request) -> Response:
    from starlette.responses import HTMLResponse

    return HTMLResponse("<!doctype html><title>reeljudge A/B</title><p>reeljudge A/B rating server. Open your "
                        "personal invite link.</p>")


class _RaterApi:
    """The rater-facing endpoints; every one starts by resolving the token to a rater."""

    def __init__(self, workspace: Workspace, options: ServeOptions) -> None:
        self.ws, self.options = workspace, options
        self.protocol = workspace.protocol
        self._parsing = threading.BoundedSemaphore(options.parse_slots)
        self._submitter = Submitter(workspace, options.qc, options.max_speed)
        self.assets = Assets(STATIC_DIR)

    def _rater(self, request: Request) -> str | None:
        return self.ws.store.rater_for_token(request.path_params["token"])

    def page(self, request: Request) -> Response:
        """The rating page, its stylesheet and script named under the rater's token (``assets.Assets.page``)."""
        from starlette.responses import HTMLResponse

        if self._rater(request) is None:
            return HTMLResponse("<!doctype html><title>Not found</title><p>This invite link is not valid.</p>", status_code=404)
        return HTMLResponse(self.assets.page(request.path_params["token"]), headers={"Cache-Control": "no-store"})

    async def static(self, request: Request) -> Response:
        """A static file under a rater's token, from memory (the fair share charged it to the token's bucket for static files:
        a token it did not find valid gets a 404 here without a look-up)."""
        from starlette.responses import PlainTextResponse

        if not request.scope.get(VALID_TOKEN):
            return PlainTextResponse("not found", status_code=404)
        return self.assets.response(request, request.path_params["name"], scoped=True)

    async def shared_static(self, request: Request) -> Response:
        """A static file without a token (the admin pages' stylesheet), from memory; charged to the address."""
        return self.assets.response(request, request.path_params["name"], scoped=False)

    def task(self, request: Request) -> Response:
        rater = self._rater(request)
        if rater is None:
            return _json({"error": "unknown invite link"}, 404)
        handout = next_task(self.ws.store, rater, self.options.qc)
        done, total = progress(self.ws.store, rater, self.options.qc)
        body: dict[str, Any] = {
            "rater": rater, "progress": {"done": done, "total": total}, "protocol": self.protocol.public(),
            "break": {"every": self.options.break_every, "minutes": self.options.break_minutes}, "task": None,
            "notice": handout.notice,
        }
        if handout.assignment is not None:
            body["task"] = self._task_body(request, handout.assignment)
        return _json(body)

    def _task_body(self, request: Request, assignment: Assignment) -> dict[str, Any]:
        sample = assignment.sample
        token = request.path_params["token"]
        base = f"/api/r/{token}/clip/{assignment.assignment_id}"
        clips = {}
        for side, sha in assignment.clips.items():
            clip = self.ws.store.clip(sha)
            assert clip is not None
            clips[side] = {"url": f"{base}/{side}", "duration": clip.duration, "fps": clip.fps,
                           "width": clip.width, "height": clip.height}
        source = None
        if sample.source_clip:
            clip = self.ws.store.clip(sample.source_clip)
            source = {"url": f"{base}/source", "duration": clip.duration if clip else None}
        return {
            "assignment_id": assignment.assignment_id, "prompt": sample.prompt, "family": sample.family,
            "family_label": self.protocol.families[sample.family].label, "clips": clips, "source": source,
            "min_full_plays": self.protocol.rules.min_full_plays, "max_speed": self.options.max_speed,
        }

    def clip(self, request: Request) -> Response | ClipResponse:
        from starlette.responses import PlainTextResponse

        from reeljudge.ab.transport.clip_response import ClipResponse

        which, assignment_id = request.path_params["which"], request.path_params["assignment_id"]
        if which not in (*SIDES, "source") or not ASSIGNMENT_ID.fullmatch(assignment_id):  # path text first, then the store
            return PlainTextResponse("not found", status_code=404)
        rater = self._rater(request)
        assignment = assignment_by_id(self.ws.store, assignment_id)
        if rater is None or assignment is None or assignment.rater_id != rater:
            return PlainTextResponse("not found", status_code=404)
        sha = assignment.sample.source_clip if which == "source" else assignment.clips[which]
        clip = self.ws.store.clip(sha) if sha else None
        if clip is None:
            return PlainTextResponse("not found", status_code=404)
        try:
            spans = requested_spans(request.headers.get("range"), clip.bytes)
        except RangeError as error:  # the one 416: malformed, more than MAX_RANGES ranges, or past the end
            return PlainTextResponse(str(error), status_code=416, headers={"Content-Range": f"bytes */{clip.bytes}"})
        log = lambda sent: self.ws.store.log_serve(assignment.assignment_id, which, sent)  # noqa: E731
        return ClipResponse(self.ws.clips.path(clip), clip.mime, spans, log)

    def mine(self, request: Request) -> Response:
        rater = self._rater(request)
        if rater is None:
            return _json({"error": "unknown invite link"}, 404)
        records, total = self.ws.store.rater_page(rater, request.query_params.get("after"), MINE_PAGE)
        last = records[-1]["record_id"] if records else None
        return _json({"records": [blinded(r) for r in records], "total": total,
                      "next": f"/api/r/{request.path_params['token']}/mine?after={last}" if len(records) == MINE_PAGE else None})

    async def submit(self, request: Request) -> Response:
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

    def _parse_and_submit(self, rater: str, assignment: Assignment | None, raw: bytes) -> Response:
        """In a worker thread: parse the body (at most ``parse_slots`` at once, bounded), then check and store it."""
        try:
            with self._parsing:
                body = parse_bounded(raw)
        except BodyError as error:
            return _refused({"error": error.message}, error.status)
        del raw
        return _json(*self._submitter.submit(rater, assignment, body))

    def _owner(self, token: str, assignment_id: str | None) -> tuple[str | None, Assignment | None]:
        """The token's rater, and the task named in the URL if it is that rater's (None otherwise; a URL naming no
        task the server could have made is refused before the store is asked)."""
        if assignment_id is not None and not ASSIGNMENT_ID.fullmatch(assignment_id):
            return None, None
        rater = self.ws.store.rater_for_token(token)
        if rater is None or assignment_id is None:
            return rater, None
        assignment = assignment_by_id(self.ws.store, assignment_id)
        return rater, assignment if assignment is not None and assignment.rater_id == rater else None


def blinded(record: dict[str, Any]) -> dict[str, Any]:
    """A rater's own record as the rater saw it: sides, never systems, sample ids or gold marks."""
    side_of = {record["shown"][side]["system"]: side for side in SIDES}
    return {
        "record_id": record["record_id"], "submission_id": record["submission_id"], "winner": record["winner_side"],
        "primary_tag": record["primary_tag"], "secondary_tags": record["secondary_tags"],
        "ratings": {side_of[system]: values for system, values in record["ratings"].items() if system in side_of},
        "note": record["note"], "created_at": record["created_at"],
    }
