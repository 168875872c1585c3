"""The store under a Range flood (issue 28): evidence rows, database bytes, then submit time and the server's peak RSS.

One invited rater asks for clip A of their task ``--requests`` times, each request with
``--ranges`` ranges ``0-0`` in its Range header (what a hostile rater can send in a few seconds),
then posts ``--submits`` submits for that task (refused: clip B was never loaded; each still reads
the task's evidence). Prints the evidence rows and the database's bytes (file + WAL) before and
after the flood, the flood's wall time, the submits' wall time, and the server's peak RSS (VmHWM)
before and after the submits. ``--src`` runs the server from another source tree (e.g. ``git
archive`` of an older commit) to compare in the same conditions.

Usage: ``.venv/bin/python -m benchmarks.ab_range_evidence [--src DIR] [--requests 100] [--ranges 3900]``
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
EVIDENCE_TABLES = ("clip_serves", "clip_coverage")  # before issue 28: a row per range; after: a row per task and clip


def evidence_rows(db: Path) -> int:
    """Rows in whichever evidence tables the store has."""
    with sqlite3.connect(db) as conn:
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        return sum(conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in EVIDENCE_TABLES if t in tables)


def db_bytes(db: Path) -> int:
    """The SQLite file and its write-ahead log, in bytes."""
    return sum(p.stat().st_size for p in (db, db.with_name(db.name + "-wal")) if p.exists())


def run(src: Path, requests: int, ranges: int, submits: int) -> None:
    import httpx

    from support.ab_study import free_port, invite, make_study, valid_form
    from benchmarks.ab_body_memory import peak_rss_mb
    from benchmarks.ab_load import serve_process

    with tempfile.TemporaryDirectory(prefix="reeljudge-ab-range-") as tmp:
        ws = make_study(Path(tmp), n_pairs=1)
        token = invite(ws, "ann")
        db = ws.root / "ab.sqlite"
        port = free_port()
        server = serve_process(ws.root, port, src)
        url = f"http://127.0.0.1:{port}"
        try:
            with httpx.Client(timeout=60) as client:
                task = client.get(f"{url}/api/r/{token}/task").json()["task"]
                rows0, bytes0 = evidence_rows(db), db_bytes(db)
                header = "bytes=" + ",".join(["0-0"] * ranges)
                start = time.perf_counter()
                statuses = {client.get(url + task["clips"]["A"]["url"], headers={"Range": header}).status_code
                            for _ in range(requests)}
                flood = time.perf_counter() - start
                rows1, bytes1 = evidence_rows(db), db_bytes(db)
                rss0 = peak_rss_mb(server.pid)
                body = {"assignment_id": task["assignment_id"], "submission_id": "bench-0001",
                        "form": valid_form("A"), "watch": {"log": []}}
                start = time.perf_counter()
                answers = {client.post(f"{url}/api/r/{token}/submit", json=body).status_code for _ in range(submits)}
                submit_s = time.perf_counter() - start
                rss1 = peak_rss_mb(server.pid)
            print(f"server from {src}: {requests} requests × {ranges} ranges 0-0 in {flood:.1f} s (answered {sorted(statuses)})")
            print(f"  evidence rows {rows0} → {rows1} (+{rows1 - rows0}); database {bytes0 / 2**20:.2f} → "
                  f"{bytes1 / 2**20:.2f} MiB (+{(bytes1 - bytes0) / 2**20:.2f} MiB)")
            print(f"  {submits} submits (answered {sorted(answers)}) in {submit_s:.2f} s; server peak RSS "
                  f"{rss0:.0f} → {rss1:.0f} MiB")
        finally:
            server.terminate()
            server.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    for flag, default, text in (("--requests", 100, "clip requests"), ("--ranges", 3900, "ranges per request"),
                                ("--submits", 20, "submits after")):
        parser.add_argument(flag, type=int, default=default, help=f"{text} (default {default})")
    parser.add_argument("--src", type=Path, default=ROOT, help="run the server from this source tree (default: this one)")
    args = parser.parse_args()
    run(args.src.resolve(), args.requests, args.ranges, args.submits)


if __name__ == "__main__":
    main()
