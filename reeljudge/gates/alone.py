"""A suite with no baseline yet, judged alone: by its own tests' verdicts and the gate file's pass-rate rule.

The first pull request of a repository (the one that adds the gate) and every pull request opened
before the first push run on the default branch has finished have nothing to compare with; so has a
suite that a pull request adds. Such a suite is not "could not compare": its candidate run is judged
by what its own assertions said — each test's pass or fail, promptfoo's ``success`` — against
``min_pass_rate`` (per suite: ``min_pass_rates``; default 1.0, every test passes, as promptfoo's own
``PROMPTFOO_PASS_RATE_THRESHOLD`` default). A test whose judge did not judge never passes. Verdict:
``passed`` (exit 0) or ``failed`` (exit 1) with the failing and not-judged tests listed; never exit 2.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reeljudge.gates import verdicts as V
from reeljudge.gates.compare import run_info
from reeljudge.gates.gatefile import GateSettings
from reeljudge.gates.results import ResultsFile

#: the one line that says what happened (the comment, the log, the JSON)
NO_BASELINE = "no baseline yet: judged by its own thresholds; the first push to main records it"


@dataclass
class AloneReport:
    """One suite's candidate run judged on its own (no baseline file for it)."""

    name: str
    candidate: dict[str, Any]
    settings: GateSettings
    tests: int = 0
    passed: int = 0
    failing: list[tuple[str, str]] = field(default_factory=list)  # judged and failed: (test, reason)
    not_judged: list[tuple[str, str]] = field(default_factory=list)  # (test, why)
    accepted: str = ""  # a baseline there, its judge's options changed on purpose (the gate file accepts it): which

    @property
    def note(self) -> str:
        """Why the suite was judged alone, in one line."""
        if self.accepted:
            return (f"{self.accepted}, accepted (accept_option_changes): judged by its own thresholds, not compared; "
                    "the push to main records the new baseline")
        return NO_BASELINE

    @property
    def min_pass_rate(self) -> float:
        """This suite's rule (the gate file's ``min_pass_rates`` entry, else ``min_pass_rate``)."""
        return self.settings.min_pass_rate_for(self.name)

    @property
    def pass_rate(self) -> float:
        """Passing tests over all tests (a test not judged counts as not passing)."""
        return self.passed / self.tests if self.tests else 0.0

    @property
    def verdict(self) -> str:
        """``passed`` when the pass rate reaches the rule (and something was judged), else ``failed``."""
        return V.PASSED if self.passed and self.pass_rate >= self.min_pass_rate - 1e-12 else V.FAILED

    @property
    def exit_code(self) -> int:
        """0 passed, 1 failed."""
        return V.exit_code(self.verdict)

    def rule_text(self) -> str:
        """``3 of 4 tests pass (75%; min_pass_rate 100%)``."""
        return (f"{self.passed} of {self.tests} test{'s' if self.tests != 1 else ''} pass ({self.pass_rate:.0%}; "
                f"min_pass_rate {self.min_pass_rate:.0%})")

    def reasons(self) -> list[str]:
        """Why the verdict is what it is: the rule, then the first failing or not-judged test."""
        out = [f"{self.accepted + ', accepted' if self.accepted else 'no baseline yet'}, judged by its own thresholds: "
               f"{self.rule_text()}"]
        if self.verdict == V.FAILED:
            first = [*self.failing, *self.not_judged][:1]
            out += [f"{label} fails: {why}" for label, why in first if why] or [f"{label} fails" for label, _ in first]
            if not self.passed:
                out[0] += ": no test passed"
        return out


def judge_alone(candidate: ResultsFile, settings: GateSettings, name: str) -> AloneReport:
    """The report of a candidate run that has no baseline (each cell is one test; repeats count apart)."""
    report = AloneReport(name, run_info(candidate), settings, tests=len(candidate.cells))
    for cell in candidate.cells:
        if not cell.judged:
            report.not_judged.append((cell.label, cell.reason))
        elif cell.success:
            report.passed += 1
        else:
            report.failing.append((cell.label, cell.reason))
    return report

