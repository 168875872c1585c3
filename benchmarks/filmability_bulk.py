"""Benchmark: the offline filmability judge in bulk versus one assertion process per narration.

    python -m benchmarks.filmability_bulk [--narrations 120] [--per-process 16]

Rows: the project's narrations (``datasets/narrations.yaml``) with terms from both offline
generators, repeated with a numbered suffix until there are ``--narrations`` distinct rows.

- bulk: ``judge_narrations_file`` (what ``reeljudge filmability bulk`` runs) with a pool of 1 process and of
  one process per core, cold (pool start and model load included), judge cache off;
- per process: what promptfoo does on a cache miss — a new ``python -c`` per narration that
  imports the assertion and calls its ``get_assert`` (judge cache off, so every call judges),
  run on the first ``--per-process`` rows one after another, and again with one process per core
  at a time. Its scores must equal the bulk records' (checked).

Prints narrations per second and the bulk speed-up over the per-process path at equal parallelism.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
ASSERT_ONE = (
    "import json, sys\n"
    "from reeljudge.assertions.filmability import get_assert\n"
    "result = get_assert(sys.argv[1], json.loads(sys.argv[2]))\n"
    "print(json.dumps({'score': result['score'], 'pass': result['pass']}))\n"
)


def make_rows(count: int) -> list[dict[str, Any]]:
    """``count`` distinct rows: each narration with each generator's terms, suffixed when repeated."""
    from reeljudge.filmability.generators import GENERATORS

    base = [row["narration"] for row in yaml.safe_load((ROOT / "datasets" / "narrations.yaml").read_text())]
    rows: list[dict[str, Any]] = []
    round_ = 0
    while len(rows) < count:
        for narration in base:
            for name in sorted(GENERATORS):
                text = narration if round_ == 0 else f"{narration} ({round_})"
                rows.append({"id": f"r{len(rows)}", "narration": text, "terms": GENERATORS[name](narration)})
        round_ += 1
    return rows[:count]


def bulk(rows: list[dict[str, Any]], work: Path, workers: int) -> tuple[float, dict[str, float]]:
    """Seconds for a cold bulk run over ``rows`` and the scores by id."""
    from reeljudge.filmability.bulk import judge_narrations_file
    from reeljudge.library.engines import LocalEngine

    source = work / f"rows-{workers}.yaml"
    source.write_text(yaml.safe_dump(rows))
    started = time.perf_counter()
    records, stats = judge_narrations_file(source, work / f"bulk-{workers}.jsonl",
                                           engine=LocalEngine(workers=workers), config={"cache": "off"})
    seconds = time.perf_counter() - started
    if stats.errors or len(records) != len(rows):
        raise SystemExit(f"bulk run with {workers} workers: {stats.errors} errors, {len(records)} of {len(rows)} records")
    return seconds, {r["id"]: r["score"] for r in records}


def per_process(rows: list[dict[str, Any]], work: Path, parallel: int) -> tuple[float, dict[str, float]]:
    """Seconds to judge ``rows`` with one new assertion process each, ``parallel`` at a time, and their scores."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE_API"))}
    env.update(REELJUDGE_CACHE="off", REELJUDGE_CACHE_DIR=str(work / "cache"), REELJUDGE_JUDGE="local")

    def one(row: dict[str, Any]) -> tuple[str, float]:
        context = {"vars": {"narration": row["narration"]}, "config": {}, "test": {"description": row["id"]}}
        done = subprocess.run([sys.executable, "-c", ASSERT_ONE, json.dumps(row["terms"]), json.dumps(context)],
                              env=env, cwd=work, capture_output=True, text=True, check=True)
        return row["id"], json.loads(done.stdout)["score"]

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=parallel) as pool:
        scores = dict(pool.map(one, rows))
    return time.perf_counter() - started, scores


def main() -> None:
    """Run both paths and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--narrations", type=int, default=120)
    parser.add_argument("--per-process", type=int, default=16)
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    rows = make_rows(args.narrations)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        os.environ["REELJUDGE_CACHE_DIR"] = str(work / "cache")  # the parsed norms table is cached here …
        per_process(rows[:1], work, 1)  # … by one untimed call, so neither path pays the first-parse cost
        print(f"{len(rows)} narrations; {cores} cores; load average before {os.getloadavg()[0]:.1f}")
        figures = {}
        scores: dict[str, float] = {}  # the last pool's (every pool scores every narration)
        for workers in sorted({1, cores}):
            seconds, scores = bulk(rows, work, workers)
            figures[("bulk", workers)] = len(rows) / seconds
            print(f"bulk, pool of {workers}:{'':<22} {len(rows):5d} in {seconds:6.1f} s  {len(rows) / seconds:7.2f} narrations/s")
        sample = rows[: args.per_process]
        for parallel in sorted({1, cores}):
            seconds, single = per_process(sample, work, parallel)
            figures[("process", parallel)] = len(sample) / seconds
            print(f"one assertion process each, {parallel} at a time: {len(sample):3d} in {seconds:6.1f} s  "
                  f"{len(sample) / seconds:7.2f} narrations/s")
            differ = [i for i, s in single.items() if s != scores[i]]
            if differ:
                raise SystemExit(f"per-process scores differ from the bulk records for {differ}")
        for n in sorted({1, cores}):
            print(f"speed-up of bulk over one process per narration, {n} at a time: "
                  f"{figures[('bulk', n)] / figures[('process', n)]:.1f}×")
        print(f"per-process scores equal the bulk records' on all {len(sample)} sampled narrations; load average after "
              f"{os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
