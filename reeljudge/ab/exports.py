"""Exports of judgement records: JSONL (the records as stored) and CSV (one flat row per record).

The JSONL is strict JSON (no NaN or Infinity: a non-finite number is written as null). A CSV
cell that a spreadsheet would read as a formula (it begins with ``=``, ``+``, ``-``, ``@``, a tab
or a carriage return) is prefixed with ``'`` (OWASP's rule against CSV injection).
"""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any, Iterable, Mapping

from reeljudge.ab.protocol import Protocol

BASE_COLUMNS = (
    "record_id", "sample_id", "family", "protocol", "rater", "rater_kind", "system_on_A", "system_on_B",
    "winner", "winner_side", "primary_tag", "secondary_tags", "note", "full_plays_A", "full_plays_B",
    "seconds", "created_at",
)


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def to_jsonl(records: Iterable[Mapping[str, Any]]) -> str:
    """One strict JSON record per line."""
    return "".join(json.dumps(_finite(r), ensure_ascii=False, sort_keys=True, allow_nan=False) + "\n" for r in records)


def _finite(value: Any) -> Any:
    """``value`` with every NaN or infinite number replaced by None (JSON has neither)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def safe_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet will not run: text beginning with a formula character gets a leading ``'``."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_columns(protocol: Protocol) -> list[str]:
    """The CSV header: base columns, then ``A_<dimension>`` and ``B_<dimension>`` ratings (as shown)."""
    dims = [d.id for d in protocol.dimensions]
    return [*BASE_COLUMNS, *(f"{side}_{d}" for side in ("A", "B") for d in dims)]


def to_csv(records: Iterable[Mapping[str, Any]], protocol: Protocol) -> str:
    """A CSV with one row per record; ratings by the side the rater saw (system names in system_on_*)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=csv_columns(protocol), extrasaction="ignore")
    writer.writeheader()
    for r in records:
        shown = {side: r["shown"][side]["system"] for side in ("A", "B")}
        row = {
            "record_id": r["record_id"], "sample_id": r["sample_id"], "family": r["family"], "protocol": r["protocol"],
            "rater": r["rater"]["id"], "rater_kind": r["rater"]["kind"], "system_on_A": shown["A"], "system_on_B": shown["B"],
            "winner": r["winner"], "winner_side": r.get("winner_side", ""), "primary_tag": r["primary_tag"],
            "secondary_tags": " ".join(r["secondary_tags"]), "note": r.get("note") or "",
            "full_plays_A": r["watch"]["full_plays"]["A"], "full_plays_B": r["watch"]["full_plays"]["B"],
            "seconds": r["timings"].get("seconds"), "created_at": r["created_at"],
        }
        for side, system in shown.items():
            for dim, value in (r["ratings"].get(system) or {}).items():
                row[f"{side}_{dim}"] = value
        writer.writerow({k: safe_cell(v) for k, v in row.items()})
    return out.getvalue()
