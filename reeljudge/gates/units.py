"""One test of one run, as the comparison, the flips and the judge check see it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Unit:
    """One test of one run: its cells (repeats) pooled."""

    label: str
    group: str
    judged: bool
    values: dict[str, float]  # metric -> mean over the repeats
    reason: str
    metric_reasons: dict[str, str]
    deterministic: bool = True
    judges: tuple[str, ...] = ()
