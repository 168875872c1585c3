"""A rating server killed with SIGKILL while raters submit loses no committed record and leaves no torn one."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import threading
import time

import httpx

from support.ab_study import byte_study, free_port, invite, serve_process, take_task, valid_form
from reeljudge.ab.store.records import validate_record



def test_sigkill_mid_write_keeps_every_acknowledged_record_and_no_torn_one(tmp_path):
    ws = byte_study(tmp_path / "study", 20_000, n_pairs=30)  # clips served, never decoded: bytes, not encoded clips
    tokens = {f"rater{i}": invite(ws, f"rater{i}") for i in range(6)}
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = serve_process(ws.root, port, tmp_path / "server.log")
    acknowledged: list[str] = []
    lock = threading.Lock()
    stop = threading.Event()

    def rater(name: str, token: str) -> None:
        with httpx.Client(timeout=5) as client:
            while not stop.is_set():
                try:
                    task, watch = take_task(client, url, token)
                    if task is None:
                        return
                    body = {"assignment_id": task["assignment_id"], "submission_id": f"{name}-{task['assignment_id']}",
                            "form": valid_form("tie"), "watch": watch}
                    response = client.post(f"{url}/api/r/{token}/submit", json=body)
                except httpx.HTTPError:
                    return  # the server is gone
                if response.status_code == 200 and response.json()["stored"]:
                    with lock:
                        acknowledged.append(response.json()["record_id"])

    threads = [threading.Thread(target=rater, args=item) for item in tokens.items()]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 60
    while len(acknowledged) < 12 and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)  # while the raters are still submitting
    proc.wait(10)
    stop.set()
    for t in threads:
        t.join(10)
    assert len(acknowledged) >= 12

    conn = sqlite3.connect(ws.store.path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    rows = conn.execute("SELECT record_id, sample_id, rater_id, body FROM judgements").fetchall()
    conn.close()
    stored = {}
    for record_id, sample_id, rater_id, body in rows:
        record = json.loads(body)  # a torn row would not parse or validate
        validate_record(record)
        assert (record["record_id"], record["sample_id"], record["rater"]["id"]) == (record_id, sample_id, rater_id)
        stored[record_id] = record
    assert set(acknowledged) <= set(stored)  # no acknowledged record lost
    assert len(rows) <= len(acknowledged) + len(tokens)  # at most one unacknowledged in-flight commit per rater

    proc = serve_process(ws.root, port, tmp_path / "server.log")  # the store opens and serves again
    try:
        mine, page = [], f"/api/r/{tokens['rater0']}/mine"
        for _ in range(len(stored) + 1):  # one page at a time (``MINE_PAGE`` records), at most one page a record
            answer = httpx.get(url + page).json()
            mine += answer["records"]
            if not (page := answer["next"]):
                break
        assert {r["record_id"] for r in mine} == {r for r, v in stored.items() if v["rater"]["id"] == "rater0"}
    finally:
        proc.kill()
        proc.wait(10)
