"""The calibration report as Markdown and as JSON."""

from __future__ import annotations

import math
from typing import Any

from reeljudge.calibration.metrics import STATISTICS, GroupResult, Report

_NAMES = {"pearson": "Pearson", "spearman": "Spearman", "kendall_tau_b": "Kendall τb",
          "pairwise_accuracy": "pairwise acc (acc23)"}
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
    if report.dimension:
        lines += [f"Human scores: the A/B study's `{report.dimension}` ratings (1-5) per clip, each rater's mean.", ""]
    for metric, groups in report.results.items():
        lines += [f"### judge metric `{metric}`", "", _header(), "|---|---:|" + "---|" * len(STATISTICS) + "---:|"]
        lines += [_row(g) for g in groups]
        lines.append("")
        if metric in report.pairwise:
            lines += _pairwise(report.pairwise[metric])
    return "\n".join(lines)


def _pairwise(result: dict) -> list[str]:
    """The judge's A/B picks against the human majority, worded as in the A/B report."""
    rate = result["rate"]
    no_ties = result.get("without_ties")
    kappa = "–" if result.get("kappa") is None else f"{result['kappa']:.3f}"
    lines = [
        f"Pairwise (A/B winners): the judge picks the clip it scores higher (a tie within ε = {result['tie_epsilon']:g}); "
        f"against the strict majority of at least 2 human raters on {result['units']} samples: "
        f"agreement {_pct(rate)}, Cohen's κ {kappa}",
    ]
    if no_ties and no_ties.get("pairs"):
        lines[-1] += f"; without ties {_pct(no_ties['interval'])} on {no_ties['pairs']} samples"
    lines[-1] += (f". {result['no_majority']} samples had no human majority; {result['samples_without_judge_scores']} "
                  "samples lack a judge score for one of their clips.")
    return [*lines, ""]


def _pct(interval: dict) -> str:
    if interval.get("estimate") is None:
        return "–"
    return f"{interval['estimate']:.0%} [{interval['low']:.0%}, {interval['high']:.0%}]"


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
        "ab_dimension": report.dimension,
        "pairwise_vs_human_majority": report.pairwise,
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
