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
    accept_option_changes:     # a change of a judge's verdict options this pull request makes on purpose
      filmability.threshold: 0.5   # <judge>.<option>: the new value (its suite is then judged by its own thresholds)
    min_pass_rate: 1.0         # no baseline yet: the share of a suite's tests that must pass their own assertions
    min_pass_rates:            # per suite (results file name without .json; fnmatch patterns)
      ab: 0.5

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

    min_pass_rate: float = option(1.0, doc="a suite with no baseline yet (the first pull request, a suite the pull request "
                                  "adds) is judged alone: this share of its tests must pass their own assertions (a test "
                                  "not judged never passes)", minimum=0, maximum=1)
    min_pass_rates: dict[str, float] | None = option(None, doc="min_pass_rate per suite (the results file's name without "
                                                     ".json, or an fnmatch pattern; exact names first)")
    accept_option_changes: dict[str, Any] | None = option(None, doc="an intended change of a judge's verdict options "
                                                          "(<judge>.<option>: the new value, e.g. filmability.threshold: "
                                                          "0.5): a suite whose judges changed only so is judged by its own "
                                                          "thresholds (named, never compared), not refused")

    def __post_init__(self) -> None:
        object.__setattr__(self, "min_pass_rates", MappingProxyType(_shares(self.min_pass_rates, "min_pass_rates")))
        object.__setattr__(self, "tolerances", MappingProxyType({**DEFAULT_TOLERANCES, **_shares(self.tolerances, "tolerances")}))
        limit = str(self.max_newly_failing).strip().lower()
        if limit != "auto" and not (limit.isdigit()):
            raise ValueError(f"max_newly_failing must be auto or a whole number from 0, got {self.max_newly_failing!r}")
        object.__setattr__(self, "max_newly_failing", limit)

    def tolerance_for(self, metric: str) -> float:
        """The allowed drop for ``metric``: its exact entry, else the first matching pattern, else the default."""
        return _by_name(self.tolerances, metric, self.tolerance)

    def min_pass_rate_for(self, suite: str) -> float:
        """The pass-rate rule of a suite judged alone: its exact entry, else the first matching pattern, else
        ``min_pass_rate``."""
        return _by_name(self.min_pass_rates, suite, self.min_pass_rate)

    def accepts(self, changes: list[tuple[str, str, Any, Any]]) -> bool:
        """Whether the gate file accepts every one of these option changes ``(judge, option, before, after)``: an
        entry ``<judge>.<option>`` whose value is the new one."""
        table = self.accept_option_changes or {}
        return bool(changes) and all(f"{judge}.{key}" in table and _same_value(table[f"{judge}.{key}"], after)
                                     for judge, key, _before, after in changes)

    def gated(self, metric: str) -> bool:
        """Whether a regression of ``metric`` fails the gate."""
        return not any(fnmatch.fnmatchcase(metric, pattern) for pattern in self.ignore)


def _shares(table: Mapping[str, Any] | None, option_name: str) -> dict[str, float]:
    """A table of names or patterns to numbers from 0 to 1, each checked (ValueError naming the entry)."""
    checked = {}
    for key, value in dict(table or {}).items():
        number = coerce(value, float, None, f"gate file option {option_name!r} entry {key!r}")
        if not 0 <= number <= 1:
            raise ValueError(f"{option_name}.{key} must be a number from 0 to 1, got {value!r}")
        checked[str(key)] = number
    return checked


def _same_value(given: Any, recorded: Any) -> bool:
    """A gate file's value and a recorded option value are the same (numbers by value, lists item by item)."""
    if isinstance(given, (int, float)) and isinstance(recorded, (int, float)) and not isinstance(given, bool):
        return float(given) == float(recorded)
    if isinstance(given, (list, tuple)) and isinstance(recorded, (list, tuple)):
        return len(given) == len(recorded) and all(_same_value(g, r) for g, r in zip(given, recorded))
    return given == recorded or (isinstance(given, str) and str(recorded).lower() == given.strip().lower())


def _by_name(table: Mapping[str, float] | None, name: str, default: float) -> float:
    """``name``'s exact entry, else the first fnmatch pattern that matches it, else ``default``."""
    table = table or {}
    if name in table:
        return float(table[name])
    return next((float(v) for pattern, v in table.items() if fnmatch.fnmatchcase(name, pattern)), default)


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
    if (isinstance(data, Mapping) and isinstance(data.get("max_newly_failing"), int)
        and not isinstance(data["max_newly_failing"], bool)):
        data = {**data, "max_newly_failing": str(data["max_newly_failing"])}  # a number or the word auto
    return load_one(data, GateSettings, owner=name, env={})


def check_metric_names(settings: GateSettings, metrics: set[str], name: str = "gate file") -> list[str]:
    """Typos in ``tolerances``/``ignore`` (CannotCompare) and notes for names of other suites."""
    notes = []
    for entry in [*(settings.tolerances or {}), *settings.ignore]:
        if any(fnmatch.fnmatchcase(m, entry) for m in metrics):
            continue
        close = difflib.get_close_matches(entry, sorted(metrics), n=1, cutoff=0.8)
        if close:
            raise CannotCompare(f"{name}: metric {entry!r} is in neither results file; did you mean {close[0]!r}?")
        notes.append(f"gate file names {entry!r}, which these results do not have (another suite's metric?)")
    return notes
