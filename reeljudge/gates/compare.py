"""Comparing a candidate run with a base run: paired differences per metric, with intervals.

Tests are matched by provider, prompt, description and vars (repeats of one test are averaged
into one unit). For every metric (the score, the pass rate, each namedScore) and every group
(provider, or all), the mean of the paired differences candidate - base gets a bootstrap interval
over tests; a gated metric whose interval lies entirely below ``-tolerance`` is a regression, one
whose interval straddles it is inconclusive. Tests that did not judge in either run are left out
of the differences and listed apart; tests judged in the base but not in the candidate fail the
gate beyond ``max_unjudged``, tests that newly fail beyond ``max_newly_failing`` (``flips``). Both
runs must have been judged alike (``judges``). The verdicts and exit codes: ``verdicts``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable

from reeljudge.gates import verdicts as V
from reeljudge.gates.flips import GroupFlips, group_flips
from reeljudge.gates.gatefile import GateSettings, check_metric_names
from reeljudge.gates.judges import check_judges, describe
from reeljudge.gates.results import CannotCompare, Cell, ResultsFile
from reeljudge.gates.units import Unit
from reeljudge.stats.bootstrap import Interval

SCORE, PASS_RATE = "score", "pass_rate"


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
    detectable_drop: float = float("nan")  # tolerance + z·s/√n of the paired differences (verdicts.detectable_drop)

    @property
    def verdict(self) -> str:
        """``regression``, ``inconclusive``, ``improved`` or ``ok``; ``… (not gated)`` for ignored metrics."""
        verdict = V.metric_verdict(self.difference.low, self.difference.high, self.tolerance)
        if not self.gated and verdict in (V.REGRESSION, V.INCONCLUSIVE):
            return f"{verdict} (not gated)"
        return verdict

    def text(self) -> str:
        """``film_relevance (generator-a) −0.080 [−0.095, −0.066]``."""
        d = self.difference
        return f"`{self.metric}` ({self.group}) {_signed(d.estimate)} [{_signed(d.low)}, {_signed(d.high)}]"


def _signed(value: float) -> str:
    return f"{value:+.3f}".replace("-", "−")


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
    flips: list[GroupFlips] = field(default_factory=list)
    judge_flags: list[str] = field(default_factory=list)  # judges differ, with on_judge_change: flag

    @property
    def regressions(self) -> list[MetricRow]:
        return [r for r in self.rows if r.gated and r.verdict == V.REGRESSION]

    @property
    def inconclusive(self) -> list[MetricRow]:
        return [r for r in self.rows if r.gated and r.verdict == V.INCONCLUSIVE]

    @property
    def too_many_unjudged(self) -> bool:
        return len(self.unjudged_candidate) > self.settings.max_unjudged

    @property
    def too_many_flips(self) -> list[GroupFlips]:
        return [g for g in self.flips if g.too_many_failing]

    @property
    def verdict(self) -> str:
        """passed, inconclusive or regression (``verdicts``)."""
        if self.regressions or self.too_many_unjudged or self.too_many_flips:
            return V.REGRESSION
        if self.inconclusive or self.judge_flags:
            return V.INCONCLUSIVE
        return V.PASSED

    @property
    def exit_code(self) -> int:
        """0 passed, 1 regression, 3 inconclusive (0 with ``on_inconclusive: warn``)."""
        return V.exit_code(self.verdict, self.settings.on_inconclusive)

    def reasons(self) -> list[str]:
        """Why the verdict is what it is, the deciding reasons first."""
        tol = lambda r: f"−{r.tolerance:g}"  # noqa: E731
        clearest = sorted(self.regressions, key=lambda r: r.difference.high + r.tolerance)  # the surest drop first
        out = [f"{r.text()} lies below {tol(r)}" for r in clearest]
        out += [f"{g.group}: {g.rule_text()}" for g in self.too_many_flips]
        if self.too_many_unjudged:
            out.append(f"{len(self.unjudged_candidate)} test(s) judged in the base are not judged in the candidate "
                       f"(max_unjudged {self.settings.max_unjudged})")
        out += [f"{r.text()} straddles {tol(r)}: cannot tell"
                for r in sorted(self.inconclusive, key=lambda r: r.difference.estimate)]
        out += self.judge_flags
        return out or ["every gated metric is within its tolerance and no test newly fails beyond the limit"]

    def evidence(self) -> list[tuple[str, int, float]]:
        """Per group: (group, paired tests, smallest detectable drop of its deciding metric)."""
        out = []
        for group in sorted({r.group for r in self.rows}):
            rows = [r for r in self.rows if r.group == group and r.gated] or [r for r in self.rows if r.group == group]
            decisive = sorted(rows, key=lambda r: (-V.ORDER.index(r.verdict) if r.verdict in V.ORDER else 0,
                                                   r.metric != SCORE, r.difference.estimate))[0]
            out.append((group, decisive.difference.n_units, decisive.detectable_drop))
        return out


def compare_results(base: ResultsFile, candidate: ResultsFile, settings: GateSettings, name: str = "") -> SuiteReport:
    """The report for ``candidate`` against ``base``; CannotCompare when they cannot be paired."""
    for run, role in ((base, "base"), (candidate, "candidate")):
        _require_judged(run, role)
    multi_prompt = len({c.prompt for c in [*base.cells, *candidate.cells]}) > 1
    base_units = _units(base.cells, settings, multi_prompt)
    cand_units = _units(candidate.cells, settings, multi_prompt)
    report = SuiteReport(name or candidate.path, run_info(base), run_info(candidate), settings)
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
    report.judge_flags = check_judges(report.name, base_units.values(), cand_units.values(),
                                      settings.on_judge_change, report.notes)
    metrics = {m for b, c in pairs for m in (*b.values, *c.values)}
    report.notes += check_metric_names(settings, metrics)
    report.rows = _metric_rows(pairs, settings, report.notes)
    report.worst = _worst(pairs, report.rows, settings)
    report.flips = _flips(pairs, [(base_units[k], cand_units[k]) for k in shared
                                  if base_units[k].judged and not cand_units[k].judged], settings)
    return report


def _flips(pairs: list[tuple[Unit, Unit]], lost: list[tuple[Unit, Unit]], settings: GateSettings) -> list[GroupFlips]:
    """Each group's flips (groups as the metric rows have them)."""
    groups = sorted({b.group for b, _ in pairs} | {b.group for b, _ in lost})
    return [group_flips(g, [p for p in pairs if p[0].group == g], [p for p in lost if p[0].group == g], settings)
            for g in groups]


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
            deterministic=all(c.deterministic for c in group),
            judges=tuple(sorted({j for c in group for j in c.judges})),
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
        intervals = bootstrap_column_means(diffs, n_resamples=settings.resamples,
                                           confidence=settings.confidence, seed=settings.seed)
        for j, metric in enumerate(metrics):
            if not both[:, j].any():
                side = "candidate" if not np.isnan(cand[:, j]).all() else "base"
                notes.append(f"{group}: metric {metric!r} is only in the {side} run; not compared")
                continue
            tolerance = settings.tolerance_for(metric)
            rows.append(MetricRow(group, metric, float(base[both[:, j], j].mean()), float(cand[both[:, j], j].mean()),
                                  intervals[j], tolerance, settings.gated(metric),
                                  V.detectable_drop(diffs[:, j], tolerance, settings.confidence)))
    return rows


def _metric_order(metric: str) -> tuple[int, str]:
    return ({SCORE: 0, PASS_RATE: 1}.get(metric, 2), metric)


def _worst(pairs: list[tuple[Unit, Unit]], rows: list[MetricRow], settings: GateSettings) -> list[TestChange]:
    """Per test, its largest drop on a gated metric (regressed metrics first); the worst N."""
    regressed = {(r.group, r.metric) for r in rows if r.verdict == V.REGRESSION}
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


def run_info(run: ResultsFile) -> dict[str, Any]:
    """What identifies a run in a report: its file, promptfoo version, description, eval id and test counts."""
    return {
        "path": run.path,
        "promptfoo_version": run.promptfoo_version,
        "description": run.description,
        "eval_id": run.eval_id,
        "tests": len(run.cells),
        "judged": run.judged_count,
        "judges": sorted(describe(i, options=True) for i in {j for cell in run.cells for j in cell.judges}),
    }
