"""Comparing a candidate run with a base run: paired differences per metric, with intervals.

Tests are matched by provider, prompt, description and vars (repeats of one test are averaged
into one unit). For every metric (the score, the pass rate, each namedScore) and every group
(provider, or all), the mean of the paired differences candidate - base gets a bootstrap interval
over tests; a gated metric whose interval lies entirely below ``-tolerance`` is a regression.
Tests that did not judge in either run are left out of the differences and listed apart; tests
judged in the base but not in the candidate fail the gate beyond ``max_unjudged``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable

from reeljudge.gates.gatefile import GateSettings, check_metric_names
from reeljudge.gates.results import CannotCompare, Cell, ResultsFile
from reeljudge.stats.bootstrap import Interval

SCORE, PASS_RATE = "score", "pass_rate"


@dataclass(frozen=True)
class Unit:
    """One test of one run: its cells (repeats) pooled."""

    label: str
    group: str
    judged: bool
    values: dict[str, float]  # metric -> mean over the repeats
    reason: str
    metric_reasons: dict[str, str]


@dataclass(frozen=True)
class MetricRow:
    """The paired comparison of one metric in one group."""

    group: str
    metric: str
    base_mean: float
    candidate_mean: float
    difference: Interval
    tolerance: float
    gated: bool

    @property
    def verdict(self) -> str:
        """``regression``, ``improved`` or ``ok`` (the interval reaches within the tolerance)."""
        if self.difference.high < -self.tolerance:
            return "regression" if self.gated else "regression (not gated)"
        if self.difference.low > self.tolerance:
            return "improved"
        return "ok"


@dataclass(frozen=True)
class TestChange:
    """One test's largest drop on a metric, with both runs' reasons."""

    label: str
    group: str
    metric: str
    base: float
    candidate: float
    reason: str
    base_reason: str


@dataclass
class SuiteReport:
    """Everything ``compare`` found for one pair of results files."""

    name: str
    base: dict[str, Any]
    candidate: dict[str, Any]
    settings: GateSettings
    matched: int = 0
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unjudged_candidate: list[tuple[str, str]] = field(default_factory=list)  # judged in base only
    unjudged_base: list[tuple[str, str]] = field(default_factory=list)  # judged in candidate only
    unjudged_both: list[tuple[str, str]] = field(default_factory=list)
    rows: list[MetricRow] = field(default_factory=list)
    worst: list[TestChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def regressions(self) -> list[MetricRow]:
        return [r for r in self.rows if r.gated and r.verdict == "regression"]

    @property
    def too_many_unjudged(self) -> bool:
        return len(self.unjudged_candidate) > self.settings.max_unjudged

    @property
    def exit_code(self) -> int:
        """0 when the gate passes, 1 on a regression or tests the candidate did not judge."""
        return 1 if self.regressions or self.too_many_unjudged else 0


def compare_results(base: ResultsFile, candidate: ResultsFile, settings: GateSettings, name: str = "") -> SuiteReport:
    """The report for ``candidate`` against ``base``; CannotCompare when they cannot be paired."""
    for run, role in ((base, "base"), (candidate, "candidate")):
        _require_judged(run, role)
    multi_prompt = len({c.prompt for c in [*base.cells, *candidate.cells]}) > 1
    base_units = _units(base.cells, settings, multi_prompt)
    cand_units = _units(candidate.cells, settings, multi_prompt)
    report = SuiteReport(name or candidate.path, _run_info(base), _run_info(candidate), settings)
    shared = [k for k in base_units if k in cand_units]
    _require_same_config(base, candidate, base_units, cand_units, len(shared), settings)
    report.matched = len(shared)
    report.added = [cand_units[k].label for k in cand_units if k not in base_units]
    report.removed = [base_units[k].label for k in base_units if k not in cand_units]
    pairs = []
    for key in shared:
        b, c = base_units[key], cand_units[key]
        if b.judged and c.judged:
            pairs.append((b, c))
        elif b.judged:
            report.unjudged_candidate.append((c.label, c.reason))
        elif c.judged:
            report.unjudged_base.append((b.label, b.reason))
        else:
            report.unjudged_both.append((c.label, c.reason))
    if not pairs:
        raise CannotCompare(f"{report.name}: no test was judged in both runs ({len(shared)} matched tests)")
    metrics = {m for b, c in pairs for m in (*b.values, *c.values)}
    report.notes += check_metric_names(settings, metrics)
    report.rows = _metric_rows(pairs, settings, report.notes)
    report.worst = _worst(pairs, report.rows, settings)
    return report


def _require_judged(run: ResultsFile, role: str) -> None:
    """CannotCompare when a run judged nothing (saying why its first test was not judged)."""
    if run.judged_count == 0:
        first = run.cells[0]
        raise CannotCompare(
            f"{role} results {run.path}: none of its {len(run.cells)} test results was judged "
            f"(e.g. {first.label}: {first.reason[:300]})"
        )


def _units(cells: Iterable[Cell], settings: GateSettings, multi_prompt: bool) -> dict[tuple, Unit]:
    """Cells pooled per test key (repeats averaged; a unit is judged only if all its cells are)."""
    grouped: dict[tuple, list[Cell]] = defaultdict(list)
    for cell in cells:
        grouped[cell.key].append(cell)
    units = {}
    for key, group in grouped.items():
        first = group[0]
        sums: dict[str, float] = defaultdict(float)
        counts: dict[str, int] = defaultdict(int)
        for cell in group:
            for metric, value in _cell_values(cell).items():
                sums[metric] += value
                counts[metric] += 1
        unjudged = next((c for c in group if not c.judged), None)
        name = "all"
        if settings.group_by == "provider":
            name = f"{first.provider} · {first.prompt}" if multi_prompt else (first.provider or "all")
        units[key] = Unit(
            label=first.label,
            group=name,
            judged=unjudged is None,
            values={m: sums[m] / counts[m] for m in sums},
            reason=(unjudged or first).reason,
            metric_reasons=first.metric_reasons,
        )
    return units


def _cell_values(cell: Cell) -> dict[str, float]:
    values = {PASS_RATE: 1.0 if cell.success else 0.0}
    if cell.score is not None:
        values[SCORE] = cell.score
    values.update(cell.named)
    return values


def _require_same_config(base: ResultsFile, cand: ResultsFile, bu: dict, cu: dict, shared: int, settings: GateSettings) -> None:
    """CannotCompare when too few of the base's tests are in the candidate (different configs)."""
    share = shared / len(bu)
    if share >= settings.min_matched_share:
        return
    lines = [f"only {shared} of the base's {len(bu)} tests are in the candidate ({share:.0%}, "
             f"min_matched_share {settings.min_matched_share:.0%}): these look like results of different configs"]
    if base.description != cand.description:
        lines.append(f"config descriptions differ: base {base.description!r}, candidate {cand.description!r}")
    bp, cp = sorted({u.group for u in bu.values()}), sorted({u.group for u in cu.values()})
    if bp != cp:
        lines.append(f"groups differ: base {', '.join(bp)}; candidate {', '.join(cp)}")
    lines.append(f"first base test: {next(iter(bu.values())).label}; first candidate test: {next(iter(cu.values())).label}")
    raise CannotCompare("; ".join(lines))


def _metric_rows(pairs: list[tuple[Unit, Unit]], settings: GateSettings, notes: list[str]) -> list[MetricRow]:
    """One row per (group, metric) present in both runs; one joint resampling of tests per group."""
    import numpy as np

    from reeljudge.stats.bootstrap import bootstrap_column_means

    by_group: dict[str, list[tuple[Unit, Unit]]] = defaultdict(list)
    for b, c in pairs:
        by_group[b.group].append((b, c))
    rows = []
    for group in sorted(by_group):
        members = by_group[group]
        metrics = sorted({m for b, c in members for m in (*b.values, *c.values)}, key=_metric_order)
        nan = float("nan")
        base = np.array([[b.values.get(m, nan) for m in metrics] for b, _ in members])
        cand = np.array([[c.values.get(m, nan) for m in metrics] for _, c in members])
        both = ~np.isnan(base) & ~np.isnan(cand)
        diffs = np.where(both, cand - base, nan)
        intervals = bootstrap_column_means(diffs, n_resamples=settings.resamples, confidence=settings.confidence, seed=settings.seed)
        for j, metric in enumerate(metrics):
            if not both[:, j].any():
                side = "candidate" if not np.isnan(cand[:, j]).all() else "base"
                notes.append(f"{group}: metric {metric!r} is only in the {side} run; not compared")
                continue
            rows.append(MetricRow(group, metric, float(base[both[:, j], j].mean()), float(cand[both[:, j], j].mean()),
                                  intervals[j], settings.tolerance_for(metric), settings.gated(metric)))
    return rows


def _metric_order(metric: str) -> tuple[int, str]:
    return ({SCORE: 0, PASS_RATE: 1}.get(metric, 2), metric)


def _worst(pairs: list[tuple[Unit, Unit]], rows: list[MetricRow], settings: GateSettings) -> list[TestChange]:
    """Per test, its largest drop on a gated metric (regressed metrics first); the worst N."""
    regressed = {(r.group, r.metric) for r in rows if r.verdict == "regression"}
    gated = {r.metric for r in rows if r.gated and r.metric != PASS_RATE}
    changes = []
    for b, c in pairs:
        drops = [
            ((b.group, m) in regressed, b.values[m] - c.values[m], m)
            for m, value in c.values.items()
            if m in gated and m in b.values and value < b.values[m]
        ]
        if drops:
            _, _, metric = max(drops)
            changes.append(
                (max(drops)[:2], TestChange(c.label, c.group, metric, b.values[metric], c.values[metric],
                                            c.metric_reasons.get(metric, c.reason), b.metric_reasons.get(metric, b.reason)))
            )
    changes.sort(key=lambda item: item[0], reverse=True)
    return [change for _, change in changes[: settings.worst]]


def _run_info(run: ResultsFile) -> dict[str, Any]:
    return {
        "path": run.path,
        "promptfoo_version": run.promptfoo_version,
        "description": run.description,
        "eval_id": run.eval_id,
        "tests": len(run.cells),
        "judged": run.judged_count,
    }
