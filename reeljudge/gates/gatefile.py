"""The gate file: how much worse a candidate may get before ``reeljudge compare`` fails it.

A small YAML file (default ``reeljudge.gate.yaml`` in the working directory, if present)::

    tolerance: 0.02            # default for every metric (scores are 0-1)
    tolerances:                # per metric; keys are metric names or fnmatch patterns
      pass_rate: 0.05
      "gecko_*": 0.03
    ignore: [filmability]      # metrics reported but never gated
    max_unjudged: 0            # tests judged in the base but not in the candidate that are allowed
    max_newly_failing: auto    # tests that newly fail: auto = 0 for offline/replayed judges
    on_inconclusive: fail      # an interval straddling -tolerance blocks (exit 3); warn: exit 0

A regression is a metric whose paired-bootstrap interval of (candidate - base) lies entirely
below ``-tolerance``; inconclusive, one whose interval straddles it. Unknown keys are errors with
a did-you-mean.
"""

from __future__ import annotations

import difflib
import fnmatch
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, Mapping

from reeljudge.gates.results import CannotCompare
from reeljudge.options import coerce, load_one, option

DEFAULT_GATE_FILE = "reeljudge.gate.yaml"
DEFAULT_TOLERANCES: Mapping[str, float] = MappingProxyType({"pass_rate": 0.05})


@dataclass(frozen=True)
class GateSettings:
    """Every setting of a gate file (read with the shared options loader: unknown keys refused)."""

    tolerance: float = option(0.02, doc="allowed drop of any metric not named in tolerances (scores are 0-1)",
                              minimum=0, maximum=1)
    tolerances: dict[str, float] | None = option(None, doc="allowed drop per metric name or fnmatch pattern "
                                          "(exact names first); added to the defaults (pass_rate 0.05)")
    ignore: tuple[str, ...] = option((), doc="metric names or patterns that are reported but never gated")
    max_unjudged: int = option(0, doc="tests judged in the base but not in the candidate that still pass the gate",
                               minimum=0)
    on_inconclusive: Literal["fail", "warn"] = option("fail", doc="inconclusive (an interval straddles -tolerance): "
                                                      "fail blocks (exit 3), warn reports it and exits 0")
    max_newly_failing: str = option("auto", doc="tests per provider that may newly fail (pass in the base, fail in the "
                                    "candidate); auto: 0 for offline or replayed judges; for live LLM judges, as many as "
                                    "a sign test against the newly passing tests puts down to judging noise")
    on_judge_change: Literal["refuse", "flag"] = option("refuse", doc="a baseline judged by another judge, model, "
                                                        "rubric or options: refuse (exit 2) or flag (at best inconclusive)")
    min_matched_share: float = option(0.5, doc="below this share of the base's tests found in the candidate, the "
                                      "files are taken to come from different configs (exit 2)", minimum=0, maximum=1)
    group_by: Literal["provider", "none"] = option("provider", doc="provider: gate each provider (and prompt) on "
                                                   "its own; none: pool them")
    confidence: float = option(0.95, doc="confidence level of the intervals", minimum=0.5, maximum=0.999)
    resamples: int = option(2000, doc="bootstrap resamples per interval", minimum=100)
    seed: int = option(20261122, doc="bootstrap seed: the same inputs always give the same intervals")
    worst: int = option(10, doc="how many per-test drops to list", minimum=0)

    def __post_init__(self) -> None:
        checked = {}
        for key, value in dict(self.tolerances or {}).items():
            number = coerce(value, float, None, f"gate file option 'tolerances' entry {key!r}")
            if not 0 <= number <= 1:
                raise ValueError(f"tolerances.{key} must be a number from 0 to 1, got {value!r}")
            checked[str(key)] = number
        object.__setattr__(self, "tolerances", MappingProxyType({**DEFAULT_TOLERANCES, **checked}))
        limit = str(self.max_newly_failing).strip().lower()
        if limit != "auto" and not (limit.isdigit()):
            raise ValueError(f"max_newly_failing must be auto or a whole number from 0, got {self.max_newly_failing!r}")
        object.__setattr__(self, "max_newly_failing", limit)

    def tolerance_for(self, metric: str) -> float:
        """The allowed drop for ``metric``: its exact entry, else the first matching pattern, else the default."""
        if metric in self.tolerances:
            return float(self.tolerances[metric])
        for pattern, value in self.tolerances.items():
            if fnmatch.fnmatchcase(metric, pattern):
                return float(value)
        return self.tolerance

    def gated(self, metric: str) -> bool:
        """Whether a regression of ``metric`` fails the gate."""
        return not any(fnmatch.fnmatchcase(metric, pattern) for pattern in self.ignore)


def load_gate(path: str | Path | None) -> GateSettings:
    """Settings from ``path``; the defaults when ``path`` is None and no default gate file exists."""
    if path is None:
        if not Path(DEFAULT_GATE_FILE).is_file():
            return GateSettings()
        path = DEFAULT_GATE_FILE
    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise CannotCompare(f"gate file {path}: cannot read ({error.strerror or error})") from None
    except yaml.YAMLError as exc:
        raise CannotCompare(f"gate file {path}: not valid YAML: {exc}") from None
    return gate_from_mapping(data or {}, f"gate file {path}")


def gate_from_mapping(data: Any, name: str = "gate file") -> GateSettings:
    """Validated settings from a mapping; BadInputError naming the key and the problem."""
    if isinstance(data, Mapping) and isinstance(data.get("max_newly_failing"), int) and not isinstance(data["max_newly_failing"], bool):
        data = {**data, "max_newly_failing": str(data["max_newly_failing"])}  # a number or the word auto
    return load_one(data, GateSettings, owner=name, env={})


def check_metric_names(settings: GateSettings, metrics: set[str], name: str = "gate file") -> list[str]:
    """Typos in ``tolerances``/``ignore`` (CannotCompare) and notes for names of other suites."""
    notes = []
    for entry in [*settings.tolerances, *settings.ignore]:
        if any(fnmatch.fnmatchcase(m, entry) for m in metrics):
            continue
        close = difflib.get_close_matches(entry, sorted(metrics), n=1, cutoff=0.8)
        if close:
            raise CannotCompare(f"{name}: metric {entry!r} is in neither results file; did you mean {close[0]!r}?")
        notes.append(f"gate file names {entry!r}, which these results do not have (another suite's metric?)")
    return notes
