"""How well judge scores agree with human ratings: correlations and tie-calibrated pairwise accuracy.

Items are joined by id; an item's human score is the mean of its ratings. For every judge metric
and every group (all items, each family, each tag) the report gives Pearson, Spearman, Kendall's
tau-b and pairwise accuracy with tie calibration (acc23), each with a bootstrap interval over
items. Input that cannot be calibrated (no shared ids, too few items, constant scores, a single
rater) raises CannotCompare with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reeljudge.calibration.inputs import HumanRatings, JudgeScores
from reeljudge.gates.results import CannotCompare
from reeljudge.stats.bootstrap import Interval

MIN_ITEMS = 3
#: bootstrap replicates of acc23 use at most this many pairs (a seeded subset; the estimate uses all)
REPLICATE_PAIRS = 200_000
STATISTICS = ("pearson", "spearman", "kendall_tau_b", "pairwise_accuracy")


@dataclass(frozen=True)
class Settings:
    """Calibration settings.

    Attributes:
        resamples: bootstrap resamples per interval.
        confidence: confidence level of the intervals.
        seed: bootstrap seed.
        min_overlap: least share of the human-rated items that must have judge scores.
        ratings_are_means: the human file holds per-item means over several raters (not one rater's).
        tie_epsilon: A/B winners: the judge calls a pair a tie when its two scores differ by at most this.
    """

    resamples: int = 1000
    confidence: float = 0.95
    seed: int = 20261122
    min_overlap: float = 0.5
    ratings_are_means: bool = False
    tie_epsilon: float = 0.0


@dataclass(frozen=True)
class GroupResult:
    """The statistics of one group of items for one judge metric (empty with a note if undefined)."""

    group: str
    n: int
    statistics: dict[str, Interval] = field(default_factory=dict)
    epsilon: float | None = None  # acc23's tie threshold on the judge's scale
    note: str | None = None


@dataclass
class Report:
    """The whole calibration: inputs, join, per metric and group results."""

    judge_path: str
    human_path: str
    settings: Settings
    judge_items: int
    human_items: int
    matched: list[str]
    judge_only: list[str]
    human_only: list[str]
    not_judged: list[str]
    raters: int
    rater_ceiling: dict[str, float] = field(default_factory=dict)  # rater -> Spearman vs the others' mean
    results: dict[str, list[GroupResult]] = field(default_factory=dict)  # judge metric -> groups
    pairwise: dict[str, dict] = field(default_factory=dict)  # judge metric -> agreement with the human majority (A/B)
    dimension: str | None = None  # the A/B rating dimension the per-clip scores are


def calibrate(judge: JudgeScores, human: HumanRatings, settings: Settings, judge_path: str = "judge", human_path: str = "human",
              study: Any = None) -> Report:
    """The calibration report; CannotCompare for input that cannot be calibrated.

    ``study`` (from ``reeljudge.calibration.ab_source.read_study``) adds, per judge metric, the
    judge's pairwise picks against the human majority winners of the A/B study.
    """
    raters = _rater_count(human, settings, human_path)
    matched = sorted(set(judge.items) & set(human.items))
    _require_overlap(judge, human, matched, settings, judge_path, human_path)
    report = Report(
        judge_path, human_path, settings, len(judge.items), len(human.items), matched,
        sorted(set(judge.items) - set(human.items)), sorted(set(human.items) - set(judge.items)),
        sorted(set(judge.not_judged) & set(human.items)), raters,
    )
    y = np.array([np.mean(human.items[i].ratings) for i in matched])
    _require_varied(y, "human ratings (per-item means)", len(matched))
    report.rater_ceiling = _rater_ceiling(human, matched)
    groups = _groups(judge, human, matched)
    for metric in judge.metrics:
        x = np.array([judge.items[i].scores[metric] for i in matched])
        _require_varied(x, f"judge scores ({metric})", len(matched))
        report.results[metric] = [_group_result(name, x[idx], y[idx], settings) for name, idx in groups]
    if study is not None:
        from reeljudge.calibration.ab_source import judge_vs_majority

        report.dimension = study.dimension
        for metric in judge.metrics:
            scores = {item: entry.scores[metric] for item, entry in judge.items.items()}
            report.pairwise[metric] = judge_vs_majority(study, scores, f"judge:{metric}", tie_epsilon=settings.tie_epsilon,
                                                        n_resamples=settings.resamples, seed=settings.seed)
    return report


def _rater_count(human: HumanRatings, settings: Settings, path: str) -> int:
    """How many raters the ratings come from; CannotCompare for one, unless they are means."""
    count = len(human.raters) if human.raters else human.max_ratings_per_item
    if count < 2 and not settings.ratings_are_means:
        who = f" ({next(iter(human.raters))})" if human.raters else ""
        raise CannotCompare(
            f"{path}: every item has ratings from a single rater{who}: a judge calibrated against one person "
            "measures that person's taste, and their own noise cannot be told apart. Add ratings from a second "
            "rater, or, if each rating is already a mean over several raters, pass --ratings-are-means."
        )
    return count


def _require_overlap(judge: JudgeScores, human: HumanRatings, matched: list[str], settings: Settings, jp: str, hp: str) -> None:
    """CannotCompare when too few rated items have judge scores (ids that do not match)."""
    share = len(matched) / len(human.items)
    if matched and share >= settings.min_overlap and len(matched) >= MIN_ITEMS:
        return
    judge_ids = ", ".join(repr(i) for i in sorted(judge.items)[:3])
    human_ids = ", ".join(repr(i) for i in sorted(set(human.items) - set(judge.items))[:3])
    if len(matched) < MIN_ITEMS and share >= settings.min_overlap:
        raise CannotCompare(f"only {len(matched)} items have both judge scores and human ratings; "
                            f"at least {MIN_ITEMS} are needed")
    raise CannotCompare(
        f"item ids do not match: {len(matched)} of the {len(human.items)} rated items in {hp} have judge scores in {jp} "
        f"({share:.0%}, min_overlap {settings.min_overlap:.0%}). Judge items look like {judge_ids}; "
        f"unmatched human items look like {human_ids}."
    )


def _require_varied(values: np.ndarray, what: str, n: int) -> None:
    if np.all(values == values[0]):
        raise CannotCompare(f"{what} are constant ({values[0]:g}) over the {n} matched items: every correlation is undefined")


def _groups(judge: JudgeScores, human: HumanRatings, matched: list[str]) -> list[tuple[str, np.ndarray]]:
    """(name, item indices) for all items, each family and each tag (human file's first, then the judge's)."""
    families: dict[str, list[int]] = {}
    tags: dict[str, list[int]] = {}
    for k, item in enumerate(matched):
        h, j = human.items[item], judge.items[item]
        family = h.family or j.family
        if family:
            families.setdefault(family, []).append(k)
        for tag in sorted(h.tags | j.tags):
            tags.setdefault(tag, []).append(k)
    groups = [("all", np.arange(len(matched)))]
    groups += [(f"family={f}", np.array(v)) for f, v in sorted(families.items())]
    groups += [(f"tag={t}", np.array(v)) for t, v in sorted(tags.items())]
    return groups


def _group_result(name: str, x: np.ndarray, y: np.ndarray, settings: Settings) -> GroupResult:
    """Every statistic of one group with its interval, or a note saying why there are none."""
    from reeljudge.stats.correlation import correlations_with_intervals

    if x.size < MIN_ITEMS:
        return GroupResult(name, int(x.size), note=f"too few items ({x.size}; at least {MIN_ITEMS})")
    for values, what in ((x, "judge scores"), (y, "human ratings")):
        if np.all(values == values[0]):
            return GroupResult(name, int(x.size), note=f"undefined: {what} are constant ({values[0]:g}) in this group")
    stats = correlations_with_intervals(x, y, n_resamples=settings.resamples, confidence=settings.confidence, seed=settings.seed)
    stats["pairwise_accuracy"], epsilon = _pairwise_interval(x, y, settings)
    return GroupResult(name, int(x.size), stats, epsilon)


def _pairwise_interval(x: np.ndarray, y: np.ndarray, settings: Settings) -> tuple[Interval, float]:
    """acc23 on all pairs, with an interval from item resamples (the shared bootstrap's weights)."""
    from reeljudge.stats.bootstrap import bootstrap_weighted
    from reeljudge.stats.pairwise_accuracy import PairwiseAccuracy

    full = PairwiseAccuracy(x, y)
    point = full()
    replicate = full if full.sample_rate == 1.0 and x.size * (x.size - 1) // 2 <= REPLICATE_PAIRS else (
        PairwiseAccuracy(x, y, max_pairs=REPLICATE_PAIRS, seed=settings.seed)
    )
    interval = bootstrap_weighted(
        lambda weights: np.array([replicate(np.rint(w)).accuracy for w in weights]),
        x.size, n_resamples=settings.resamples, confidence=settings.confidence, seed=settings.seed,
    )
    return Interval(point.accuracy, interval.low, interval.high, interval.confidence, x.size, interval.n_resamples,
                    interval.undefined_share), point.epsilon


def _rater_ceiling(human: HumanRatings, matched: list[str]) -> dict[str, float]:
    """Per named rater: Spearman of their ratings with the mean of the other raters on the same items."""
    from reeljudge.stats.correlation import correlation

    ceiling = {}
    for rater in sorted(human.raters):
        mine, others = [], []
        for item in matched:
            scores = human.items[item].scores
            rest = [v for r, v in scores.items() if r != rater]
            if rater in scores and rest:
                mine.append(scores[rater])
                others.append(float(np.mean(rest)))
        if len(mine) >= MIN_ITEMS:
            ceiling[rater] = correlation("spearman", np.array(mine), np.array(others))
    return ceiling
