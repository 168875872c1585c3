"""The rating server against a hostile rater (issue 19): each test replays one finding over real HTTP."""

from __future__ import annotations

import csv
import io
import json
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from support.ab_study import (CLIP_S, full_watch, invite, make_study, min_seconds, raw_post, running_server, submit,
                              take_task, valid_form, watch_task)
from reeljudge.ab.study.assignment import QCOptions
from reeljudge.cli import main

SECRETS_OF_THE_STUDY = ("sys-x", "sys-y", "gold", "expected", "clean vs")


@pytest.fixture
def study(tmp_path):
    return make_study(tmp_path, n_pairs=2)


def _strict(line: str) -> dict:
    def refuse(name: str) -> None:
        raise ValueError(f"{name} is not JSON")

    return json.loads(line, parse_constant=refuse)


def test_made_up_full_plays_without_the_clips_are_refused(tmp_path):
    """Finding 1: four invented full_play events 9 ms after the task, no clip ever requested, were stored."""
    study = make_study(tmp_path, n_pairs=2, frames=24)  # 1 s clips: an honest page's 1 s open is well short of 2 s at 1×
    token = invite(study, "ann")
    with running_server(study) as url, httpx.Client() as client:
        task = client.get(f"{url}/api/r/{token}/task").json()["task"]
        body = {"assignment_id": task["assignment_id"], "submission_id": "forged-0001",
                "form": valid_form("A"), "watch": full_watch(seconds=1.0)}
        forged = client.post(f"{url}/api/r/{token}/submit", json=body)
        client.get(url + task["clips"]["A"]["url"], headers={"Range": "bytes=0-99"})  # a peek at the first bytes
        client.get(url + task["clips"]["B"]["url"])
        peeked = client.post(f"{url}/api/r/{token}/submit", json=body)
        watch_task(client, url, task, time.monotonic())
        honest = client.post(f"{url}/api/r/{token}/submit", json=body)
        status = client.get(f"{url}/admin/api/status", headers={"Authorization": f"Bearer {study.admin_token()}"}).json()
    assert status["raters"][0]["thin_evidence"] == 1  # the coordinator sees it on the dashboard
    messages = [v["message"] for v in forged.json()["violations"]]
    assert forged.status_code == 422 and len(messages) == 3, messages
    assert messages[0].startswith("Clip A has not been loaded in full from the server for this task (0 of ")
    assert "at up to 2× takes at least 1.0 s" in messages[2]
    size_a = study.store.clip(study.store.samples()[0].clip_a).bytes
    assert peeked.status_code == 422 and [v["message"] for v in peeked.json()["violations"]][0].startswith(
        "Clip A has not been loaded in full from the server for this task (100 of ")
    assert honest.status_code == 200, honest.text
    [record] = study.store.judgements()
    server = record["watch"]["server"]
    assert (server["served"]["A"]["sent"] == server["served"]["A"]["bytes"] > 0
            and server["elapsed_s"] >= server["min_elapsed_s"] == 1.0)
    assert server["thin"] and "real-time viewing at 1×" in server["thin"][0]  # 1 s open < 2 plays × 1 s at 1×
    assert size_a > 100


def test_large_bodies_are_refused_before_they_are_read(study):
    """Finding 2: a 256 MB POST with a bogus token was read whole (51 → 573 MB) before its 413."""
    with running_server(study) as url, ThreadPoolExecutor(4) as pool:
        port = int(url.rsplit(":", 1)[1])
        declared = list(pool.map(lambda _: raw_post(port, "/api/r/bogus/submit", 128 << 20), range(4)))
        streamed = list(pool.map(lambda _: raw_post(port, "/api/r/bogus/submit", 128 << 20, chunked=True), range(4)))
        alive = httpx.get(url + "/healthz").status_code
    # declared too large: answered at once, without waiting for the 128 MB (a client still sending when the
    # server closes may see the connection reset before it reads the 413: TCP drops unread data on close)
    too_large = "HTTP/1.1 413 Request Entity Too Large"
    assert {status for status, _ in declared} <= {too_large, ""} and too_large in {status for status, _ in declared}, declared
    assert all(sent < 32 << 20 for _, sent in declared), declared
    # no length declared: the token is checked before the body is read (404), or the server stops reading at the cap
    assert all(status.startswith(("HTTP/1.1 413", "HTTP/1.1 404")) or status == "" for status, _ in streamed), streamed
    assert all(sent < 32 << 20 for _, sent in streamed), streamed
    assert alive == 200


def test_deeply_nested_json_is_a_400_not_a_500(study):
    """Finding 4: JSON nested 2,000 levels deep (4 KB) gave a 500 and a RecursionError traceback."""
    token = invite(study, "ann")
    with running_server(study) as url, httpx.Client() as client:
        deep = client.post(f"{url}/api/r/{token}/submit", content=b'{"a":' + b"[" * 2000 + b"]" * 2000 + b"}")
        moderate = client.post(f"{url}/api/r/{token}/submit",
                               content=json.dumps({"form": {"note": [[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]}}))
    assert deep.status_code == 400 and "nests deeper than 16 levels" in deep.json()["error"]
    assert moderate.status_code == 400 and "nests deeper" in moderate.json()["error"]


def test_csv_exports_neutralise_formulas_and_jsonl_is_strict(study, tmp_path):
    """Finding 5: notes beginning with = + - @ reached the CSV unchanged (formula injection)."""
    notes = ["=HYPERLINK(\"http://evil\",\"x\")", "+1+1", "-2+3", "@SUM(A1)", "\tTab", "\rCR"]
    raters = [f"r{i}" for i in range(len(notes))]
    ws = make_study(tmp_path / "big", n_pairs=3)
    tokens = {r: invite(ws, r) for r in raters}
    with running_server(ws) as url, httpx.Client() as client:
        for rater, note in zip(raters, notes):
            form = {**valid_form("A"), "note": note}
            response = submit(client, url, tokens[rater], form=form)
            assert response.status_code == 200, response.text
        auth = {"Authorization": f"Bearer {ws.admin_token()}"}
        served_csv = client.get(f"{url}/admin/export.csv", headers=auth).text
        served_jsonl = client.get(f"{url}/admin/export.jsonl", headers=auth).text
    assert main(["ab", "export", "--data", str(ws.root), "--format", "csv", "-o", str(tmp_path / "j.csv")]) == 0
    for text in (served_csv, (tmp_path / "j.csv").read_bytes().decode("utf-8")):
        rows = list(csv.DictReader(io.StringIO(text, newline="")))
        # a carriage return is a control character: written as a visible escape, which no spreadsheet reads as a formula
        assert sorted(row["note"] for row in rows) == sorted("\\u000dCR" if n == "\rCR" else "'" + n for n in notes)
    assert sorted(_strict(line)["note"] for line in served_jsonl.splitlines()) == sorted(notes)


def test_watch_log_numbers_must_be_finite_and_within_the_clip(study, tmp_path):
    """Finding 6: Infinity was stored in the watch log, and the JSONL export then held a bare Infinity."""
    token = invite(study, "ann")
    with running_server(study) as url, httpx.Client() as client:
        task, watch = take_task(client, url, token)
        base = {"assignment_id": task["assignment_id"], "submission_id": "inf-0001", "form": valid_form("A")}
        text = json.dumps({**base,
                           "watch": {"log": [*watch["log"], {"side": "A", "event": "seek", "t": float("inf"), "at_ms": 5}]}})
        infinite = client.post(f"{url}/api/r/{token}/submit", content=text.encode())
        beyond = {**base, "watch": {"log": [*watch["log"], {"side": "A", "event": "seek", "t": 3600, "at_ms": 5}]}}
        past_end = client.post(f"{url}/api/r/{token}/submit", json=beyond)
        fine = client.post(f"{url}/api/r/{token}/submit", json={**base, "watch": watch})
    assert "Infinity" in text and infinite.status_code == 400 and "Infinity is not a JSON number" in infinite.json()["error"]
    assert past_end.status_code == 422
    assert "watch log event 5: t = 3600 s" in past_end.json()["violations"][0]["message"]
    assert fine.status_code == 200
    assert main(["ab", "export", "--data", str(study.root), "-o", str(tmp_path / "j.jsonl")]) == 0
    assert [_strict(line)["submission_id"] for line in (tmp_path / "j.jsonl").read_text().splitlines()] == ["inf-0001"]


def test_another_raters_submission_id_is_a_409_not_a_silent_drop(study):
    """Finding 7: bob reusing ann's submission_id got 200 "duplicate" with ann's record id; his verdict was lost."""
    ann, bob = invite(study, "ann"), invite(study, "bob")
    with running_server(study) as url, httpx.Client() as client:
        assert submit(client, url, ann, submission_id="shared-id-0001").status_code == 200
        task, watch = take_task(client, url, bob)
        body = {"assignment_id": task["assignment_id"], "submission_id": "shared-id-0001",
                "form": valid_form("B"), "watch": watch}
        reused = client.post(f"{url}/api/r/{bob}/submit", json=body)
        still_open = client.get(f"{url}/api/r/{bob}/task").json()["task"]["assignment_id"]
        fresh = client.post(f"{url}/api/r/{bob}/submit", json={**body, "submission_id": "bob-own-0001"})
    assert reused.status_code == 409 and "already names another record" in reused.json()["error"]
    assert still_open == task["assignment_id"]
    assert fresh.status_code == 200 and fresh.json()["stored"] is True
    assert sorted(r["rater"]["id"] for r in study.store.judgements()) == ["ann", "bob"]


def test_nothing_a_rater_can_request_names_a_system_or_marks_gold(tmp_path):
    """Finding 8: /api/r/<token>/mine showed which system was on each side, and so which tasks were gold."""
    ws = make_study(tmp_path, n_pairs=2, gold=2)
    token = invite(ws, "ann")
    seen: list[str] = []
    with running_server(ws, QCOptions(gold_every=2)) as url, httpx.Client() as client:
        for path in (f"/r/{token}", "/static/rater.js", "/static/rater.css", "/", "/r/not-a-token", f"/api/r/{token}/mine"):
            response = client.get(url + path)
            seen.append(response.text + str(dict(response.headers)))
        for _ in range(4):
            task, watch = take_task(client, url, token)
            seen.append(json.dumps(task))
            for side in ("A", "B"):
                seen.append(str(dict(client.get(url + task["clips"][side]["url"], headers={"Range": "bytes=0-9"}).headers)))
            body = {"assignment_id": task["assignment_id"], "submission_id": f"ann-{task['assignment_id']}",
                    "form": valid_form("B"), "watch": watch}
            seen.append(client.post(f"{url}/api/r/{token}/submit", json={**body, "form": {}}).text)
            seen.append(client.post(f"{url}/api/r/{token}/submit", json=body).text)
            seen.append(client.post(f"{url}/api/r/{token}/submit", json={**body, "submission_id": "second-try-01"}).text)
        seen.append(client.get(f"{url}/api/r/{token}/mine").text)
        seen.append(client.get(f"{url}/api/r/{token}/task").text)
    kinds = [ws.store.sample(r["sample_id"]).kind for r in ws.store.judgements()]
    assert kinds.count("gold") == 2 and kinds.count("pair") == 2  # the rater did meet gold pairs
    sample_ids = [s.sample_id for s in ws.store.samples()]
    for text in seen:
        lowered = text.lower()
        assert not [w for w in SECRETS_OF_THE_STUDY if w in lowered], text[:2000]
        assert not [s for s in sample_ids if s in text]
    mine = json.loads(seen[-2])["records"]
    assert len(mine) == 4 and {r["winner"] for r in mine} == {"B"} and set(mine[0]["ratings"]) == {"A", "B"}


@pytest.mark.parametrize("command",
                         [["report"], ["status"], ["export"], ["invite", "ann"],
                          ["serve", "--port", "1"], ["judge"]], ids=lambda c: c[0])
def test_a_mistyped_data_folder_is_an_error_naming_it(tmp_path, capsys, command):
    """Finding 9: a mistyped --data silently created an empty study; report, status, judge exited 0 with 0 samples."""
    missing = tmp_path / "studdy"
    assert main(["ab", command[0], "--data", str(missing), *command[1:]]) == 2
    assert f"--data {missing}: no A/B study there (no ab.sqlite)" in capsys.readouterr().err
    assert not missing.exists()


def test_the_commands_that_create_a_study_still_do(tmp_path):
    assert main(["ab", "gold", "--data", str(tmp_path / "new"), "--count", "1", "--frames", "6"]) == 0
    assert main(["ab", "status", "--data", str(tmp_path / "new")]) == 0


def test_min_seconds_follows_the_longer_clip(study):
    token = invite(study, "ann")
    with running_server(study) as url, httpx.Client() as client:
        task = client.get(f"{url}/api/r/{token}/task").json()["task"]
    assert task["max_speed"] == 2.0 and min_seconds(task) == pytest.approx(task["min_full_plays"] * CLIP_S / 2.0)
