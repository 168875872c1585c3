"""``reeljudge compare BASE CANDIDATE``: the pull-request gate over two promptfoo results.

Exit codes: 0 the gate passes, 1 a regression (a metric, tests that newly fail or are no longer
judged) or a suite with no baseline yet whose own tests fail the gate file's ``min_pass_rate``, 2 the results could not be
compared (bad input, a baseline judged differently; the message
says which file and what is wrong), 3 inconclusive (an interval too wide to tell; 0 with
``on_inconclusive: warn``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _compare(args: argparse.Namespace) -> int:
    from reeljudge.gates.gatefile import load_gate
    from reeljudge.gates.markdown import render
    from reeljudge.errors import BadInputError
    from reeljudge.gates.run import Comparison, SuiteFailure, compare_paths, comparison_json

    try:
        if args.baseline_unavailable:  # a look-up that failed is never "no baseline yet"
            why = f"could not fetch the baseline: {args.baseline_unavailable}"
            comparison = Comparison(suites=[SuiteFailure("baseline", why)])
        else:
            comparison = compare_paths(args.base, args.candidate, load_gate(args.gate))
    except BadInputError as error:
        comparison = Comparison(suites=[SuiteFailure("compare", error.message)])
    text = render(comparison, args.report_url)
    if args.gecko:
        from reeljudge.gates.markdown import gecko_sections

        section = gecko_sections(args.base, args.candidate)
        text += f"\n{section}" if section else ""
    if args.markdown:
        _write(args.markdown, text)
    if args.json:
        _write(args.json, json.dumps(comparison_json(comparison), indent=2, ensure_ascii=False) + "\n")
    if not args.quiet:
        sys.stdout.write(text)
    from reeljudge.gates.alone import AloneReport

    for suite in comparison.suites:
        if isinstance(suite, SuiteFailure):
            print(f"reeljudge compare: {suite.name}: {suite.message}", file=sys.stderr)
        elif isinstance(suite, AloneReport):
            print(f"reeljudge compare: {suite.name}: {suite.note} ({suite.rule_text()})", file=sys.stderr)
    print(f"reeljudge compare: {comparison.verdict} (exit {comparison.exit_code})", file=sys.stderr)
    return comparison.exit_code


def _write(path: str, text: str) -> None:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """``reeljudge compare``."""
    p = sub.add_parser(
        "compare",
        help="gate a candidate run against a base run (paired bootstrap intervals per metric)",
        description="Compare two promptfoo results files (or two folders of them, matched by file name). "
        "A suite with no baseline file (an empty base folder: nothing recorded yet) is judged alone, by its own tests "
        "and the gate file's min_pass_rate. Exit 0 when the gate passes, 1 on a regression (or a suite judged alone "
        "that fails its pass rate), 2 when the results cannot be compared, 3 when the data cannot tell (inconclusive).",
    )
    p.add_argument("base", help="base results JSON (promptfoo eval -o), or a folder of them")
    p.add_argument("candidate", help="candidate results JSON, or a folder of them")
    p.add_argument("--gate", help="gate file (YAML; default: reeljudge.gate.yaml if present, else built-in defaults)")
    p.add_argument("--json", help="write the full report as JSON here")
    p.add_argument("--markdown", help="write the Markdown summary here (PR comment, job summary)")
    p.add_argument("--report-url", help="link to the full report (e.g. the workflow run's artifacts), shown in the Markdown")
    p.add_argument("--gecko", action="store_true", help="append the Gecko per-tag section (tags that moved with their "
                   "intervals, the answer-letter check) for results files that hold Gecko results")
    p.add_argument("--baseline-unavailable", metavar="WHY", help="the baseline exists but could not be fetched (what the "
                   "look-up said): the verdict is could not compare (exit 2), never a suite judged alone")
    p.add_argument("-q", "--quiet", action="store_true", help="do not print the Markdown summary")
    p.set_defaults(func=_compare)
