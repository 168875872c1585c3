"""The gate file: how much worse a candidate may get before ``reeljudge compare`` fails it.

A small YAML file (default ``reeljudge.gate.yaml`` in the working directory, if present)::

    tolerance: 0.02            # default for every metric (scores are 0-1)
    tolerances:                # per metric; keys are metric names or fnmatch patterns
      pass_rate: 0.05
      "gecko_*": 0.03
    ignore: [filmability]      # metrics reported but never gated
    max_unjudged: 0            # tests judged in the base but not in the candidate that are allowed

A regression is a metric whose paired-bootstrap interval of (candidate - base) lies entirely
below ``-tolerance``. Unknown keys are errors with a did-you-mean.
"""

from __future__ import annotations

import difflib
import fnmatch
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Mapping

from reeljudge.gates.results import CannotCompare

DEFAULT_GATE_FILE = "reeljudge.gate.yaml"


@dataclass(frozen=True)
class GateSettings:
    """Every setting of a gate file, with its default.

    Attributes:
        tolerance: allowed drop of any metric not named in ``tolerances`` (0-1 scale).
        tolerances: allowed drop per metric name or fnmatch pattern (first exact, then patterns).
        ignore: metric names or patterns that are reported but never gated.
        max_unjudged: tests judged in the base but not in the candidate that still pass the gate.
        min_matched_share: below this share of the base's tests found in the candidate, the two
            files are taken to come from different configs (exit 2).
        group_by: ``provider`` gates each provider (and prompt) separately; ``none`` pools them.
        confidence: confidence level of the intervals.
        resamples: bootstrap resamples per interval.
        seed: bootstrap seed (the same inputs always give the same intervals).
        worst: how many per-test regressions to list.
    """

    tolerance: float = 0.02
    tolerances: Mapping[str, float] = field(default_factory=lambda: {"pass_rate": 0.05})
    ignore: tuple[str, ...] = ()
    max_unjudged: int = 0
    min_matched_share: float = 0.5
    group_by: str = "provider"
    confidence: float = 0.95
    resamples: int = 2000
    seed: int = 20261122
    worst: int = 10

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
    except FileNotFoundError:
        raise CannotCompare(f"gate file {path}: no such file") from None
    except yaml.YAMLError as exc:
        raise CannotCompare(f"gate file {path}: not valid YAML: {exc}") from None
    return gate_from_mapping(data or {}, str(path))


def gate_from_mapping(data: Any, name: str = "gate file") -> GateSettings:
    """Validated settings from a mapping; CannotCompare naming the key and the problem."""
    if not isinstance(data, Mapping):
        raise CannotCompare(f"{name}: must be a mapping of settings, got {type(data).__name__}")
    known = [f.name for f in fields(GateSettings)]
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key not in known:
            close = difflib.get_close_matches(str(key), known, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; known keys: {', '.join(known)}"
            raise CannotCompare(f"{name}: unknown key {key!r}{hint}")
        values[key] = _checked(name, key, value)
    if "tolerances" in values:  # a file's tolerances add to (and may override) the defaults
        values["tolerances"] = {**GateSettings().tolerances, **values["tolerances"]}
    return GateSettings(**values)


def _checked(name: str, key: str, value: Any) -> Any:
    """One setting, type- and range-checked."""
    where = f"{name}: {key}"
    if key in ("tolerance", "min_matched_share"):
        return _fraction(where, value)
    if key == "confidence":
        number = _fraction(where, value)
        if not 0.5 <= number < 1:
            raise CannotCompare(f"{where} must be at least 0.5 and below 1, got {value!r}")
        return number
    if key == "tolerances":
        if not isinstance(value, Mapping):
            raise CannotCompare(f"{where} must map metric names to allowed drops, got {type(value).__name__}")
        return {str(k): _fraction(f"{where}.{k}", v) for k, v in value.items()}
    if key == "ignore":
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise CannotCompare(f"{where} must be a list of metric names or patterns")
        return tuple(items)
    if key == "group_by":
        if value not in ("provider", "none"):
            raise CannotCompare(f"{where} must be 'provider' or 'none', got {value!r}")
        return value
    return _count(where, value, minimum=100 if key == "resamples" else 0)


def _fraction(where: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise CannotCompare(f"{where} must be a number from 0 to 1, got {value!r}")
    return float(value)


def _count(where: str, value: Any, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise CannotCompare(f"{where} must be a whole number of at least {minimum}, got {value!r}")
    return value


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
