"""The rating server keeps every honest rater moving (issue 39): one test per finding, each failing on the server before.

Every test replays its finding over real HTTP on 127.0.0.1, bounded in requests and time; what the
store decides runs on both stores, SQLite and the embedded PostgreSQL.
"""

from __future__ import annotations

import time

import httpx
import pytest

from support.ab_study import invite, make_study, running_server, take_task, valid_form
from reeljudge.ab.assignment import QCOptions, assignment_by_id


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request) -> str | None:
    """None for the study's SQLite file, else the URL of a new, empty PostgreSQL database (the root conftest's)."""
    if request.param == "sqlite":
        return None
    return request.getfixturevalue("postgres_database")


def _verdict_for(ws, task: dict, system: str) -> dict:
    """A valid form whose winner is the side that shows ``system`` in this task."""
    shown = assignment_by_id(ws.store, task["assignment_id"]).shown
    return valid_form("A" if shown["A"] == system else "B")


@pytest.mark.parametrize("others", ["agree", "disagree"])
def test_a_rater_whose_hold_expired_and_whose_pair_was_rated_by_others_moves_on(tmp_path, engine, others):
    """Finding: after the late submit's 409, every /task handed back the same dead task, forever; when the two raters the
    pair was re-issued to disagreed, the late record was stored instead (PostgreSQL, 3 of 5 runs; it followed the sides)."""
    ws = make_study(tmp_path, n_pairs=2, database=engine)
    ann, bob, carol = (invite(ws, name) for name in ("ann", "bob", "carol"))
    qc = QCOptions(gold_every=0, assignment_ttl_s=2.0)
    with running_server(ws, qc) as url, httpx.Client(timeout=30) as client:
        late_task, late_watch = take_task(client, url, ann)
        time.sleep(2.1)  # ann's hold expires: the pair is free again, and goes to bob and carol
        for name, token, system in (("bob", bob, "sys-x"), ("carol", carol, "sys-x" if others == "agree" else "sys-y")):
            task, watch = take_task(client, url, token)
            assert task["prompt"] == late_task["prompt"]
            body = {"assignment_id": task["assignment_id"], "submission_id": f"{name}-0001", "form": _verdict_for(ws, task, system), "watch": watch}
            assert client.post(f"{url}/api/r/{token}/submit", json=body).status_code == 200
        late = client.post(f"{url}/api/r/{ann}/submit", json={
            "assignment_id": late_task["assignment_id"], "submission_id": "ann-0001", "form": valid_form("B"), "watch": late_watch})
        after = [client.get(f"{url}/api/r/{ann}/task").json() for _ in range(3)]
    assert late.status_code == 409, late.text
    assert sorted(r["rater"]["id"] for r in ws.store.judgements()) == ["bob", "carol"]  # the late record never counts
    tasks = {body["task"]["assignment_id"] for body in after}
    assert len(tasks) == 1 and late_task["assignment_id"] not in tasks  # the next task, the same one on every reload
    assert after[0]["task"]["prompt"] != late_task["prompt"]
    assert late.json()["withdrawn"] is True and "nothing was stored" in late.json()["error"]  # the page moves on by itself
    assert [body["notice"] for body in after] == [None] * 3  # the 409 said why; the page is not told twice


def test_a_rater_who_comes_back_after_the_hold_expired_gets_the_next_task_and_is_told_why_once(tmp_path, engine):
    """Finding: a rater back from a break (the page asks for breaks) got the dead task again; `ab invite` did not help."""
    ws = make_study(tmp_path, n_pairs=2, database=engine)
    ann, bob, carol = (invite(ws, name) for name in ("ann", "bob", "carol"))
    qc = QCOptions(gold_every=0, assignment_ttl_s=2.0)
    with running_server(ws, qc) as url, httpx.Client(timeout=30) as client:
        first = client.get(f"{url}/api/r/{ann}/task").json()["task"]
        time.sleep(2.1)
        bob_task = client.get(f"{url}/api/r/{bob}/task").json()["task"]  # the pair is re-issued; bob holds it now
        back = [client.get(f"{url}/api/r/{ann}/task").json() for _ in range(3)]
        carol_task = client.get(f"{url}/api/r/{carol}/task").json()["task"]
        progress = back[-1]["progress"]
    assert bob_task["prompt"] == first["prompt"]
    assert back[0]["task"]["assignment_id"] != first["assignment_id"] and back[0]["task"]["prompt"] != first["prompt"]
    assert "Your previous task was withdrawn" in back[0]["notice"] and "held for you for 2 s" in back[0]["notice"]
    assert [b["notice"] for b in back[1:]] == [None, None]  # once
    assert {b["task"]["assignment_id"] for b in back} == {back[0]["task"]["assignment_id"]}
    assert progress == {"done": 0, "total": 1}  # the withdrawn task is not counted as open
    assert carol_task["prompt"] == first["prompt"]  # the pair still needs a second rater: carol, not ann again
