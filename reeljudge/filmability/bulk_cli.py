"""``reeljudge filmability bulk FILE``: the offline filmability judge over a narrations file, to JSONL.

Same engines, output and resume behaviour as ``reeljudge probes``. Exit code 0 when every row was
judged (whatever the scores), 1 when some rows could not be judged (listed), 2 for bad arguments.
"""

from __future__ import annotations

import argparse
from collections import Counter
from typing import Any, Sequence

DEFAULT_OUTPUT = "filmability.jsonl"


def add_parser(sub: argparse._SubParsersAction) -> None:
    """``reeljudge filmability bulk FILE [-o OUT] [--generator NAME] …``."""
    film = sub.add_parser("filmability", help="the footage filmability judge outside promptfoo")
    actions = film.add_subparsers(dest="action", required=True)
    p = actions.add_parser("bulk",
                           help="judge a narrations file (YAML/JSONL/CSV of narration + terms) with the offline judge, to JSONL")
    p.add_argument("file", help="narrations file: rows with narration, terms (optional with --generator) and id")
    p.add_argument("-o", "--output", default=DEFAULT_OUTPUT,
                   help=f"JSONL results, appended and resumed (default {DEFAULT_OUTPUT})")
    p.add_argument("--generator", help="make terms for rows without any with an offline generator (keywords or visual)")
    p.add_argument("--threshold", type=float, default=None, help="pass threshold on the score (default: the assertion's, 0.8)")
    p.add_argument("--engine", choices=("local", "dask"), default=None, help="local process pool (default) or Dask distributed")
    p.add_argument("-j", "--workers", type=int, default=None, help="worker processes (default: one per core)")
    p.add_argument("--scheduler", help="address of a running Dask scheduler (implies --engine dask)")
    p.add_argument("--max-attempts", type=int, default=3, help="tries per row when its worker process dies (default 3)")
    p.add_argument("--cache", choices=("readwrite", "off"), default=None,
                   help="the judge cache (default: REELJUDGE_CACHE, else readwrite: promptfoo runs of the same rows then hit it)")
    p.add_argument("--details", action="store_true", help="also record the judge's per-term evidence")
    p.add_argument("--retry-errors", action="store_true", help="judge again the rows recorded as errors")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    """Judge the file and print a summary; the exit code says whether every row was judged (bad arguments or
    input: BadInputError, exit 2 by ``reeljudge.exits``)."""
    from reeljudge.filmability.bulk import bulk_options, judge_rows, latest_records, read_rows
    from reeljudge.library.cli import make_engine
    from reeljudge.library.jsonl import open_results

    config = {k: v for k, v in (("threshold", args.threshold), ("cache", args.cache)) if v is not None}
    options, settings = bulk_options(config)
    engine = make_engine(args)
    rows = read_rows(args.file, generator=args.generator, options=options)
    with open_results(args.output) as out:
        stats = judge_rows(rows, out, engine, options=options, settings=settings, details=args.details,
                           retry_errors=args.retry_errors, progress=not args.no_progress)
        records = latest_records(out.records, rows)
    print("\n".join(summary_lines(records, stats, args.file)))
    print(f"results: {args.output}")
    return 1 if any(r.get("status") == "error" for r in records) else 0


def _located(ref: str, message: str) -> str:
    """``ref: message``, unless the message already starts with where the row is (a row without an id)."""
    return message if message.startswith(f"{ref}: ") else f"{ref}: {message}"


def summary_lines(records: Sequence[dict[str, Any]], stats: Any, source: str, max_errors: int = 50) -> list[str]:
    """The printed report: the run, scores by level and criterion, and the rows that could not be judged."""
    judged = [r for r in records if r.get("status") == "ok"]
    errors = [r for r in records if r.get("status") == "error"]
    lines = [
        f"narrations {source}: {len(records)} rows; {stats.engine}",
        f"this run: {stats.written - stats.errors} judged, {stats.done_before} already done "
        f"({stats.elapsed_s:.1f} s, {stats.rate:.2f} narrations/s)",
    ]
    if judged:
        n = len(judged)
        mean = sum(r["score"] for r in judged) / n
        passed = sum(bool(r["passed"]) for r in judged)
        lines.append(f"judged {n}: mean score {mean:.3f}, {passed} pass ({100.0 * passed / n:.1f}%) at threshold "
                     f"{judged[0]['threshold']:g}")
        levels = Counter(r["level"] for r in judged)
        lines.append("  levels: " + ", ".join(f"{lv} {levels.get(lv, 0)}" for lv in ("EXCELLENT", "GOOD", "ACCEPTABLE", "POOR")))
        for name, top in (("relevance", 3), ("filmability", 3), ("variety", 1)):
            lines.append(f"  {name}: mean {sum(r['breakdown'][name] for r in judged) / n:.2f}/{top}")
    if errors:
        lines.append(f"could not be judged ({len(errors)}):")
        lines.extend(f"  {_located(r['ref'], r['error']['message'])} ({r['error']['kind']})" for r in errors[:max_errors])
        if len(errors) > max_errors:
            lines.append(f"  … and {len(errors) - max_errors} more (status \"error\" in the output)")
    return lines
