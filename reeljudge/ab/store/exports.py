r"""Exports of judgement records: JSONL (the records as stored) and CSV (one flat row per record).

The JSONL is strict JSON (no NaN or Infinity: a non-finite number is written as null). A CSV
cell that a spreadsheet would read as a formula (it begins with ``=``, ``+``, ``-``, ``@``, a tab
or a carriage return) is prefixed with ``'`` (OWASP's rule against CSV injection), and so is every
piece of a cell that a reader splitting on ``;``, tab, ``|`` or ``,`` would take as a cell of its own
(``Fine;=1+1;ok`` is written ``Fine;'=1+1;ok``): spreadsheets in many locales split on ``;``.

Text from raters (a note) reaches terminals, spreadsheets and browsers: control characters (NUL,
ESC sequences, a carriage return; tab and newline stay) and bidirectional controls (U+202E makes
"gnp.exe" show as "exe.png") are written as visible ``\u202e`` escapes in the CSV and the HTML
report, and as JSON ``\u`` escapes in the JSONL (which still reads back as the text stored); so are
U+2028 and U+2029, which a line reader like ``str.splitlines`` takes as line ends (a note holding one
split a JSONL record in two): every character any line reader splits on but the CSV's own newline.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from typing import Any, Iterable, Mapping

from reeljudge.ab.store.protocol import Protocol

BASE_COLUMNS = (
    "record_id", "sample_id", "family", "protocol", "rater", "rater_kind", "system_on_A", "system_on_B",
    "winner", "winner_side", "primary_tag", "secondary_tags", "note", "full_plays_A", "full_plays_B",
    "seconds", "created_at",
)


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
#: a separator another reader may split on, then (after spaces) a formula character: the piece is escaped too
_PIECE_FORMULA = re.compile(r"([;\t|,][ ]*)(?=[=+\-@\r])")
#: C0 controls but tab and newline, DEL, C1 controls (NEL among them), the line and paragraph separators (a reader
#: splitting lines as ``str.splitlines`` does splits on them), and the bidirectional and invisible-direction marks
UNSAFE_CHARS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_UNSAFE_OUTSIDE_JSON_ESCAPES = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    """One matched character as a visible ``\\uXXXX`` escape."""
    return f"\\u{ord(match.group()):04x}"


def visible(text: str) -> str:
    """``text`` with every control and bidirectional character written as a visible ``\\uXXXX`` escape."""
    return UNSAFE_CHARS.sub(_escape, text)


def to_jsonl(records: Iterable[Mapping[str, Any]]) -> str:
    """One strict JSON record per line."""
    lines = (json.dumps(_finite(r), ensure_ascii=False, sort_keys=True, allow_nan=False) for r in records)
    # json escapes C0 controls itself; the rest can only stand inside strings, where a \u escape reads back the same
    return "".join(_UNSAFE_OUTSIDE_JSON_ESCAPES.sub(_escape, line) + "\n" for line in lines)


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
    """A CSV cell a spreadsheet will not run, however it splits it: text, and each piece after a ``;``, tab, ``|`` or
    ``,``, beginning with a formula character gets a leading ``'``."""
    if not isinstance(value, str):
        return value
    value = _PIECE_FORMULA.sub(r"\1'", value)
    return "'" + value if value.lstrip(" ").startswith(FORMULA_STARTS) else value


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
        writer.writerow({k: safe_cell(visible(v) if isinstance(v, str) else v) for k, v in row.items()})
    return out.getvalue()
