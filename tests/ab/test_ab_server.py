"""The rating server over real HTTP: watch lock, idempotency, concurrency, isolation, Range, admin, QC."""

from __future__ import annotations

import hashlib
import sqlite3
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from support.ab_study import full_watch, invite, make_study, rate_until_done, running_server, submit, take_task, valid_form
from reeljudge.ab.study.assignment import GoldSlots, QCOptions, side_swap


@pytest.fixture
def study(tmp_path):
    return make_study(tmp_path, n_pairs=3)


def test_submit_is_refused_until_both_clips_were_played_fully_twice(study):
    token = invite(study, "ann")
    with running_server(study) as url, httpx.Client() as client:
        watch = full_watch(2)
        watch["log"] = [e for e in watch["log"] if not (e["side"] == "B" and e.get("value") == 2)]  # B played fully once
        response = submit(client, url, token, watch=watch)
        assert response.status_code == 422
        assert (response.json()["violations"]
                == [{"field": "watch", "message": "Play clip B to the end 2 times before submitting (so far 1)."}])
        assert submit(client, url, token, watch={"log": []}).status_code == 422
    assert study.store.judgements() == []


def test_a_broken_form_stores_nothing(study):
    token = invite(study, "ann")
    form = valid_form("tie", primary="flicker")
    form["ratings"]["A"]["edit_precision"] = 3
    with running_server(study) as url, httpx.Client() as client:
        response = submit(client, url, token, form=form)
    fields = {v["field"] for v in response.json()["violations"]}
    assert response.status_code == 422 and {"primary_tag", "ratings.A.edit_precision"} <= fields
    assert study.store.judgements() == []


def test_duplicate_submit_is_idempotent_even_when_concurrent(study):
    token = invite(study, "ann")
    with running_server(study) as url, httpx.Client() as client:
        task, watch = take_task(client, url, token)
        body = {"assignment_id": task["assignment_id"], "submission_id": "dup-0001", "form": valid_form("A"), "watch": watch}
        with ThreadPoolExecutor(8) as pool:
            responses = list(pool.map(lambda _: client.post(f"{url}/api/r/{token}/submit", json=body), range(8)))
        again = client.post(f"{url}/api/r/{token}/submit", json=body)
        other = client.post(f"{url}/api/r/{token}/submit", json={**body, "submission_id": "dup-0002"})
    assert all(r.status_code == 200 for r in responses) and again.status_code == 200
    ids = {r.json()["record_id"] for r in responses} | {again.json()["record_id"]}
    assert len(ids) == 1 and sum(r.json()["stored"] for r in responses) == 1 and again.json()["duplicate"] is True
    assert other.status_code == 409  # a different submission for a task already judged
    assert len(study.store.judgements()) == 1


def test_eight_raters_submitting_concurrently_lose_nothing(tmp_path):
    ws = make_study(tmp_path, n_pairs=8)
    tokens = {f"rater{i}": invite(ws, f"rater{i}") for i in range(8)}

    with running_server(ws) as url, ThreadPoolExecutor(8) as pool:
        acknowledged = [rid for batch in pool.map(lambda item: rate_until_done(url, *item), tokens.items()) for rid in batch]
    records = ws.store.judgements()
    assert sorted(acknowledged) == sorted(r["record_id"] for r in records)
    per_sample = {}
    for r in records:
        per_sample.setdefault(r["sample_id"], []).append(r["rater"]["id"])
    assert len(per_sample) == 8 and all(len(v) == 2 == len(set(v)) for v in per_sample.values())


def test_a_raters_link_cannot_read_or_write_another_raters_work(study):
    ann, bob = invite(study, "ann"), invite(study, "bob")
    with running_server(study) as url, httpx.Client() as client:
        task, watch = take_task(client, url, ann)
        stolen = task["clips"]["A"]["url"].replace(ann, bob)
        assert client.get(url + stolen).status_code == 404
        body = {"assignment_id": task["assignment_id"], "submission_id": "bob-steals-1", "form": valid_form("B"), "watch": watch}
        assert client.post(f"{url}/api/r/{bob}/submit", json=body).status_code == 404
        assert client.post(f"{url}/api/r/not-a-token/submit", json=body).status_code == 404
        assert client.get(f"{url}/r/not-a-token").status_code == 404
        assert client.post(f"{url}/api/r/{ann}/submit", json={**body, "submission_id": "ann-own-1"}).status_code == 200
        assert client.get(f"{url}/api/r/{bob}/mine").json()["records"] == []
        mine = client.get(f"{url}/api/r/{ann}/mine").json()["records"]
    stored = study.store.judgements()
    assert [r["record_id"] for r in mine] == [r["record_id"] for r in stored] and [r["rater"]["id"] for r in stored] == ["ann"]


def test_clips_are_served_with_http_range(study):
    token = invite(study, "ann")
    with running_server(study) as url, httpx.Client() as client:
        task = client.get(f"{url}/api/r/{token}/task").json()["task"]
        whole = client.get(url + task["clips"]["B"]["url"])
        part = client.get(url + task["clips"]["B"]["url"], headers={"Range": "bytes=100-1099"})
        tail = client.get(url + task["clips"]["B"]["url"], headers={"Range": "bytes=-50"})
    assert whole.headers["accept-ranges"] == "bytes" and whole.headers["content-type"] == "video/mp4"
    assert part.status_code == 206 and part.content == whole.content[100:1100]
    assert part.headers["content-range"] == f"bytes 100-1099/{len(whole.content)}"
    assert tail.status_code == 206 and tail.content == whole.content[-50:]


def test_sides_follow_the_stored_seed_and_records_map_back_to_systems(tmp_path):
    ws = make_study(tmp_path, n_pairs=1)
    ws.store.set_meta_once("side_seed", "fixed-seed-for-test")
    sample = ws.store.samples()[0]
    raters = [f"r{i}" for i in range(10)]
    swaps = {r: side_swap("fixed-seed-for-test", sample.sample_id, r) for r in raters}
    assert set(swaps.values()) == {True, False}
    with running_server(ws, QCOptions(min_raters=10, max_raters=10, gold_every=0)) as url, httpx.Client() as client:
        for rater in raters:
            token = invite(ws, rater)
            task, watch = take_task(client, url, token)
            expected_a = sample.system_b if swaps[rater] else sample.system_a
            served = hashlib.sha256(client.get(url + task["clips"]["A"]["url"]).content).hexdigest()
            assert served == sample.clip_of(expected_a)
            assert expected_a not in str(task)  # system names are never sent to the page
            body = {"assignment_id": task["assignment_id"], "submission_id": f"sub-{rater}-0001",
                    "form": valid_form("A"), "watch": watch}
            assert client.post(f"{url}/api/r/{token}/submit", json=body).status_code == 200
    for record in ws.store.judgements():
        expected_a = sample.system_b if swaps[record["rater"]["id"]] else sample.system_a
        assert record["shown"]["A"] == {"system": expected_a, "clip": sample.clip_of(expected_a)}
        assert record["winner"] == expected_a and record["ratings"][expected_a]["prompt_adherence"] == 5


def test_disagreement_sends_the_sample_to_a_third_rater_and_the_admin_sees_it(study):
    ann, bob, cat = invite(study, "ann"), invite(study, "bob"), invite(study, "cat")
    with running_server(study) as url, httpx.Client() as client:
        assert submit(client, url, ann, winner="tie").status_code == 200
        first = study.store.judgements()[0]["sample_id"]
        assert submit(client, url, bob, winner="A").status_code == 200
        assert study.store.judgements()[1]["sample_id"] == first  # bob completes ann's sample first
        admin = study.admin_token()
        assert client.get(f"{url}/admin/api/status").status_code == 401
        status = client.get(f"{url}/admin/api/status", headers={"Authorization": f"Bearer {admin}"}).json()
        assert [q["sample_id"] for q in status["third_rater_queue"]] == [first]
        page = client.get(f"{url}/admin?token={admin}", follow_redirects=True)
        assert page.status_code == 200 and first in page.text and "needs a third rater" in page.text
        assert "token=" not in str(page.url)
        third = client.get(f"{url}/api/r/{cat}/task").json()["task"]
        assert submit(client, url, cat, winner="tie").status_code == 200
        assert study.store.judgements()[2]["sample_id"] == first
        status = client.get(f"{url}/admin/api/status", headers={"Authorization": f"Bearer {admin}"}).json()
        assert status["third_rater_queue"] == [] and third is not None


def test_exports_need_the_admin_token(study):
    ann = invite(study, "ann")
    with running_server(study) as url, httpx.Client() as client:
        submit(client, url, ann, winner="B")
        assert client.get(f"{url}/admin/export.jsonl").status_code == 401
        assert client.get(f"{url}/admin/export.csv", headers={"Authorization": "Bearer wrong"}).status_code == 401
        auth = {"Authorization": f"Bearer {study.admin_token()}"}
        jsonl = client.get(f"{url}/admin/export.jsonl", headers=auth).text.splitlines()
        csv_text = client.get(f"{url}/admin/export.csv", headers=auth).text.splitlines()
    assert len(jsonl) == 1 and '"winner_side": "B"' in jsonl[0]
    assert csv_text[0].startswith("record_id,sample_id,family") and len(csv_text) == 2


def test_gold_pairs_are_mixed_in_and_scored(tmp_path):
    ws = make_study(tmp_path, n_pairs=3, gold=1)
    token = invite(ws, "ann")
    with running_server(ws, QCOptions(gold_every=2)) as url, httpx.Client() as client:
        for _ in range(2):
            assert submit(client, url, token, winner="A").status_code == 200
        status = client.get(f"{url}/admin/api/status", headers={"Authorization": f"Bearer {ws.admin_token()}"}).json()
    gold = [s for s in ws.store.samples() if s.kind == "gold"][0]
    records = ws.store.judgements()
    slots = GoldSlots(ws.store.meta("side_seed"), "ann", 2)
    place = next(i for i in (0, 1) if slots.due(i))  # one gold in the first block of two tasks, at the place drawn for it
    assert records[place]["sample_id"] == gold.sample_id and records[1 - place]["sample_id"] != gold.sample_id
    correct = records[place]["winner"] == "gold-clean"
    assert status["raters"][0]["gold"]["answered"] == 1 and status["raters"][0]["gold"]["correct"] == int(correct)


def test_judgements_are_append_only(study):
    token = invite(study, "ann")
    with running_server(study) as url, httpx.Client() as client:
        submit(client, url, token)
    conn = sqlite3.connect(study.store.path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    for sql in ("UPDATE judgements SET winner = 'x'", "DELETE FROM judgements"):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(sql)
    assert len(study.store.judgements()) == 1
