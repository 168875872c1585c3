"""A fuzzer that keeps looking (issue 46, item 6): every route of the rating server driven by generated requests.

Hypothesis draws requests from the server's own routes — the rater's page, task, clip (with Range
headers), mine and both submit routes, the admin pages and exports, static files, health, and
paths of any text — with any method, tokens and task ids real, unknown or malformed, headers
(Range, Content-Type, Authorization, Cookie, Content-Length) and bodies from the page's own shape
mutated (numbers of any size, any text, extra keys, nesting), runs of escapes, quotes, brackets and
numbers up to 200 KB, and bytes of no shape at all. No example
database: each run draws new requests. The server runs as its own process on 127.0.0.1; after
the run it must have answered every request below 500, its loop-lag figure must be within
``loop_lag.BUDGET_MS``, and its resident memory must have grown by less than ``MEMORY_MB`` over
the run. Bounded: ``EXAMPLES`` requests, and none drawn after ``BUDGET_S`` seconds.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from reeljudge.ab.transport.loop_lag import BUDGET_MS
from support.ab_study import free_port, invite, make_study, serve_process

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, Phase, given, settings, strategies as st  # noqa: E402

EXAMPLES = 1500
FIXED = ("/", "/healthz", "/admin", "/admin/api/status", "/admin/export.jsonl", "/admin/export.csv", "/static/rater.js",
         "/static/rater.css", "/static/rater.html", "/static/../pyproject.toml")
BUDGET_S = 120.0
MEMORY_MB = 128
METHODS = st.sampled_from(["GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "PATCH"])

_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60)
_numbers = st.one_of(st.integers(), st.integers(min_value=10**15, max_value=10**500), st.floats(allow_nan=False),
                     st.sampled_from([0, -1, 1e308, -1e308, 5e-324, 2**63, -(2**63) - 1, 2**1024, 10**400, -(10**400)]))
_json = st.recursive(st.one_of(st.none(), st.booleans(), _numbers, _text),
                     lambda inner: st.one_of(st.lists(inner, max_size=6), st.dictionaries(_text, inner, max_size=6)),
                     max_leaves=30)


def _event() -> Any:
    """A watch-log event of the page's shape, its fields drawn from anything."""
    side, event = st.sampled_from(["A", "B", "both"]), st.sampled_from(["play", "pause", "full_play", "rate"])
    return st.fixed_dictionaries({"side": st.one_of(side, side, side, _json), "event": st.one_of(event, event, event, _json),
                                  "t": st.one_of(_numbers, _json), "at_ms": st.one_of(_numbers, _json),
                                  "value": st.one_of(_numbers, _json)},
                                 optional={"extra": _json})


def _form() -> Any:
    """A rating form of the page's shape, its fields drawn from anything."""
    rating = st.dictionaries(st.sampled_from(["prompt_adherence", "temporal_consistency", "x"]), st.one_of(_numbers, _json))
    return st.fixed_dictionaries({"winner": st.one_of(st.sampled_from(["A", "B", "tie"]), _json),
                                  "primary_tag": st.one_of(st.sampled_from(["flicker", "tie_both_good"]), _json),
                                  "secondary_tags": st.one_of(st.lists(_text, max_size=5), _json),
                                  "ratings": st.one_of(st.fixed_dictionaries({"A": rating, "B": rating}), _json),
                                  "note": st.one_of(_text, _json)})


class Route:
    """The server's routes, with the tokens and ids of one study."""

    def __init__(self, token: str, assignment: str, admin: str) -> None:
        self.token, self.assignment, self.admin = token, assignment, admin

    def requests(self) -> Any:
        """(method, path): a route's own method three times in four, any other else; tokens and ids real, unknown or
        any text; or a path of any text."""
        token = st.one_of(st.just(self.token), st.just(self.token), st.just("x" * 24), _text)  # the real one half the time
        task = st.one_of(st.just(self.assignment), st.just(self.assignment), st.just("0" * 32), _text)
        which = st.one_of(st.sampled_from(["A", "B", "source"]), _text)
        part = lambda s: s.map(lambda v: quote(v, safe=""))  # noqa: E731
        routes = [
            ("GET", st.sampled_from(FIXED)),
            ("GET", st.builds("/r/{}".format, part(token))),
            ("GET", st.builds("/api/r/{}/task".format, part(token))),
            ("GET", st.builds("/api/r/{}/mine".format, part(token))),
            ("POST", st.builds("/api/r/{}/submit".format, part(token))),
            ("POST", st.builds("/api/r/{}/submit/{}".format, part(token), part(task))),
            ("POST", st.just(f"/api/r/{self.token}/submit/{self.assignment}")),  # the page's own submit: the deepest route
            ("POST", st.just(f"/api/r/{self.token}/submit/{self.assignment}")),
            ("GET", st.builds("/api/r/{}/clip/{}/{}".format, part(token), part(task), part(which))),
            ("GET", st.builds("/static/{}".format, part(_text))),
            ("GET", part(_text).map(lambda v: "/" + v)),
        ]
        return st.one_of(*(st.tuples(st.one_of(st.just(own), st.just(own), st.just(own), METHODS), path) for own, path in routes))

    def queries(self) -> Any:
        """A query string: none, the page's (``after``, ``token``) or anything."""
        return st.one_of(st.just(""), st.builds("?after={}".format, _text.map(lambda v: quote(v, safe=""))),
                         st.just(f"?token={self.admin}"), _text.map(lambda v: "?" + quote(v, safe="=&")))

    def headers(self) -> Any:
        """Headers a client may send: Range, Content-Type, Authorization, Cookie, a false Content-Length."""
        value = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=80).map(str.strip)  # what HTTP allows
        ranges = st.one_of(value, st.builds("bytes={}-{}".format, st.integers(-5, 10**20), st.integers(-5, 10**20)),
                           st.lists(st.builds("{}-{}".format, st.integers(0, 5000), st.integers(0, 5000)), max_size=40)
                           .map(lambda r: "bytes=" + ",".join(r)))
        return st.fixed_dictionaries({}, optional={
            "Range": ranges, "Content-Type": st.one_of(st.just("application/json"), value),
            "Authorization": st.one_of(st.just(f"Bearer {self.admin}"), value), "Cookie": value,
            "X-Forwarded-For": value})

    def bodies(self) -> Any:
        """A body: none, a submit of the page's shape mutated, any JSON, or any bytes."""
        submit = st.fixed_dictionaries(
            {"assignment_id": st.one_of(st.just(self.assignment), _json), "submission_id": st.one_of(_text, _json),
             "form": st.one_of(_form(), _json), "watch": st.one_of(st.fixed_dictionaries({"log": st.lists(_event(),
                                                                                                          max_size=8)}), _json)},
            optional={"extra": _json})
        runs = st.tuples(st.sampled_from([b'"', b"[", b"{", b""]),  # runs that cost a parser the most
                         st.sampled_from([b'\\"', b'"', b"[", b'{"a":', b"1,", b"\\"]),
                         st.one_of(st.integers(1, 40_000), st.just(40_000))).map(lambda r: r[0] + r[1] * r[2])
        page = submit.map(lambda b: json.dumps(b).encode())
        return st.one_of(st.just(b""), page, page, page, _json.map(lambda b: json.dumps(b).encode()),
                         st.binary(max_size=2048), runs)


def _rss_mb(pid: int) -> float:
    """The process's resident memory (MB), from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.slow
def test_generated_requests_on_every_route_get_no_5xx_no_loop_stall_and_bounded_memory(tmp_path) -> None:
    ws = make_study(tmp_path, n_pairs=3)
    token = invite(ws, "ann")
    port = free_port()
    proc = serve_process(ws.root, port, tmp_path / "server.log", "--rate-per-token", "0", "--rate-per-address", "0")
    url, answers = f"http://127.0.0.1:{port}", []
    try:
        with httpx.Client(timeout=30) as client:
            assignment = client.get(f"{url}/api/r/{token}/task").json()["task"]["assignment_id"]
            routes = Route(token, assignment, ws.admin_token())
            before, started = _rss_mb(proc.pid), time.monotonic()

            @settings(max_examples=EXAMPLES, deadline=None, database=None, phases=(Phase.explicit, Phase.generate),
                      suppress_health_check=list(HealthCheck))
            @given(request=routes.requests(), query=routes.queries(), headers=routes.headers(), body=routes.bodies())
            def probe(request: tuple[str, str], query: str, headers: dict[str, str], body: bytes) -> None:
                if time.monotonic() - started > BUDGET_S:
                    return
                method, path = request
                response = client.request(method, url + path + query, headers=headers, content=body or None)
                answers.append(response.status_code)
                assert response.status_code < 500, (method, path + query, headers, body[:200], response.text[:500])

            probe()
            health = client.get(f"{url}/healthz").json()
            grown = _rss_mb(proc.pid) - before
    finally:
        proc.kill()
        proc.wait(10)
    assert len(answers) >= 100, len(answers)
    assert health["loop_lag_ms"]["worst_busy_last_minute"] <= BUDGET_MS, health
    assert grown < MEMORY_MB, grown
