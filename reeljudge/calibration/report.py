"""The calibration report as Markdown and as JSON."""

from __future__ import annotations

import math
from typing import Any

from reeljudge.calibration.metrics import STATISTICS, GroupResult, Report

_NAMES = {"pearson": "Pearson", "spearman": "Spearman", "kendall_tau_b": "Kendall τb", "pairwise_accuracy": "pairwise acc (acc23)"}
_LIST = 10


def render(report: Report) -> str:
    """A Markdown report: the join, then one table per judge metric."""
    s = report.settings
    lines = [
        "## reeljudge calibrate",
        "",
        f"judge: {report.judge_path} ({report.judge_items} items) · humans: {report.human_path} "
        f"({report.human_items} items, {_raters(report)}) · {len(report.matched)} items matched",
        "",
        f"Intervals: {s.confidence:.0%} percentile bootstrap over items, {s.resamples} resamples, seed {s.seed}. "
        "acc23 = pairwise accuracy with tie calibration (Deutsch et al. 2023): judge differences up to ε count as ties.",
        "",
    ]
    for title, items in (
        ("Rated items with no judge score", report.human_only),
        ("Judged items with no human rating", report.judge_only),
        ("Rated items the judge did not judge (left out, never scored)", report.not_judged),
    ):
        if items:
            more = f", … and {len(items) - _LIST} more" if len(items) > _LIST else ""
            lines += [f"**{title} ({len(items)}):** {', '.join(items[:_LIST])}{more}", ""]
    if report.rater_ceiling:
        values = ", ".join(f"{r} {v:.3f}" for r, v in report.rater_ceiling.items())
        mean = sum(report.rater_ceiling.values()) / len(report.rater_ceiling)
        lines += [f"Human ceiling (each rater's Spearman with the other raters' mean): mean {mean:.3f} ({values})", ""]
    for metric, groups in report.results.items():
        lines += [f"### judge metric `{metric}`", "", _header(), "|---|---:|" + "---|" * len(STATISTICS) + "---:|"]
        lines += [_row(g) for g in groups]
        lines.append("")
    return "\n".join(lines)


def _raters(report: Report) -> str:
    if report.settings.ratings_are_means:
        return "ratings are per-item means over raters"
    return f"{report.raters} raters"


def _header() -> str:
    return "| group | n | " + " | ".join(_NAMES[s] for s in STATISTICS) + " | ε |"


def _row(group: GroupResult) -> str:
    if group.note:
        return f"| {group.group} | {group.n} | {group.note} | " + " | ".join("–" for _ in STATISTICS[1:]) + " | – |"
    cells = [group.statistics[s].text() if s in group.statistics else "–" for s in STATISTICS]
    return f"| {group.group} | {group.n} | " + " | ".join(cells) + f" | {group.epsilon:.4g} |"


def report_json(report: Report) -> dict[str, Any]:
    """JSON-able data (NaN as null)."""
    return {
        "tool": "reeljudge calibrate",
        "judge": report.judge_path,
        "human": report.human_path,
        "settings": vars(report.settings),
        "items": {
            "judge": report.judge_items,
            "human": report.human_items,
            "matched": len(report.matched),
            "judge_only": report.judge_only,
            "human_only": report.human_only,
            "not_judged": report.not_judged,
        },
        "raters": report.raters,
        "rater_ceiling_spearman": {k: _num(v) for k, v in report.rater_ceiling.items()},
        "results": {
            metric: [
                {
                    "group": g.group,
                    "n": g.n,
                    "note": g.note,
                    "epsilon": g.epsilon,
                    **{name: interval.as_dict() for name, interval in g.statistics.items()},
                }
                for g in groups
            ]
            for metric, groups in report.results.items()
        },
    }


def _num(value: float) -> float | None:
    return None if value is None or math.isnan(value) else value
