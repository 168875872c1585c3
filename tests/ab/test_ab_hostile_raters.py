"""The rating server keeps every honest rater moving (issue 39): one test per finding, each failing on the server before.

Every test replays its finding over real HTTP on 127.0.0.1, bounded in requests and time; what the
store decides runs on both stores, SQLite and the embedded PostgreSQL.
"""

from __future__ import annotations

import time

import httpx
import pytest

from support.ab_study import HOLD_S, hand_out, invite, make_study, running_server, take_task, valid_form, watch_task
from reeljudge.ab.study.assignment import QCOptions, assignment_by_id


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
    qc = QCOptions(gold_every=0, assignment_ttl_s=HOLD_S)
    with running_server(ws, qc) as url, httpx.Client(timeout=30) as client:
        late_task, handed_out = hand_out(client, url, ann)
        late_watch = watch_task(client, url, late_task, handed_out)
        time.sleep(max(0.0, handed_out + HOLD_S + 0.1 - time.monotonic()))  # ann's hold expires: the pair goes to bob and carol
        for name, token, system in (("bob", bob, "sys-x"), ("carol", carol, "sys-x" if others == "agree" else "sys-y")):
            task, watch = take_task(client, url, token)
            assert task["prompt"] == late_task["prompt"]
            body = {"assignment_id": task["assignment_id"], "submission_id": f"{name}-0001",
                    "form": _verdict_for(ws, task, system), "watch": watch}
            assert client.post(f"{url}/api/r/{token}/submit", json=body).status_code == 200
        late = client.post(f"{url}/api/r/{ann}/submit", json={
            "assignment_id": late_task["assignment_id"], "submission_id": "ann-0001",
            "form": valid_form("B"), "watch": late_watch})
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
    qc = QCOptions(gold_every=0, assignment_ttl_s=HOLD_S)
    with running_server(ws, qc) as url, httpx.Client(timeout=30) as client:
        first = client.get(f"{url}/api/r/{ann}/task").json()["task"]
        time.sleep(HOLD_S + 0.1)
        bob_task = client.get(f"{url}/api/r/{bob}/task").json()["task"]  # the pair is re-issued; bob holds it now
        back = [client.get(f"{url}/api/r/{ann}/task").json() for _ in range(3)]
        carol_task = client.get(f"{url}/api/r/{carol}/task").json()["task"]
        progress = back[-1]["progress"]
    assert bob_task["prompt"] == first["prompt"]
    assert back[0]["task"]["assignment_id"] != first["assignment_id"] and back[0]["task"]["prompt"] != first["prompt"]
    assert "Your previous task was withdrawn" in back[0]["notice"] and f"held for you for {HOLD_S:g} s" in back[0]["notice"]
    assert [b["notice"] for b in back[1:]] == [None, None]  # once
    assert {b["task"]["assignment_id"] for b in back} == {back[0]["task"]["assignment_id"]}
    assert progress == {"done": 0, "total": 1}  # the withdrawn task is not counted as open
    assert carol_task["prompt"] == first["prompt"]  # the pair still needs a second rater: carol, not ann again


# ---- bounded records (item 5) and strict inputs (item 6) -----------------------------------------------------------

MALFORMED_WATCH = {
    "a number": 5, "a string": "played", "a list": [], "log a number": {"log": 5}, "log null": {"log": None},
    "log a string": {"log": "play"}, "log an object": {"log": {"side": "A"}}, "an event a number": {"log": [5]},
    "an event null": {"log": [None]}, "an event a list": {"log": [["A", "play", 0, 0]]},
    "an event type given as a list": {"log": [{"side": "A", "event": ["play"], "t": 0, "at_ms": 0}]},
    "an event type an object": {"log": [{"side": "A", "event": {"play": 1}, "t": 0, "at_ms": 0}]},
    "a side given as a list": {"log": [{"side": ["A"], "event": "play", "t": 0, "at_ms": 0}]},
    "a side an object": {"log": [{"side": {"x": 1}, "event": "play", "t": 0, "at_ms": 0}]},
    "t a string": {"log": [{"side": "A", "event": "play", "t": "0", "at_ms": 0}]},
    "at_ms a list": {"log": [{"side": "A", "event": "play", "t": 0, "at_ms": [0]}]},
    "t true": {"log": [{"side": "A", "event": "play", "t": True, "at_ms": 0}]},
    "a value string": {"log": [{"side": "A", "event": "seek", "t": 0, "at_ms": 0, "value": "x" * 64}]},
    "a value object": {"log": [{"side": "A", "event": "seek", "t": 0, "at_ms": 0, "value": {"a": 1}}]},
    "an unknown key": {"log": [{"side": "A", "event": "play", "t": 0, "at_ms": 0, "note": "x"}]},
    "more events than the page keeps": {"log": [{"side": "A", "event": "pause", "t": 0, "at_ms": i} for i in range(501)]},
}


def test_every_malformed_watch_log_is_a_422_never_a_500(tmp_path, engine):
    """Finding: a watch.log that is a number, null, or has an event type given as a list was a 500 (both stores);
    events of other shapes were dropped without a word."""
    ws = make_study(tmp_path, n_pairs=1, database=engine)
    token = invite(ws, "ann")
    with running_server(ws) as url, httpx.Client(timeout=30) as client:
        task, watch = take_task(client, url, token)
        answers = {}
        for name, bad in MALFORMED_WATCH.items():
            log = bad if not isinstance(bad, dict) or not isinstance(bad.get("log"), list) else {"log": watch["log"] + bad["log"]}
            body = {"assignment_id": task["assignment_id"], "submission_id": "shape-0001", "form": valid_form("A"), "watch": log}
            response = client.post(f"{url}/api/r/{token}/submit", json=body)
            answers[name] = (response.status_code, [v["message"] for v in response.json().get("violations", [])][:1])
        fine = client.post(f"{url}/api/r/{token}/submit", json={
            "assignment_id": task["assignment_id"], "submission_id": "shape-0002", "form": valid_form("A"), "watch": watch})
    assert {name: status for name, (status, _) in answers.items()} == {name: 422 for name in MALFORMED_WATCH}, answers
    assert "the page sends at most 500" in answers["more events than the page keeps"][1][0]
    assert ("value must be a number" in answers["a value string"][1][0]
            and "event must be one of" in answers["an event type given as a list"][1][0])
    assert fine.status_code == 200, fine.text  # the same task, with the page's log, is taken: nothing above was stored
    assert len(ws.store.judgements()) == 1


def _page_log(durations: dict[str, float], events: int) -> list[dict]:
    """The largest log the page writes: its limit of events, each as long as the page makes them."""
    log = []
    for k in range(2):
        for side in ("A", "B"):
            log.append({"side": side, "event": "full_play", "t": durations[side], "at_ms": 604_000_000
                        + 1000 * k, "value": k + 1})
    while len(log) < events:
        log.append({"side": "both", "event": "rate", "t": round(durations["A"] * 0.123456, 3),
                    "at_ms": 603_999_999 - len(log), "value": 0.25})
    return log


def test_records_are_bounded_to_what_the_page_can_produce(tmp_path, engine):
    """Finding: one record was stored at 316 KB (normal 2.2 KB) within the body limits: a 2,000-event log with
    64-character values; 300 of them grew the database 3 → 91 MB."""
    from reeljudge.ab.store.records import MAX_RECORD_BYTES

    ws = make_study(tmp_path, n_pairs=2, database=engine)
    token = invite(ws, "ann")
    with running_server(ws) as url, httpx.Client(timeout=30) as client:
        task, watch = take_task(client, url, token)
        inflated = (watch["log"]
                    + [{"side": "A", "event": "seek", "t": 0.5, "at_ms": 3000 + i, "value": "x" * 64} for i in range(1990)])
        big = client.post(f"{url}/api/r/{token}/submit", json={
            "assignment_id": task["assignment_id"], "submission_id": "big-00001", "form": valid_form("A"),
            "watch": {"log": inflated}})
        durations = {side: clip["duration"] for side, clip in task["clips"].items()}
        longest = {**valid_form("A"), "note": "\U0001F3AC" * 400}  # the longest note, in four-byte characters
        largest = client.post(f"{url}/api/r/{token}/submit", json={
            "assignment_id": task["assignment_id"], "submission_id": "big-00002", "form": longest,
            "watch": {"log": _page_log(durations, 500)}})
    assert big.status_code == 422 and "the page sends at most 500" in big.json()["violations"][0]["message"]
    assert largest.status_code == 200, largest.text
    [record] = ws.store.judgements()
    size = ws.store.query("SELECT bytes FROM record_facts WHERE record_id = ?", (record["record_id"],))[0][0]
    assert len(record["watch"]["log"]) == 500 and size <= MAX_RECORD_BYTES, size


def test_a_record_over_the_size_limit_is_refused_by_the_store(tmp_path, engine):
    """Whoever writes (the rating server, a model rater, a script), a record is at most MAX_RECORD_BYTES."""
    from reeljudge.ab.store.records import MAX_RECORD_BYTES, RecordError, build_record

    ws = make_study(tmp_path, n_pairs=1, database=engine)
    sample = ws.store.samples()[0]
    shown, clips = {"A": sample.system_a, "B": sample.system_b}, {"A": sample.clip_a, "B": sample.clip_b}
    with pytest.raises(RecordError, match=f"more than a record may take \\({MAX_RECORD_BYTES}\\)"):
        build_record(sample_id=sample.sample_id, family=sample.family, protocol="ab-v1", shown=shown, clips=clips,
                     form=valid_form("A"),
                     rater_id="judge", rater_kind="model", model="m", extra={"judge": {"reply": "x" * MAX_RECORD_BYTES}})
    assert ws.store.judgements() == []


def test_nul_and_other_invalid_path_text_is_a_4xx_before_any_store_query(tmp_path, engine):
    """Finding (PostgreSQL): /api/r/<anything>/clip/%00/A without a token was a 500 with a traceback per request."""
    ws = make_study(tmp_path, n_pairs=1, database=engine)
    token = invite(ws, "ann")
    asked: list[str] = []
    with running_server(ws) as url, httpx.Client(timeout=30) as client:
        task = client.get(f"{url}/api/r/{token}/task").json()["task"]
        real = task["assignment_id"]
        paths = ["/api/r/x/clip/%00/A", f"/api/r/{token}/clip/%00/A", f"/api/r/{token}/clip/{real}%00/A",
                 f"/api/r/{token}/clip/{real}/%00",
                 "/api/r/%00/task", f"/api/r/{token}%00/mine", f"/r/{token}%00", f"/api/r/{token}/clip/%ff%fe/A",
                 f"/api/r/{token}/clip/{real[:-1]}%C3%A9/A", f"/api/r/{token[:4]}%E2%80%AE{token[4:]}/task",
                 f"/api/r/{token}/clip/{real.upper()}/A"]
        for name in ("query", "transaction"):
            original = getattr(ws.store, name)
            setattr(ws.store, name, lambda *args, _original=original, _name=name,
                    **kwargs: (asked.append(_name), _original(*args, **kwargs))[1])
        answers = {path: client.get(url + path).status_code for path in paths}
        answers["POST submit/%00"] = client.post(f"{url}/api/r/{token}/submit/%00", json={}).status_code
        answers["POST submit, task id in the body"] = client.post(f"{url}/api/r/%00/submit",
                                                                  json={"assignment_id": "\u0000"}).status_code
        del ws.store.query, ws.store.transaction
    assert all(400 <= status < 500 for status in answers.values()), answers
    assert asked == [], asked  # refused on the path's text alone


def test_a_note_that_a_semicolon_or_tab_splitting_reader_reads_as_a_formula_is_escaped(tmp_path, engine):
    """Finding: a note `Fine;=1+1;ok` exported a `=1+1` cell to a `;`- or tab-splitting spreadsheet."""
    import csv
    import io

    from reeljudge.cli import main

    ws = make_study(tmp_path, n_pairs=1, database=engine)
    token = invite(ws, "ann")
    note = "Fine;=1+1;ok\t+SUM(A1) |@cmd, -2+3; fine"
    with running_server(ws) as url, httpx.Client(timeout=30) as client:
        task, watch = take_task(client, url, token)
        body = {"assignment_id": task["assignment_id"], "submission_id": "note-0001",
                "form": {**valid_form("A"), "note": note}, "watch": watch}
        assert client.post(f"{url}/api/r/{token}/submit", json=body).status_code == 200
        served = client.get(f"{url}/admin/export.csv", headers={"Authorization": f"Bearer {ws.admin_token()}"}).text
    args = (["ab", "export", "--data", str(ws.root), "--format", "csv", "-o", str(tmp_path / "j.csv")]
            + (["--database", engine] if engine else []))
    assert main(args) == 0
    for text in (served, (tmp_path / "j.csv").read_text(encoding="utf-8")):
        for separator in (";", "\t", "|", ","):
            cells = [cell.strip(' "') for line in text.splitlines() for cell in line.split(separator)]
            assert not [c for c in cells if c[:1] in ("=", "+", "-", "@")], (separator, cells)
        [row] = list(csv.DictReader(io.StringIO(text, newline="")))
        assert row["note"] == "Fine;'=1+1;ok\t'+SUM(A1) |'@cmd, '-2+3; fine"  # the text is all there, each formula made text


def test_the_dashboard_reads_aggregates_never_the_records(tmp_path, engine):
    """Finding: every dashboard load (it refreshes every 10 s) read and parsed every record: 2.1 s and 407 MB peak over
    300 inflated records. Its figures now come from columns and per-record facts; they equal the records' own."""
    import re

    from reeljudge.ab.study.assignment import gold_accuracy, progress
    from reeljudge.ab.store.evidence import evidence_by_rater
    from reeljudge.ab.page.admin import _Admin
    from reeljudge.ab.store.records import build_record
    from support.ab_study import full_watch

    ws = make_study(tmp_path, n_pairs=4, gold=2, database=engine)
    qc = QCOptions(gold_every=3)
    for name in ("ann", "bob", "cat"):
        invite(ws, name)
    # a mix: pairs, gold, a disagreement, thin evidence
    for n, name in enumerate(("ann", "bob", "ann", "cat", "bob", "ann", "cat")):
        task = next_task_for(ws, name, qc)
        if task is None:
            continue
        thin = ["open 0.5 s, less than 2.0 s of real-time viewing at 1×"] if n % 3 == 0 else []
        server = {"served": {s: {"bytes": 1, "sent": 1, "responses": 1} for s in "AB"}, "elapsed_s": 1.0,
                  "min_elapsed_s": 1.0, "thin": thin}
        record = build_record(sample_id=task.sample.sample_id, family=task.sample.family, protocol="ab-v1", shown=task.shown,
                              clips=task.clips,
                              form=valid_form("A" if n % 2 else "B"), rater_id=name, served_at=task.served_at,
                              watch={"full_plays": {"A": 2, "B": 2}, "log": full_watch()["log"], "server": server})
        ws.store.append_judgement(record)
    records, samples = ws.store.judgements(), ws.store.samples()
    sql: list[str] = []
    original = ws.store.query
    ws.store.query = lambda q, p=(): (sql.append(q), original(q, p))[1]
    ws.store.judgements = lambda **kw: pytest.fail("the dashboard read every record")
    status = _Admin(ws, qc).status()  # what /admin and /admin/api/status show
    del ws.store.query, ws.store.judgements
    assert not [q for q in sql if re.search(r"\bbody\b", q) and "judgements" in q], sql  # no record's body is read
    thin = evidence_by_rater(records)
    for row in status["raters"]:
        assert (row["done"], row["total"]) == progress(ws.store, row["rater"], qc)
        assert row["gold"] == gold_accuracy(records, samples).get(row["rater"])
        assert row["thin_evidence"] == len(thin.get(row["rater"], {"thin": []})["thin"])
    assert status["judgements"] == len(records) and sum(r["thin_evidence"] for r in status["raters"]) >= 1


def next_task_for(ws, rater, qc):
    """The rater's next task, taken at the store (no HTTP: the dashboard's reads are what is tested)."""
    from reeljudge.ab.study.assignment import next_assignment

    return next_assignment(ws.store, rater, qc)


def test_a_version_2_store_gains_withdrawals_prompt_keys_and_record_facts(tmp_path, engine):
    """A store written before issue 39 opens as version 3: its records' facts written from the records, its samples'
    prompt keys set, its tasks able to be withdrawn; the records themselves untouched (append-only)."""
    from reeljudge.ab.store.store import Store, prompt_key

    ws = make_study(tmp_path, n_pairs=2, database=engine)
    token = invite(ws, "ann")
    with running_server(ws) as url, httpx.Client(timeout=30) as client:
        task, watch = take_task(client, url, token)
        body = {"assignment_id": task["assignment_id"], "submission_id": "old-00001", "form": valid_form("A"), "watch": watch}
        assert client.post(f"{url}/api/r/{token}/submit", json=body).status_code == 200
    before = ws.store.judgements()
    with ws.store.transaction() as db:  # what version 2 of the store held
        db.execute("DROP TABLE record_facts")
        db.execute("DROP INDEX samples_prompts")
        db.execute("ALTER TABLE samples DROP COLUMN prompt_key")
        db.execute("ALTER TABLE assignments DROP COLUMN withdrawn_at")
        db.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    store = Store(ws.store.location)
    assert store.meta("schema_version") == "3" and store.judgements() == before
    assert store.query("SELECT record_id, rater_id, evidence FROM record_facts") == [(before[0]["record_id"], "ann", 1)]
    assert sorted(store.query("SELECT prompt_key FROM samples")) == sorted((prompt_key(s.prompt),) for s in store.samples())
    assert store.query("SELECT COUNT(*) FROM assignments WHERE withdrawn_at IS NULL")[0][0] == 1
