"""Verdict flips: the tests whose pass/fail changed between the runs, per group, with both reasons.

A flip is evidence beside the metric intervals: with an offline or replayed judge (every answer
the same for the same input) a test that newly fails is a fact about the candidate, not noise, so
by default none may newly fail. A live LLM judge re-judges borderline tests differently from run
to run, in both directions; there newly failing tests are evidence when they outnumber the newly
passing ones by more than judging noise gives: a sign test (McNemar's test in its normal form) at
the gate's confidence, ``failing − passing ≤ z·√(failing + passing)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reeljudge.gates.units import Unit
    from reeljudge.gates.gatefile import GateSettings

NEWLY_FAILING, NEWLY_PASSING, NEWLY_NOT_JUDGED = "newly failing", "newly passing", "newly not judged"


@dataclass(frozen=True)
class Flip:
    """One test whose verdict changed, with the reason each run gave."""

    label: str
    group: str
    kind: str
    base_reason: str
    candidate_reason: str


@dataclass
class GroupFlips:
    """The flips of one group (provider), and the limit on tests that newly fail there."""

    group: str
    paired: int
    deterministic: bool
    limit: int
    limit_source: str
    flips: list[Flip] = field(default_factory=list)

    def of(self, kind: str) -> list[Flip]:
        """The flips of one kind."""
        return [f for f in self.flips if f.kind == kind]

    @property
    def too_many_failing(self) -> bool:
        return len(self.of(NEWLY_FAILING)) > self.limit

    def rule_text(self) -> str:
        """``2 of 6 paired tests newly fail (max_newly_failing 0: …)``."""
        failing = len(self.of(NEWLY_FAILING))
        return (f"{failing} of {self.paired} paired test{'s' if self.paired != 1 else ''} newly fail "
                f"(max_newly_failing {self.limit}: {self.limit_source})")


def passed(unit: "Unit") -> bool:
    """A unit passes when most of its repeats passed."""
    return unit.values.get("pass_rate", 0.0) > 0.5


def group_flips(group: str, pairs: list[tuple["Unit", "Unit"]], lost: list[tuple["Unit", "Unit"]],
                settings: "GateSettings") -> GroupFlips:
    """The flips of one group: judged pairs whose pass changed, and tests judged only in the base."""
    deterministic = all(b.deterministic and c.deterministic for b, c in pairs)
    flips = [Flip(c.label, group, NEWLY_PASSING if passed(c) else NEWLY_FAILING, b.reason, c.reason)
             for b, c in pairs if passed(b) != passed(c)]
    newly_passing = sum(1 for f in flips if f.kind == NEWLY_PASSING)
    limit, source = flip_limit(settings, newly_passing, deterministic)
    result = GroupFlips(group, len(pairs), deterministic, limit, source, flips)
    result.flips += [Flip(c.label, group, NEWLY_NOT_JUDGED, b.reason, c.reason) for b, c in lost]
    return result


def flip_limit(settings: "GateSettings", newly_passing: int, deterministic: bool) -> tuple[int, str]:
    """How many tests may newly fail, and why: the gate file's number, else 0 for an offline or
    replayed judge, else for a live LLM judge the most that a sign test against ``newly_passing``
    reversed flips still puts down to judging noise (``failing − passing ≤ z·√(failing + passing)``)."""
    if settings.max_newly_failing != "auto":
        return int(settings.max_newly_failing), "set in the gate file"
    if deterministic:
        return 0, "offline or replayed judge: a flip is a fact, not noise"
    from reeljudge.gates.verdicts import normal_quantile

    z = normal_quantile(settings.confidence)
    failing = newly_passing
    while (failing + 1) - newly_passing <= z * math.sqrt(failing + 1 + newly_passing):
        failing += 1
    return failing, (f"live LLM judge: more than judging noise against {newly_passing} newly passing "
                     f"(sign test at {settings.confidence:.0%})")
