"""``reeljudge gecko …``: export generated question sets to YAML; check matched/counter-prompt pairs."""

from __future__ import annotations

import argparse
import sys

from reeljudge.cache import default_cache_dir


def _export(args: argparse.Namespace) -> int:
    from reeljudge.cache import JudgeCache
    from reeljudge.gecko.question_store import export_yaml, stored_question_sets

    records = [
        r
        for r in stored_question_sets(JudgeCache(args.dir or default_cache_dir()))
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


def add_parser(sub: argparse._SubParsersAction) -> None:
    """``reeljudge gecko export-questions`` and ``reeljudge gecko check-pairs``."""
    gecko = sub.add_parser("gecko", help="Gecko question sets and suite checks")
    actions = gecko.add_subparsers(dest="action", required=True)
    export = actions.add_parser("export-questions", aliases=["export-rubrics"], help="write the generated question sets in the cache as YAML")
    export.add_argument("-o", "--output", help="output file (default: stdout)")
    export.add_argument("--dir", help="cache folder (default: REELJUDGE_CACHE_DIR or .reeljudge/cache)")
    export.add_argument("--kind", choices=("video", "image"), help="only question sets for this media kind")
    export.add_argument("--prompt", help="only prompts containing this text")
    export.set_defaults(func=_export)
    pairs = actions.add_parser("check-pairs", help="fail when a counter-prompt scored at or above its matched prompt")
    pairs.add_argument("results", help="promptfoo results JSON (eval -o results.json)")
    pairs.set_defaults(func=_check_pairs)
