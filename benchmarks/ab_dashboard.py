"""The admin dashboard over a large study, and a store fed inflated records (issue 39).

Builds a SQLite study of ``--records`` human records (two raters per pair sample, ``--raters`` raters,
one task in ten a gold pair; each record with an honest page's watch log and the server's evidence,
about 2.5 KB), with the code of ``--src``, then times what a dashboard load does — the status the
dashboard reads and its HTML — ``--repeats`` times: median wall and CPU time, and the process's peak
RSS. Then it posts ``--inflated`` records of the finding's shape (a 2,000-event log of 64-character
values, within the body limits) straight to the store: how many were stored, the database's growth
and the dashboard's time after. ``--src`` runs another source tree (e.g. ``git archive`` of an older
commit) in the same conditions; each tree runs in a process of its own.

Usage: ``.venv/bin/python -m benchmarks.ab_dashboard [--src DIR] [--records 10000] [--raters 50] [--inflated 300]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _log(events: int, value: object) -> list[dict[str, object]]:
    """A watch log: a play, two full plays of each clip, then ``events`` seeks carrying ``value``."""
    log: list[dict[str, object]] = [{"side": "both", "event": "play", "t": 0, "at_ms": 0, "value": None}]
    for k in range(2):
        for side in ("A", "B"):
            log.append({"side": side, "event": "full_play", "t": 1.0, "at_ms": 1000 * (k + 1), "value": k + 1})
    return log + [{"side": "both", "event": "seek", "t": 0.5, "at_ms": 3000 + i, "value": value} for i in range(events)]


def _record(ws: Any, sample: Any, rater: str, winner: str, log: list, n: int) -> dict:
    """A human record as the rating server builds it (the tree's own ``build_record``); ``winner`` a system or "tie"."""
    from reeljudge.ab.store.records import build_record

    a, b = sample.systems if n % 2 else sample.systems[::-1]
    winner = "A" if winner == a else "B" if winner == b else "tie"
    dimensions = ("prompt_adherence", "temporal_consistency", "identity_consistency", "motion_physics")
    form: dict[str, Any] = {"winner": winner, "primary_tag": "tie_both_good" if winner == "tie" else "flicker",
                            "secondary_tags": [], "ratings": {side: {d: 4 for d in dimensions} for side in ("A", "B")},
                            "note": "a short note for hard cases"}
    clips = {"A": sample.clip_of(a), "B": sample.clip_of(b)}
    server = {"served": {s: {"bytes": 8000, "sent": 8000, "responses": 2} for s in ("A", "B")}, "elapsed_s": 12.5,
              "min_elapsed_s": 1.0, "thin": ["open 1.2 s, less than 2.0 s of real-time viewing at 1×"] if n % 7 == 0 else []}
    return build_record(sample_id=sample.sample_id, family=sample.family, protocol="ab-v1", shown={"A": a, "B": b}, clips=clips,
                        form=form, rater_id=rater, watch={"full_plays": {"A": 2, "B": 2}, "log": log, "server": server},
                        served_at="2026-01-01T00:00:00.000Z")


def build(root: Path, records: int, raters: int) -> Any:
    """The study: pair samples rated by two raters each, gold pairs for one task in ten, assignments for every record."""
    import uuid

    from reeljudge.ab.store.samples import make_sample
    from reeljudge.ab.study.workspace import Workspace

    ws = Workspace(root)
    ws.fix_protocol()
    ws.store._connection().execute("PRAGMA synchronous=OFF")  # building, not measuring: no fsync per record
    golds = [make_sample("text-to-video", f"gold prompt {i}", ("gold-clean", f"{2 * i:064x}"),
                         ("gold-fault", f"{2 * i + 1:064x}"),
                         kind="gold", expected="gold-clean") for i in range(20)]
    gold_records = records // 10
    pairs = [make_sample("text-to-video", f"prompt {i}", ("sys-x", f"{10**6 + 2 * i:064x}"),
                         ("sys-y", f"{10**6 + 2 * i + 1:064x}"))
             for i in range((records - gold_records) // 2)]
    ws.store.add_samples([*pairs, *golds], [])
    names = [f"rater{i:03d}" for i in range(raters)]
    for name in names:
        ws.store.add_rater(name, "human", f"token-{name}-000000000000")
    # the second rater of one pair in four disagrees (a tie): a third-rater queue of a quarter of the pairs
    jobs = [(pair, names[(2 * i + k) % raters], "tie" if k and i % 4 == 0 else "sys-x") for i, pair in enumerate(pairs)
            for k in range(2)]
    jobs += [(golds[i % len(golds)], names[(i + i // len(golds)) % raters], "gold-clean" if i % 5 else "gold-fault")
             for i in range(gold_records)]
    log = _log(20, None)
    seen = set()
    with ws.store.transaction() as db:
        for sample, rater, _ in jobs:
            if (sample.sample_id, rater) not in seen:
                seen.add((sample.sample_id, rater))
                db.execute("INSERT INTO assignments (assignment_id, sample_id, rater_id, swap, served_at) VALUES (?, ?, ?, 0, ?)",
                           (uuid.uuid4().hex, sample.sample_id, rater, "2026-01-01T00:00:00.000Z"))
    for n, (sample, rater, winner) in enumerate(jobs):
        try:
            ws.store.append_judgement(_record(ws, sample, rater, winner, log, n))
        except Exception as error:  # noqa: BLE001 - a (sample, rater) drawn twice for gold: the store refuses the second
            if "already judged" not in str(error):
                raise
    return ws


def dashboard(ws: Any, repeats: int) -> tuple[float, float, int]:
    """Median wall and CPU seconds of a dashboard load (status + HTML), and the page's bytes."""
    from reeljudge.ab.page.admin import _Admin, render_dashboard
    from reeljudge.ab.page.server import ServeOptions

    admin = _Admin(ws, ServeOptions().qc)
    walls, cpus, size = [], [], 0
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        size = len(render_dashboard(admin.status()))
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus), size


def peak_rss_mib() -> float:
    """This process's peak resident memory so far (VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def inflate(ws: Any, count: int) -> tuple[int, int, list[str]]:
    """Append ``count`` records of the finding's shape (2,000 events, 64-character values): (stored, refused, first refusal)."""
    from reeljudge.ab.store.samples import make_sample

    extra = [make_sample("text-to-video", f"inflated {i}", ("sys-x", f"{10**9 + 2 * i:064x}"),
                         ("sys-y", f"{10**9 + 2 * i + 1:064x}"))
             for i in range(count)]
    ws.store.add_samples(extra, [])
    stored, refusals = 0, []
    log = _log(1995, "x" * 64)
    for n, sample in enumerate(extra):
        try:
            ws.store.append_judgement(_record(ws, sample, "rater000", "sys-x", log, n))
            stored += 1
        except Exception as error:  # noqa: BLE001 - the tree under test decides what it refuses
            refusals.append(str(error)[:160])
    return stored, len(refusals), refusals[:1]


def child(args: argparse.Namespace) -> None:
    """In a process running ``--src``'s code: build, time, inflate, time again; one JSON line."""
    import reeljudge

    with tempfile.TemporaryDirectory(prefix="reeljudge-dashboard-") as tmp:
        started = time.perf_counter()
        ws = build(Path(tmp) / "study", args.records, args.raters)
        built = time.perf_counter() - started
        db = ws.root / "ab.sqlite"
        size = lambda: sum(p.stat().st_size for p in (db, db.with_name(db.name + "-wal")) if p.exists())  # noqa: E731
        rss0 = peak_rss_mib()
        wall, cpu, page = dashboard(ws, args.repeats)
        out = {"code": str(Path(reeljudge.__file__).parents[1]),
               "records": len(ws.store.query("SELECT record_id FROM judgements")),
               "built_s": built, "db_mib": size() / 2**20, "wall_s": wall, "cpu_s": cpu, "page_bytes": page,
               "rss_before_mib": rss0, "rss_peak_mib": peak_rss_mib()}
        if args.inflated:
            before = size()
            stored, refused, why = inflate(ws, args.inflated)
            wall2, cpu2, _ = dashboard(ws, args.repeats)
            out.update(inflated_stored=stored, inflated_refused=refused, refusal=why,
                       inflated_growth_mib=(size() - before) / 2**20,
                       inflated_wall_s=wall2, inflated_cpu_s=cpu2, rss_peak_after_mib=peak_rss_mib())
        print(json.dumps(out))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, default=ROOT, help="the source tree whose code runs (default this one)")
    parser.add_argument("--records", type=int, default=10_000, help="human records in the study (default 10,000)")
    parser.add_argument("--raters", type=int, default=50, help="raters (default 50)")
    parser.add_argument("--repeats", type=int, default=5, help="dashboard loads timed (default 5; the median is reported)")
    parser.add_argument("--inflated", type=int, default=300, help="inflated records appended after (default 300; 0: none)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv if argv is not None else sys.argv[1:])
    if args.child:
        return child(args)
    command = [sys.executable, str(Path(__file__).resolve()), "--child", "--records", str(args.records), "--raters",
               str(args.raters),
               "--repeats", str(args.repeats), "--inflated", str(args.inflated)]
    result = subprocess.run(command, env={**os.environ, "PYTHONPATH": str(args.src)}, cwd=args.src,
                            capture_output=True, text=True, check=False)
    if result.returncode:
        sys.exit(f"the benchmark's child failed:\n{result.stderr[-3000:]}")
    r = json.loads(result.stdout.strip().splitlines()[-1])
    print(f"code of {args.src}: {r['records']} records from {args.raters} raters (built in {r['built_s']:.0f} s), "
          f"database {r['db_mib']:.1f} MiB")
    print(f"  dashboard load (status + HTML, median of {args.repeats}): {1000 * r['wall_s']:.0f} ms wall, "
          f"{1000 * r['cpu_s']:.0f} ms CPU; peak RSS {r['rss_before_mib']:.0f} → {r['rss_peak_mib']:.0f} MiB")
    if args.inflated:
        print(f"  {args.inflated} inflated records (2,000 events of 64-character values): {r['inflated_stored']} stored, "
              f"{r['inflated_refused']} refused{(' (' + r['refusal'][0] + ')') if r['refusal'] else ''}; database "
              f"+{r['inflated_growth_mib']:.1f} MiB; dashboard after {1000 * r['inflated_wall_s']:.0f} ms wall, "
              f"{1000 * r['inflated_cpu_s']:.0f} ms CPU; peak RSS {r['rss_peak_after_mib']:.0f} MiB")


if __name__ == "__main__":
    main()
