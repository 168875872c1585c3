"""``reeljudge gecko …``: export generated question sets to YAML; check matched/counter-prompt pairs; the per-tag report."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from reeljudge.cache import cache_folder


def _export(args: argparse.Namespace) -> int:
    from reeljudge.cache import JudgeCache
    from reeljudge.gecko.question_store import export_yaml, stored_question_sets

    records = [
        r
        for r in stored_question_sets(JudgeCache(cache_folder(args.dir, "--dir")))
        if (not args.kind or r["media_kind"] == args.kind) and (not args.prompt or args.prompt.lower() in r["prompt"].lower())
    ]
    text = export_yaml(records)
    if args.output and args.output != "-":
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(text)
        print(f"exported {len(records)} question set(s) to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0 if records else 1


def _check_pairs(args: argparse.Namespace) -> int:
    from reeljudge.gecko.pairs import check_results_file

    report = check_results_file(args.results)
    print("\n".join(report.lines()))
    return 0 if report.ok else 1


def _report(args: argparse.Namespace) -> int:
    from reeljudge.gecko.report import build_report
    from reeljudge.gecko.report_html import render_html
    from reeljudge.gecko.report_markdown import render_markdown

    report = build_report(args.results)
    text = render_markdown(report)
    for path, body in ((args.markdown, text), (args.html, render_html(report) if args.html else "")):
        if path:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_text(body, encoding="utf-8")
            print(f"wrote {path}", file=sys.stderr)
    if not args.quiet:
        sys.stdout.write(text)
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    """``reeljudge gecko export-questions``, ``check-pairs`` and ``report``."""
    gecko = sub.add_parser("gecko", help="Gecko question sets and suite checks")
    actions = gecko.add_subparsers(dest="action", required=True)
    export = actions.add_parser("export-questions", aliases=["export-rubrics"],
                                help="write the generated question sets in the cache as YAML")
    export.add_argument("-o", "--output", help="output file (default: stdout)")
    export.add_argument("--dir", help="cache folder (default: REELJUDGE_CACHE_DIR or .reeljudge/cache)")
    export.add_argument("--kind", choices=("video", "image"), help="only question sets for this media kind")
    export.add_argument("--prompt", help="only prompts containing this text")
    export.set_defaults(func=_export)
    pairs = actions.add_parser("check-pairs", help="fail when a counter-prompt scored at or above its matched prompt")
    pairs.add_argument("results", help="promptfoo results JSON (eval -o results.json)")
    pairs.set_defaults(func=_check_pairs)
    report = actions.add_parser(
        "report", help="per model and tag: mean Gecko score with a bootstrap interval, what moved, answer-letter bias",
        description="Per provider (model) and tag: the mean score over matched-prompt tests with a 95%% bootstrap "
        "interval, tests and questions; the tags that moved between the first file (the baseline) and each later one; "
        "the answer-letter bias check. Markdown on stdout; --html writes a self-contained page with charts.",
    )
    report.add_argument("results", nargs="+", help="promptfoo results JSON files (eval -o); the first is the baseline")
    report.add_argument("--markdown", help="also write the Markdown here (PR comment, job summary)")
    report.add_argument("--html", help="write the HTML page (charts, no external files) here")
    report.add_argument("-q", "--quiet", action="store_true", help="do not print the Markdown")
    report.set_defaults(func=_report)
