"""The rating server's store, evidence and blinding against a hostile rater (issue 28): one test per attack.

Each test replays one finding over real HTTP on 127.0.0.1, bounded in requests and time. The
evidence attacks run on both stores: SQLite and the embedded PostgreSQL server.
"""

from __future__ import annotations

import csv
import io
import json
import time

import httpx
import pytest

from support.ab_study import (CLIP_S, FRAMES, HOLD_S, full_watch, hand_out, invite, make_study, min_seconds, running_server,
                              take_task, valid_form, watch_task)
from reeljudge.ab.study.assignment import QCOptions
from reeljudge.ab.study.workspace import Workspace
from reeljudge.cli import main

# a NUL is refused at submit (a 422 naming the field: tests/ab/test_ab_hostile_edge.py); the other controls are stored
HOSTILE_NOTE = "ok\x01 \x1b[31mred\x1b[0m \u202egnp.exe\u202c \u2066x\u2069 \x07bell"
RAW_CONTROLS = ("\x00", "\x01", "\x1b", "\x07", "\u202e", "\u202c", "\u2066", "\u2069")


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request) -> str | None:
    """None for the study's SQLite file, else the URL of a new, empty PostgreSQL database (the root conftest's)."""
    if request.param == "sqlite":
        return None
    return request.getfixturevalue("postgres_database")


def evidence_rows(ws: Workspace) -> int:
    """Rows in the store's evidence tables (one per range before issue 28; one per task and clip after)."""
    total = 0
    for table in ("clip_serves", "clip_coverage"):
        try:
            total += ws.store.query(f"SELECT COUNT(*) FROM {table}")[0][0]
        except Exception:  # the table does not exist in this version of the store  # noqa: BLE001
            if ws.store.dialect.name == "postgresql":
                ws.store.close()  # a failed statement leaves nothing open in autocommit; reconnect to be sure
    return total


def test_a_range_flood_grows_the_store_by_tasks_and_clips_not_requests(tmp_path, engine):
    """Finding: every range of every request was a row (100 × 3,900 ranges: 400,000 rows, 40–49 MB)."""
    ws = make_study(tmp_path, n_pairs=1, database=engine)
    token = invite(ws, "ann")
    with running_server(ws) as url, httpx.Client(timeout=30) as client:
        task = client.get(f"{url}/api/r/{token}/task").json()["task"]
        same = "bytes=" + ",".join(["0-0"] * 16)  # as many ranges as a request may ask for, all one byte
        scattered = "bytes=" + ",".join(f"{2 * i}-{2 * i}" for i in range(16))  # disjoint one-byte ranges: nothing merges
        flood = "bytes=" + ",".join(["0-0"] * 3900)  # the finding's header: more ranges than allowed, a 416
        answers = [client.get(url + task["clips"]["A"]["url"], headers={"Range": header})
                   for header in (same, scattered, flood) * 10]
        client.get(url + task["clips"]["B"]["url"])
        time.sleep(min_seconds(task) + 0.05)
        answer = client.post(f"{url}/api/r/{token}/submit", json={
            "assignment_id": task["assignment_id"], "submission_id": "flood-0001",
            "form": valid_form("A"), "watch": full_watch()})
    assert [r.status_code for r in answers[:3]] == [206, 206, 416]
    assert len(answers[0].content) == 1 and answers[1].content.count(b"Content-Range") == 16
    assert evidence_rows(ws) <= 2  # one per clip of the task, whatever was asked
    assert answer.status_code == 422, answer.text  # a few bytes of A were sent, never the whole clip
    assert "Clip A has not been loaded in full" in answer.json()["violations"][0]["message"]


def test_a_head_request_proves_nothing(tmp_path, engine):
    """Finding: a HEAD on both clips (0 bytes sent) counted as "sent in full"; the submit was accepted."""
    ws = make_study(tmp_path, n_pairs=1, database=engine)
    token = invite(ws, "ann")
    with running_server(ws) as url, httpx.Client(timeout=30) as client:
        task = client.get(f"{url}/api/r/{token}/task").json()["task"]
        heads = [client.head(url + task["clips"][side]["url"]) for side in ("A", "B")]
        time.sleep(min_seconds(task) + 0.05)
        answer = client.post(f"{url}/api/r/{token}/submit", json={
            "assignment_id": task["assignment_id"], "submission_id": "head-0001", "form": valid_form("A"), "watch": full_watch()})
    assert [h.status_code for h in heads] == [200, 200] and all(h.content == b"" for h in heads)
    assert answer.status_code == 422, answer.text
    messages = [v["message"] for v in answer.json()["violations"]]
    assert messages[0].startswith("Clip A has not been loaded in full from the server for this task (0 of "), messages
    assert ws.store.judgements() == []


def test_a_submit_after_the_hold_expired_and_the_sample_was_reissued_is_a_409(tmp_path, engine):
    """Finding: ann's late submit was stored beside the two raters the sample was re-issued to: three records,
    and the sample never reached the third-rater queue."""
    ws = make_study(tmp_path, n_pairs=1, database=engine)
    ann, bob, carol = (invite(ws, name) for name in ("ann", "bob", "carol"))
    qc = QCOptions(gold_every=0, assignment_ttl_s=HOLD_S)
    with running_server(ws, qc) as url, httpx.Client(timeout=30) as client:
        late_task, handed_out = hand_out(client, url, ann)
        late_watch = watch_task(client, url, late_task, handed_out)
        time.sleep(max(0.0, handed_out + HOLD_S + 0.1 - time.monotonic()))  # ann's hold expires: the sample is free again
        for name, token in (("bob", bob), ("carol", carol)):
            task, watch = take_task(client, url, token)
            body = {"assignment_id": task["assignment_id"], "submission_id": f"{name}-0001",
                    "form": valid_form("tie"), "watch": watch}
            assert client.post(f"{url}/api/r/{token}/submit", json=body).status_code == 200  # they agree: the sample is complete
        late = client.post(f"{url}/api/r/{ann}/submit", json={
            "assignment_id": late_task["assignment_id"], "submission_id": "ann-0001",
            "form": valid_form("B"), "watch": late_watch})
    assert late.status_code == 409, late.text
    assert f"held for you for {HOLD_S:g} s" in late.json()["error"] and "nothing was stored" in late.json()["error"]
    assert sorted(r["rater"]["id"] for r in ws.store.judgements()) == ["bob", "carol"]


def test_clip_responses_carry_no_validator_that_tells_the_sides_apart(tmp_path):
    """Finding: ETag was an md5 of the file's mtime and Last-Modified was sent; the import wrote clip_a first."""
    ws = make_study(tmp_path, n_pairs=2)
    token = invite(ws, "ann")
    with running_server(ws) as url, httpx.Client(timeout=30) as client:
        task = client.get(f"{url}/api/r/{token}/task").json()["task"]
        responses = [client.get(url + task["clips"][side]["url"], headers=headers)
                     for side in ("A", "B") for headers in ({}, {"Range": "bytes=0-9"}, {"Range": "bytes=0-1,5-9"})]
        revalidated = client.get(url + task["clips"]["A"]["url"], headers={"Range": "bytes=0-9", "If-Range": "\"x\""})
        huge = client.get(url + task["clips"]["A"]["url"], headers={"Range": "bytes=0-" + "9" * 5000})
        many = client.get(url + task["clips"]["A"]["url"],
                          headers={"Range": "bytes=" + ",".join(f"{3 * i}-{3 * i}" for i in range(40))})
    assert [r.status_code for r in responses] == [200, 206, 206] * 2
    for r in responses:
        assert "last-modified" not in r.headers and "etag" not in r.headers, dict(r.headers)
        assert r.headers["cache-control"] == "no-store"
    assert revalidated.status_code == 200  # an If-Range can never match: the whole clip, never a stale piece
    # was a 500 (the parser decides which)
    assert huge.status_code in (206, 416) and huge.headers["content-range"].startswith("bytes ")
    assert many.status_code == 416 and many.headers["content-range"].startswith("bytes */")  # 40 ranges: more than MAX_RANGES


def test_imported_clips_are_written_in_content_order_with_one_file_time(tmp_path):
    """Finding: the import copied clip_a (system_a) first, so "earlier mtime = system_a" held in 6 of 6 tasks."""
    ws = make_study(tmp_path, n_pairs=3, gold=2)
    files = sorted(ws.clips.root.iterdir(), key=lambda p: p.stat().st_ctime_ns)
    assert len(files) == 10
    assert len({p.stat().st_mtime_ns for p in files}) == 1  # no clip's time says when, or in which order, it came
    pairs = [s for s in ws.store.samples() if s.kind == "pair"]
    written = [p.name.split(".")[0] for p in files[:6]]
    assert written == sorted(written)  # in the order of content hashes, not of systems or sides
    assert {p.name.split(".")[0] for p in files[:6]} == {c for s in pairs for c in (s.clip_a, s.clip_b)}


def test_gold_pairs_borrow_the_studys_prompts_and_a_late_rater_is_never_given_only_gold(tmp_path):
    """Finding: gold pairs shared one fixed prompt, and a rater invited after the pairs were rated got only gold.
    (Issue 39: each gold pair draws its own prompt. Issue 46: from the study's own tasks, never a prompt of another kind.)"""
    ws = make_study(tmp_path, n_pairs=2)
    assert main(["ab", "gold", "--data", str(ws.root), "--count", "2", "--frames", str(FRAMES)]) == 0
    samples = ws.store.samples()
    prompts = {s.prompt for s in samples if s.kind == "pair"}
    gold = [s for s in samples if s.kind == "gold"]
    assert len(gold) == 2 and {s.prompt for s in gold} == prompts
    tokens = {name: invite(ws, name) for name in ("ann", "bob", "late")}
    kinds: dict[str, list[str]] = {}
    with running_server(ws, QCOptions(gold_every=2)) as url, httpx.Client(timeout=30) as client:
        for name in ("ann", "bob", "late"):
            for _ in range(6):
                task, watch = take_task(client, url, tokens[name])
                if task is None:
                    break
                body = {"assignment_id": task["assignment_id"], "submission_id": f"{name}-{task['assignment_id']}",
                        "form": valid_form("tie"), "watch": watch}  # ann and bob agree: no third rater is needed
                assert client.post(f"{url}/api/r/{tokens[name]}/submit", json=body).status_code == 200
    for r in ws.store.judgements():
        kinds.setdefault(r["rater"]["id"], []).append(ws.store.sample(r["sample_id"]).kind)
    assert "late" not in kinds, kinds  # the pairs were taken: nothing to interleave gold with, so no task at all
    for name in ("ann", "bob"):
        assert kinds[name].count("pair") == 2 and 1 <= kinds[name].count("gold") <= 2, kinds


def test_control_and_bidi_characters_never_reach_an_export_or_the_report_raw(tmp_path):
    """Finding: NUL, ESC sequences and U+202E in a note passed raw into both CSVs and the HTML report."""
    ws = make_study(tmp_path, n_pairs=2)
    token = invite(ws, "ann")
    with running_server(ws) as url, httpx.Client(timeout=30) as client:
        task, watch = take_task(client, url, token)
        form = {**valid_form("A"), "note": HOSTILE_NOTE}
        body = {"assignment_id": task["assignment_id"], "submission_id": "note-0001", "form": form, "watch": watch}
        assert client.post(f"{url}/api/r/{token}/submit", json=body).status_code == 200
        auth = {"Authorization": f"Bearer {ws.admin_token()}"}
        served = {"csv": client.get(f"{url}/admin/export.csv", headers=auth).text,
                  "jsonl": client.get(f"{url}/admin/export.jsonl", headers=auth).text}
    assert main(["ab", "export", "--data", str(ws.root), "--format", "csv", "-o", str(tmp_path / "j.csv")]) == 0
    assert main(["ab", "export", "--data", str(ws.root), "-o", str(tmp_path / "j.jsonl")]) == 0
    assert main(["ab", "report", "--data", str(ws.root), "--resamples", "10"]) == 0
    texts = {**served, "cli csv": (tmp_path / "j.csv").read_text(encoding="utf-8"),
             "cli jsonl": (tmp_path / "j.jsonl").read_text(encoding="utf-8"),
             "html": (ws.root / "report" / "report.html").read_text(encoding="utf-8")}
    for name, text in texts.items():
        assert not [c for c in RAW_CONTROLS if c in text], name
    for text in (texts["csv"], texts["cli csv"]):
        [row] = list(csv.DictReader(io.StringIO(text, newline="")))
        assert row["note"].startswith("ok") and "gnp.exe" in row["note"] and "red" in row["note"]
    assert json.loads(texts["cli jsonl"])["note"] == HOSTILE_NOTE  # the JSONL keeps the text exactly, as escapes
    assert "gnp.exe" in texts["html"]


def test_watch_events_that_do_not_fit_the_page_or_the_clip_are_flagged(tmp_path):
    """Finding: rate events above the page's 2× limit and full plays shorter than the clip were stored unflagged."""
    ws = make_study(tmp_path, n_pairs=2)
    ann, bob = invite(ws, "ann"), invite(ws, "bob")
    with running_server(ws) as url, httpx.Client(timeout=30) as client:
        for name, token in (("ann", ann), ("bob", bob)):
            task = client.get(f"{url}/api/r/{token}/task").json()["task"]
            watch = watch_task(client, url, task, time.monotonic())
            if name == "ann":  # 16× speed, and two "full plays" of a whole clip 10 ms apart
                watch["log"] += [{"side": "both", "event": "rate", "t": 0, "at_ms": 2100, "value": 16},
                                 {"side": "A", "event": "full_play", "t": CLIP_S, "at_ms": 2110, "value": 3},
                                 {"side": "A", "event": "full_play", "t": CLIP_S, "at_ms": 2120, "value": 4}]
            body = {"assignment_id": task["assignment_id"], "submission_id": f"{name}-0001",
                    "form": valid_form("A"), "watch": watch}
            assert client.post(f"{url}/api/r/{token}/submit", json=body).status_code == 200
        status = client.get(f"{url}/admin/api/status", headers={"Authorization": f"Bearer {ws.admin_token()}"}).json()
    by_rater = {r["rater"]["id"]: r["watch"]["server"]["thin"] for r in ws.store.judgements()}
    flags = [t for t in by_rater["ann"] if t.startswith("watch log")]
    assert any("rate 16× above the page's 2× limit" in t for t in flags), by_rater["ann"]
    assert any("full play of clip A" in t and "shorter than" in t for t in flags), by_rater["ann"]
    assert not [t for t in by_rater["bob"] if t.startswith("watch log")], by_rater["bob"]  # an honest page's log fits
    assert {r["rater"]: r["thin_evidence"] for r in status["raters"]}["ann"] == 1


def test_a_store_flooded_before_is_folded_into_one_row_per_task_and_clip(tmp_path, engine):
    """A version-1 store (a clip_serves row per range, as a flood left it) opens as version 2: its evidence folded
    into clip_coverage, the old table dropped, and a task's coverage what the rows said."""
    from reeljudge.ab.store.store import Store

    ws = make_study(tmp_path, n_pairs=1, database=engine)
    seq = "seq INTEGER PRIMARY KEY AUTOINCREMENT" if engine is None else "seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
    rows = ([("task1", "A", 0, 0)] * 500
            + [("task1", "A", 1, 99), ("task1", "B", 0, 9), ("task1", "B", 20, 29), ("task2", "A", 5, 5)])
    with ws.store.transaction() as db:  # what version 1 of the store held
        db.execute("DROP TABLE clip_coverage")
        db.execute(f"""CREATE TABLE clip_serves ({seq}, assignment_id TEXT NOT NULL, side TEXT NOT NULL,
                       first_byte BIGINT NOT NULL, last_byte BIGINT NOT NULL, served_at TEXT NOT NULL)""")
        for row in rows:
            db.execute("INSERT INTO clip_serves (assignment_id, side, first_byte, last_byte, served_at) "
                       "VALUES (?, ?, ?, ?, 'x')", row)
        db.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    store = Store(ws.store.location)
    assert store.meta("schema_version") == "3" and evidence_rows(Workspace(ws.root, database=engine)) == 3
    assert store.coverage("task1") == {"A": ([(0, 99)], 501), "B": ([(0, 9), (20, 29)], 2)}
    assert store.coverage("task2") == {"A": ([(5, 5)], 1)}


# Issue 46, item 4: bounded reads, sane numbers, line-safe exports ------------------------------------------------------


@pytest.mark.parametrize("field", ["t", "at_ms", "value"])
def test_a_watch_log_number_past_any_sane_size_is_a_422_on_both_stores(tmp_path, engine, field):
    """Finding: a 401-digit integer in a watch log was a 500 on SQLite and PostgreSQL (``float()`` overflowed), with a
    4.3 KB traceback and the connection dropped."""
    ws = make_study(tmp_path, n_pairs=1, database=engine)
    token = invite(ws, "ann")
    with running_server(ws) as url, httpx.Client(timeout=30) as client:
        task, watch = take_task(client, url, token)
        log = [dict(event) for event in watch["log"]]
        log[0][field] = 10**400
        body = {"assignment_id": task["assignment_id"], "submission_id": "huge-0001", "form": valid_form("A"),
                "watch": {"log": log}}
        refused = client.post(f"{url}/api/r/{token}/submit", json=body)
        honest = client.post(f"{url}/api/r/{token}/submit", json={**body, "watch": watch})
    assert refused.status_code == 422, refused.text[:300]
    assert [v["field"] for v in refused.json()["violations"]] == ["watch"]
    assert "watch log event 0" in refused.json()["violations"][0]["message"]
    assert honest.status_code == 200 and len(ws.store.judgements()) == 1


def test_mine_answers_a_page_of_the_raters_records_never_their_whole_history(tmp_path, engine):
    """Finding: /mine parsed every record of the rater on each call (150 records of 46 KB, 16 connections: +400 MB)."""
    from reeljudge.ab.store.records import build_record
    from reeljudge.ab.page.server import MINE_PAGE

    ws = make_study(tmp_path, n_pairs=1, database=engine)
    token = invite(ws, "ann")
    for i in range(MINE_PAGE + 5):
        ws.store.append_judgement(build_record(
            sample_id=f"{i:016x}", family="text-to-video", protocol="ab-v1", shown={"A": "sys-x", "B": "sys-y"},
            clips={"A": f"{2 * i:064x}", "B": f"{2 * i + 1:064x}"}, form=valid_form("A"), rater_id="ann",
            watch={"full_plays": {"A": 2, "B": 2}, "log": full_watch()["log"]}))
    order = [r["record_id"] for r in ws.store.judgements()]
    ws.store.judgements = lambda **kw: pytest.fail("/mine read every record of the rater")
    pages = []
    with running_server(ws) as url, httpx.Client(timeout=30) as client:
        page: str | None = f"/api/r/{token}/mine"
        while page and len(pages) < 5:
            pages.append(client.get(url + page).json())
            page = pages[-1]["next"]
    del ws.store.judgements
    assert [len(p["records"]) for p in pages] == [MINE_PAGE, 5] and {p["total"] for p in pages} == {MINE_PAGE + 5}
    assert [r["record_id"] for p in pages for r in p["records"]] == order
    assert all(set(r) >= {"winner", "ratings", "note"} and "sample_id" not in r for p in pages for r in p["records"])


#: every character ``str.splitlines`` ends a line at but "\n" and "\r" (a note's own newline stays a JSON escape)
LINE_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def test_a_line_or_paragraph_separator_in_a_note_never_splits_an_export_line(tmp_path):
    """Finding: U+2028 in a note split the JSONL export's line in two for any reader that splits as ``str.splitlines``
    does, ``reeljudge.rows.jsonl_rows`` among them."""
    from reeljudge.rows import jsonl_rows

    ws = make_study(tmp_path, n_pairs=2)
    token = invite(ws, "ann")
    note = "left" + "|".join(LINE_BREAKS) + "right"
    with running_server(ws) as url, httpx.Client(timeout=30) as client:
        task, watch = take_task(client, url, token)
        body = {"assignment_id": task["assignment_id"], "submission_id": "seps-0001",
                "form": {**valid_form("A"), "note": note}, "watch": watch}
        assert client.post(f"{url}/api/r/{token}/submit", json=body).status_code == 200
        auth = {"Authorization": f"Bearer {ws.admin_token()}"}
        served = {"csv": client.get(f"{url}/admin/export.csv", headers=auth).text,
                  "jsonl": client.get(f"{url}/admin/export.jsonl", headers=auth).text}
    assert main(["ab", "export", "--data", str(ws.root), "-o", str(tmp_path / "j.jsonl")]) == 0
    cli = (tmp_path / "j.jsonl").read_text(encoding="utf-8")
    for name, text in {**served, "cli jsonl": cli}.items():
        assert not [c for c in LINE_BREAKS if c in text], name
    for text in (served["jsonl"], cli):
        assert len(text.splitlines()) == 1 and [json.loads(line)["note"] for line in text.splitlines()] == [note]
    [(number, record)] = jsonl_rows(cli)
    assert number == 1 and record["note"] == note
    raw = json.dumps({"note": note}, ensure_ascii=False) + "\n" + json.dumps({"note": "two"}) + "\n"
    assert [(n, row["note"]) for n, row in jsonl_rows(raw)] == [(1, note), (2, "two")]  # our reader: "\n" only
