"""``reeljudge calibrate JUDGE HUMAN``: how well a judge's scores agree with human ratings.

Exit codes: 0 a report was written, 2 the input cannot be calibrated (the message says why).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reeljudge.calibration.ab_source import Study
    from reeljudge.calibration.inputs import HumanRatings, JudgeScores


def _calibrate(args: argparse.Namespace) -> int:
    from reeljudge.calibration.metrics import Settings, calibrate
    from reeljudge.calibration.report import render, report_json

    settings = Settings(
        resamples=args.resamples,
        confidence=args.confidence,
        seed=args.seed,
        min_overlap=args.min_overlap,
        ratings_are_means=args.ratings_are_means,
        tie_epsilon=args.tie_epsilon,
    )
    judge, human, study = _read_inputs(args)
    report = calibrate(judge, human, settings, str(args.judge), str(args.human), study)
    text = render(report)
    if args.markdown:
        _write(args.markdown, text)
    if args.json:
        _write(args.json, json.dumps(report_json(report), indent=2, ensure_ascii=False) + "\n")
    if not args.quiet:
        sys.stdout.write(text)
    return 0


def _read_inputs(args: argparse.Namespace) -> tuple[JudgeScores, HumanRatings, Study | None]:
    """The judge scores, the human ratings and the A/B study (None unless the ratings are one) the arguments name;
    BadInputError when they cannot be read or do not go together."""
    from reeljudge.calibration.ab_source import is_study, read_study
    from reeljudge.calibration import dsg_source
    from reeljudge.calibration.inputs import read_human_ratings, read_judge_scores
    from reeljudge.errors import BadInputError

    study: Study | None = None
    if is_study(args.human):
        human, study = read_study(args.human, args.dimension)
    elif args.dimension is not None:
        raise BadInputError(f"--dimension is for an A/B study folder; {args.human} is not one (no ab.sqlite)")
    elif dsg_source.is_dsg_likert(args.human):
        human = dsg_source.read_dsg_likert(args.human)
    else:
        human = read_human_ratings(args.human)
    item = args.item or ("{clip}" if study is not None else None)
    if dsg_source.is_dsg_answers(args.judge):
        judge = dsg_source.read_dsg_answers(args.judge, args.dependencies, args.dsg_rule)
    elif args.dependencies:
        raise BadInputError(f"--dependencies is for a DSG answer file; {args.judge} is not one (no item_id, "
                            "question_id, answer columns)")
    else:
        judge = read_judge_scores(args.judge, args.metric or [], item)
    return judge, human, study


def _write(path: str, text: str) -> None:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def _fraction(text: str) -> float:
    value = float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text}")
    return value


def _resamples(text: str) -> int:
    value = int(text)
    if value < 100:
        raise argparse.ArgumentTypeError(f"at least 100 resamples, got {text}")
    return value


def add_parser(sub: argparse._SubParsersAction) -> None:
    """``reeljudge calibrate``."""
    p = sub.add_parser(
        "calibrate",
        help="agreement of judge scores with human ratings (Pearson, Spearman, Kendall tau-b, acc23)",
        description="Join judge scores and human ratings by item id and report correlations and pairwise "
        "accuracy with tie calibration, with bootstrap intervals, for all items and per family and tag.",
    )
    p.add_argument("judge", help="promptfoo results JSON, or CSV/JSONL with 'item' and score column(s), or a DSG VQA answer "
                   "CSV (item_id, question_id, answer[, t2i_model, dependency_id]: scored with score_with_dependencies)")
    p.add_argument("human", help="CSV/JSONL of human ratings: item, rating[, rater][, tags][, family], or JSONL 'ratings'; "
                   "or an A/B study folder (reeljudge ab: items are clips); or DSG's Likert CSV (t2i_model, "
                   "item_id, worker_id, answer)")
    p.add_argument("--dependencies", help="DSG answer files: the question graphs (dsg-1k-anns.csv: item_id, proposition_id, "
                   "dependency); every question listed counts, unanswered ones as wrong (default: the answers' dependency_id)")
    p.add_argument("--dsg-rule", choices=("transitive", "released"), default="transitive",
                   help="DSG answer files: transitive (a question under any wrong ancestor scores 0; default) or released "
                   "(DSG's released script: direct parents only, and an unreadable dependency cell drops the item's graph)")
    p.add_argument("--metric", action="append",
                   help="judge score to calibrate: a namedScore or 'score' (promptfoo), or a column; repeat for several "
                   "(default: score)")
    p.add_argument("--item", default=None,
                   help="item id of a promptfoo test, from {description} {provider} {prompt} {clip} {vars.NAME} "
                   "(default: {description}; {clip}, the clip's sha256, against an A/B study)")
    p.add_argument("--dimension", help="A/B study: the rating dimension to calibrate against (e.g. prompt_adherence)")
    p.add_argument("--tie-epsilon", type=float, default=0.0,
                   help="A/B study winners: the judge's pick is a tie when its two scores differ by at most this (default 0)")
    p.add_argument("--ratings-are-means", action="store_true",
                   help="each human rating is already a mean over several raters (allows one rating per item)")
    p.add_argument("--min-overlap", type=_fraction, default=0.5,
                   help="least share of rated items that must have judge scores (default 0.5)")
    p.add_argument("--resamples", type=_resamples, default=1000, help="bootstrap resamples (default 1000)")
    p.add_argument("--confidence", type=_fraction, default=0.95, help="interval confidence level (default 0.95)")
    p.add_argument("--seed", type=int, default=20261122, help="bootstrap seed")
    p.add_argument("--json", help="write the report as JSON here")
    p.add_argument("--markdown", help="write the Markdown report here")
    p.add_argument("-q", "--quiet", action="store_true", help="do not print the report")
    p.set_defaults(func=_calibrate)
