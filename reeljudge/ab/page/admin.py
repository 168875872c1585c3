"""Admin pages of the rating server: dashboard (progress, third-rater queue, gold accuracy) and exports.

Every admin route needs the admin token: ``Authorization: Bearer <token>``, or ``?token=`` once
in a browser (it is then kept in an HttpOnly cookie and dropped from the address).
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any

from reeljudge.ab.study.assignment import QCOptions
from reeljudge.ab.store.exports import to_csv, to_jsonl
from reeljudge.ab.study.status import study_status
from reeljudge.ab.study.workspace import Workspace

if TYPE_CHECKING:  # starlette: the rating extra
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

COOKIE = "reeljudge_ab_admin"


def routes(workspace: Workspace, qc: QCOptions) -> list[Route]:
    """The admin routes for one workspace."""
    from starlette.routing import Route

    pages = _Admin(workspace, qc)
    return [
        Route("/admin", pages.dashboard),
        Route("/admin/api/status", pages.status_json),
        Route("/admin/export.jsonl", pages.export_jsonl),
        Route("/admin/export.csv", pages.export_csv),
    ]


class _Admin:
    def __init__(self, workspace: Workspace, qc: QCOptions) -> None:
        self.ws, self.qc = workspace, qc

    def _token(self, request: Request) -> str | None:
        header = request.headers.get("authorization", "")
        if header.lower().startswith("bearer "):
            return header[7:].strip()
        return request.query_params.get("token") or request.cookies.get(COOKIE)

    def _guard(self, request: Request) -> Response | None:
        """None when the request carries the admin token, else the 401 response."""
        from starlette.responses import PlainTextResponse

        if self.ws.is_admin(self._token(request)):
            return None
        return PlainTextResponse("admin token required", status_code=401)

    def status(self) -> dict[str, Any]:
        """Counts, per-rater progress and gold accuracy, and the third-rater queue, read as aggregates (``status.py``)."""
        return study_status(self.ws.store, self.qc)

    def status_json(self, request: Request) -> Response:
        from starlette.responses import JSONResponse

        return self._guard(request) or JSONResponse(self.status(), headers={"Cache-Control": "no-store"})

    def export_jsonl(self, request: Request) -> Response:
        from starlette.responses import Response

        return self._guard(request) or Response(
            to_jsonl(self.ws.store.judgements()), media_type="application/x-ndjson",
            headers={"Content-Disposition": 'attachment; filename="judgements.jsonl"'},
        )

    def export_csv(self, request: Request) -> Response:
        from starlette.responses import Response

        return self._guard(request) or Response(
            to_csv(self.ws.store.judgements(), self.ws.protocol), media_type="text/csv",
            headers={"Content-Disposition": 'attachment; filename="judgements.csv"'},
        )

    def dashboard(self, request: Request) -> Response:
        from starlette.responses import HTMLResponse, RedirectResponse

        denied = self._guard(request)
        if denied is not None:
            return denied
        if "token" in request.query_params:
            response = RedirectResponse("/admin", status_code=303)
            response.set_cookie(COOKIE, request.query_params["token"], httponly=True, samesite="strict")
            return response
        return HTMLResponse(render_dashboard(self.status()), headers={"Cache-Control": "no-store"})


def render_dashboard(status: dict[str, Any]) -> str:
    """The dashboard page (plain HTML, refreshes itself every 10 s)."""
    rows = "".join(
        f"<tr><td>{escape(r['rater'])}</td><td>{r['kind']}</td>"
        f"<td>{r['done']}{'' if r['total'] is None else ' of ' + str(r['total'])}</td>"
        f"<td>{_gold(r['gold'])}</td><td>{r.get('thin_evidence', '–')}</td></tr>"
        for r in status["raters"]
    )
    queue = "".join(
        f"<li data-sample='{q['sample_id']}'>sample <code>{q['sample_id']}</code>: needs a third rater — "
        + ", ".join(f"{escape(k)} chose {escape(v)}" for k, v in q["verdicts"].items()) + "</li>"
        for q in status["third_rater_queue"]
    ) or "<li class='empty'>No disagreement waiting for a third rater.</li>"
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="10">
<title>reeljudge A/B — admin</title><link rel="stylesheet" href="/static/rater.css"></head><body class="admin">
<h1>reeljudge A/B — admin</h1>
<p>{status['samples']} pair samples ({status['complete']} with enough raters), {status['gold_samples']} gold pairs,
{status['judgements']} judgements.</p>
<h2>Third-rater queue</h2><ul id="third-rater-queue">{queue}</ul>
<h2>Raters</h2><table id="raters"><thead><tr><th>rater</th><th>kind</th><th>progress</th><th>gold accuracy</th><th>records with
thin evidence of watching</th></tr></thead>
<tbody>{rows}</tbody></table>
<h2>Exports</h2><p><a href="/admin/export.jsonl">judgements.jsonl</a> · <a href="/admin/export.csv">judgements.csv</a>
· report: <code>reeljudge ab report</code></p></body></html>"""


def _gold(entry: dict[str, Any] | None) -> str:
    if not entry:
        return "–"
    return f"{entry['correct']}/{entry['answered']} ({entry['accuracy']:.0%})"
