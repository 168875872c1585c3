"""``compare`` over two files or two folders of results files, and its JSON form.

Folders are matched by file name (``results/filmability.json`` against
``baseline/filmability.json``): a suite missing from the candidate cannot be compared (exit 2); a
suite with no baseline file (an empty base folder: no push run has recorded one yet; or a suite the
pull request adds) is judged alone, by its own tests and the gate file's pass-rate rule (``alone``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from reeljudge.gates import verdicts as V
from reeljudge.gates.alone import AloneReport, judge_alone
from reeljudge.gates.compare import SuiteReport, compare_results
from reeljudge.gates.flips import GroupFlips
from reeljudge.gates.gatefile import GateSettings
from reeljudge.gates.judges import OptionsChanged
from reeljudge.errors import BadInputError
from reeljudge.gates.results import CannotCompare, read_results


@dataclass(frozen=True)
class SuiteFailure:
    """A suite that could not be compared, and why."""

    name: str
    message: str

    exit_code = V.EXIT_CODES[V.CANNOT_COMPARE]
    verdict = V.CANNOT_COMPARE


@dataclass
class Comparison:
    """Every suite's outcome; the exit code is the worst of them."""

    suites: list[SuiteReport | AloneReport | SuiteFailure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        """The worst suite's verdict (``could not compare`` when nothing was compared)."""
        return V.worst(s.verdict for s in self.suites)

    @property
    def exit_code(self) -> int:
        """The exit code of the verdict (``verdicts.exit_code``)."""
        return V.exit_code(self.verdict, self.on_inconclusive)

    @property
    def on_inconclusive(self) -> str:
        reports = [s for s in self.suites if isinstance(s, (SuiteReport, AloneReport))]
        return reports[0].settings.on_inconclusive if reports else "fail"


def compare_paths(base: str | Path, candidate: str | Path, settings: GateSettings) -> Comparison:
    """Compare two results files, or every same-named results file of two folders."""
    base, candidate = Path(base), Path(candidate)
    if base.is_dir() != candidate.is_dir() and base.exists() and candidate.exists():
        raise CannotCompare(f"compare two files or two folders, not a mix ({base}, {candidate})")
    comparison = Comparison()
    if not base.is_dir():
        comparison.suites.append(_one(base, candidate, settings, candidate.stem))
        return comparison
    base_files = {p.name: p for p in sorted(base.glob("*.json"))}
    cand_files = {p.name: p for p in sorted(candidate.glob("*.json"))}
    if not base_files and not cand_files:
        raise CannotCompare(f"no results files (*.json) in {base} or {candidate}")
    for name in sorted(base_files.keys() | cand_files.keys()):
        suite = Path(name).stem
        if name not in cand_files:
            comparison.suites.append(SuiteFailure(suite, f"the base has {name} but the candidate run wrote none"))
        elif name not in base_files:
            comparison.suites.append(_alone(cand_files[name], settings, suite))
        else:
            comparison.suites.append(_one(base_files[name], cand_files[name], settings, suite))
    return comparison


def _one(base: Path, candidate: Path, settings: GateSettings, name: str) -> SuiteReport | AloneReport | SuiteFailure:
    try:
        return compare_results(read_results(base), read_results(candidate), settings, name)
    except OptionsChanged as changed:  # never compared: refused, or (accepted in the gate file) judged by its own thresholds
        if not settings.accepts(changed.changes):
            return SuiteFailure(name, changed.message)
        report = _alone(candidate, settings, name)
        if isinstance(report, AloneReport):
            report.accepted = changed.named
        return report
    except BadInputError as error:
        return SuiteFailure(name, error.message)


def _alone(candidate: Path, settings: GateSettings, name: str) -> AloneReport | SuiteFailure:
    try:
        return judge_alone(read_results(candidate), settings, name)
    except BadInputError as error:
        return SuiteFailure(name, error.message)


def comparison_json(comparison: Comparison) -> dict[str, Any]:
    """The whole comparison as JSON-able data (NaN as null)."""
    return {
        "tool": "reeljudge compare",
        "verdict": comparison.verdict,
        "exit_code": comparison.exit_code,
        "notes": comparison.notes,
        "suites": [_suite_json(s) for s in comparison.suites],
    }


def _flips_json(g: GroupFlips) -> dict[str, Any]:
    return {"group": g.group, "paired_tests": g.paired, "deterministic": g.deterministic, "max_newly_failing": g.limit,
            "limit_source": g.limit_source, "too_many_failing": g.too_many_failing,
            "tests": [{"test": f.label, "kind": f.kind, "base_reason": f.base_reason, "candidate_reason": f.candidate_reason}
                      for f in g.flips]}


def _suite_json(suite: SuiteReport | AloneReport | SuiteFailure) -> dict[str, Any]:
    if isinstance(suite, SuiteFailure):
        return {"name": suite.name, "verdict": suite.verdict, "exit_code": suite.exit_code, "error": suite.message}
    if isinstance(suite, AloneReport):
        return {"name": suite.name, "verdict": suite.verdict, "exit_code": suite.exit_code, "baseline": None,
                "note": suite.note, "accepted": suite.accepted or None,
                "reasons": suite.reasons(), "candidate": suite.candidate, "tests": suite.tests,
                "passed": suite.passed, "pass_rate": suite.pass_rate, "min_pass_rate": suite.min_pass_rate,
                "failing": [{"test": t, "reason": r} for t, r in suite.failing],
                "not_judged": [{"test": t, "reason": r} for t, r in suite.not_judged]}
    return {
        "name": suite.name,
        "verdict": suite.verdict,
        "exit_code": suite.exit_code,
        "reasons": suite.reasons(),
        "evidence": [{"group": g, "paired_tests": n, "detectable_drop": _num(d)} for g, n, d in suite.evidence()],
        "flips": [_flips_json(g) for g in suite.flips],
        "judge_flags": suite.judge_flags,
        "base": suite.base,
        "candidate": suite.candidate,
        "matched": suite.matched,
        "added": suite.added,
        "removed": suite.removed,
        "not_judged": {
            "candidate_only": [{"test": t, "reason": r} for t, r in suite.unjudged_candidate],
            "base_only": [{"test": t, "reason": r} for t, r in suite.unjudged_base],
            "both": [{"test": t, "reason": r} for t, r in suite.unjudged_both],
        },
        "metrics": [
            {
                "group": r.group,
                "metric": r.metric,
                "base_mean": _num(r.base_mean),
                "candidate_mean": _num(r.candidate_mean),
                "difference": r.difference.as_dict(),
                "tolerance": r.tolerance,
                "gated": r.gated,
                "verdict": r.verdict,
                "detectable_drop": _num(r.detectable_drop),
            }
            for r in suite.rows
        ],
        "worst": [vars(w) for w in suite.worst],
        "notes": suite.notes,
        "gate": {k: (dict(v) if isinstance(v, Mapping) else list(v) if isinstance(v, tuple) else v)
                 for k, v in vars(suite.settings).items()},
    }


def _num(value: float) -> float | None:
    return None if math.isnan(value) else value
