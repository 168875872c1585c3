"""Comparing two findings tables: exact where a machine cannot change the answer, within a stated
tolerance where floating-point noise can (and measuring that noise).

Verdicts, gating, reasons (their numbers rounded as printed), every frame and time of a finding and
the decode facts must be equal (a decimal in a reason may cross a rounding boundary: one unit of
its last digit). Continuous scores, a few measured amounts in the details, the generated clips'
byte sizes and the summaries of the per-frame signals move between machines; each has a tolerance
in ``TOLERANCES``, chosen from the spread measured between two machines and across thread counts,
disabled CPU features and the plain C paths of OpenCV and FFmpeg (``findings_spread``; the figures
are in docs/decisions.md, "Findings reference across machines").
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from typing import Any, Iterator


@dataclass(frozen=True)
class Tolerance:
    """How far a value may move: ``absolute`` plus ``relative`` × the reference's magnitude."""

    absolute: float
    relative: float = 0.0

    def allows(self, reference: float, fresh: float) -> bool:
        """Whether ``fresh`` is within this tolerance of ``reference``."""
        return abs(fresh - reference) <= self.absolute + self.relative * abs(reference)

    def __str__(self) -> str:
        parts = [f"±{self.absolute:g}"] if self.absolute else []
        parts += [f"±{self.relative:.2%}"] if self.relative else []
        return " + ".join(parts) or "±0"


#: per-frame series → tolerance of each of its summary statistics (absolute, in the series' unit)
SIGNAL_TOLERANCES = {
    "change": 0.2, "changed": 0.01, "chroma": 1.5, "content": 0.5, "dark": 0.004, "dd_pairs": 3.0, "diff_max": 20.0,
    "diff_mean": 0.5, "gd_spread": 8.0, "gdx": 2.0, "gdy": 0.5, "luma": 0.3, "mc_delta": 0.1, "moved": 0.01,
    "texture": 0.01, "thumbs": 0.3,
    # issue 37 (not measured across two machines: set as the flow's own series, the residuals in whole levels)
    "coherence": 0.05, "residual": 0.5, "rigid_residual": 2.0,
}

#: quantity pattern (a value's path in a clip's entry, list indices as []) → its tolerance; first match
#: wins; a reason's pattern applies to each decimal number in it (default: one unit of its last digit)
TOLERANCES: tuple[tuple[str, Tolerance], ...] = (
    ("info.bytes", Tolerance(0, 0.03)),
    ("findings.technical.details.bytes", Tolerance(0, 0.03)),
    ("findings.motion_smoothness.score", Tolerance(0.1)),
    ("findings.motion_smoothness.details.rms_accel_px", Tolerance(0.05, 0.4)),
    ("findings.motion_smoothness.reason", Tolerance(0.1, 0.4)),
    ("findings.vbench_temporal_flickering.score", Tolerance(0.0005)),
    ("findings.*.score", Tolerance(0.001)),
    ("findings.dynamic_degree.details.mean_top5_flow_px", Tolerance(0.05, 0.03)),
    ("findings.dynamic_degree.details.motion_amount", Tolerance(0.02, 0.03)),
    ("findings.flicker.details.runs[].swing_levels", Tolerance(0.1, 0.03)),
    # issue 37: how far the camera jumps in a shake run, and the camera's motion in words in the reasons
    # (speeds in px/frame, one decimal): read from the global motion, like the smoothness
    ("findings.camera_shake.details.runs[].jitter_px", Tolerance(0.3, 0.05)),
    ("findings.camera_shake.reason", Tolerance(0.3, 0.05)),
    ("findings.frozen_frames.reason", Tolerance(0.3, 0.05)),
    ("findings.scene_cuts.reason", Tolerance(0.3, 0.05)),
    ("signals.times.*", Tolerance(0)),  # presentation times: exact
    ("signals.*.count", Tolerance(0)),
    *((f"signals.{name}.*", Tolerance(value)) for name, value in SIGNAL_TOLERANCES.items()),
)

_DECIMAL = re.compile(r"-?\d+\.\d+")


def tolerance_of(quantity: str) -> Tolerance | None:
    """The tolerance of a quantity, or None when it must be equal."""
    return next((tol for pattern, tol in TOLERANCES if fnmatch.fnmatchcase(quantity, pattern)), None)


def quantity(path: str) -> str:
    """A value's path with its list indices dropped (``findings.flicker.details.runs[0].hz`` → ``…runs[].hz``)."""
    return re.sub(r"\[\d+\]", "[]", path)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def leaves(a: Any, b: Any, path: str = "") -> Iterator[tuple[str, Any, Any]]:
    """(path, reference value, fresh value) for every leaf of two nested tables; a shape mismatch is one leaf."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            sub = f"{path}.{key}" if path else str(key)
            if key in a and key in b:
                yield from leaves(a[key], b[key], sub)
            else:
                yield sub, a.get(key, "<absent>"), b.get(key, "<absent>")
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for index, (x, y) in enumerate(zip(a, b)):
            yield from leaves(x, y, f"{path}[{index}]")
    else:
        yield path, a, b


def reasons_agree(reference: str, fresh: str, tol: Tolerance | None) -> bool:
    """Whether two reasons have the same words and whole numbers, and each decimal number within
    ``tol`` (None: one unit of the reference's last printed digit, a rounding boundary crossed by noise)."""
    if _DECIMAL.split(reference) != _DECIMAL.split(fresh):
        return False
    for a, b in zip(_DECIMAL.findall(reference), _DECIMAL.findall(fresh)):
        unit = 10.0 ** -len(a.split(".")[1])
        if not (tol or Tolerance(unit * 1.0001)).allows(float(a), float(b)):
            return False
    return True


def _agree(path: str, a: Any, b: Any) -> bool:
    """Whether two values at ``path`` agree: equal, or within the quantity's tolerance."""
    if a == b:
        return True
    tol = tolerance_of(quantity(path))
    if path.endswith(".reason") and isinstance(a, str) and isinstance(b, str):
        return reasons_agree(a, b, tol)
    return tol is not None and _is_number(a) and _is_number(b) and tol.allows(a, b)


def entry_differences(key: str, reference: dict[str, Any], fresh: dict[str, Any]) -> list[str]:
    """One line per value of one clip's entry that differs beyond its tolerance (or at all)."""
    lines = []
    for path, a, b in leaves(reference, fresh):
        if _agree(path, a, b):
            continue
        tol = tolerance_of(quantity(path))
        lines.append(f"{key} {path}: {a!r} != {b!r}" + (f" (tolerance {tol})" if tol else ""))
    return lines


def differences(reference: dict[str, Any], fresh: dict[str, Any]) -> list[str]:
    """Every clip only in one table, and every value that differs beyond its tolerance."""
    lines = [f"{key}: only in {'reference' if key in reference else 'fresh run'}" for key in sorted(set(reference) ^ set(fresh))]
    for key in sorted(set(reference) & set(fresh)):
        lines += entry_differences(key, reference[key], fresh[key])
    return lines


def spread(reference: dict[str, Any], fresh: dict[str, Any]) -> dict[str, tuple[float, float, int]]:
    """Per quantity, the largest absolute and relative difference between two tables and how many values differ."""
    out: dict[str, tuple[float, float, int]] = {}
    for key in sorted(set(reference) & set(fresh)):
        for path, a, b in leaves(reference[key], fresh[key]):
            name = quantity(path)
            worst_abs, worst_rel, count = out.get(name, (0.0, 0.0, 0))
            if a == b:
                out.setdefault(name, (worst_abs, worst_rel, count))
            elif _is_number(a) and _is_number(b):
                diff = abs(b - a)
                out[name] = (max(worst_abs, diff), max(worst_rel, diff / abs(a) if a else float("inf")), count + 1)
            else:
                out[name] = (float("nan"), float("nan"), count + 1)
    return out
