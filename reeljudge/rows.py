"""The one row reader for the files users hand the bulk commands: JSONL, CSV and YAML lists.

Every reader returns ``(number, row)`` pairs: the line number for JSONL and CSV (the line a CSV row
starts on, counted as the file has them, so a quoted field over two lines does not shift the numbers after it), the entry number
(from 1) for a YAML list. A JSONL line that is not JSON is kept as :class:`Unparsed` so the caller
can report it beside the good rows; a file that cannot be read as a whole raises BadInputError
naming ``where`` (the file, as the caller names it) and the problem. ``read_table`` chooses the
reader by the file's suffix (the one suffix dispatch of the bulk commands). Standard library, plus
PyYAML only when a YAML file is read.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any, Sequence

from reeljudge.errors import BadInputError


@dataclass(frozen=True)
class Unparsed:
    """A JSONL line that is not valid JSON: the line (stripped) and the parser's message."""

    line: str
    message: str


def jsonl_rows(text: str) -> list[tuple[int, Any]]:
    """(line number, parsed value or :class:`Unparsed`) per non-blank line; lines end at "\n" only (JSON Lines), never
    at U+2028, U+2029 or the other breaks ``str.splitlines`` takes (a record's text may hold them)."""
    rows: list[tuple[int, Any]] = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            rows.append((number, json.loads(line)))
        except ValueError as error:
            rows.append((number, Unparsed(line.strip(), getattr(error, "msg", str(error)))))
    return rows


def csv_rows(text: str, *, strip: bool = True) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """The header's column names and (line a row starts on, row) per data row, names stripped, and values
    too unless ``strip`` is false (a missing cell is "")."""
    reader = csv.DictReader(io.StringIO(text))
    fields = [f.strip() for f in reader.fieldnames or []]
    rows = []
    for row in reader:
        spans = sum(v.count("\n") for v in row.values() if isinstance(v, str))  # lines inside quoted fields
        cells = {k.strip(): v or "" for k, v in row.items() if k is not None}
        rows.append((reader.line_num - spans, {k: v.strip() for k, v in cells.items()} if strip else cells))
    return fields, rows


def yaml_document(text: str, where: str) -> Any:
    """The YAML document in ``text``; BadInputError naming ``where`` (with the parser's line and column) when it is not YAML."""
    import yaml  # here: only a YAML file needs the parser

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise BadInputError(f"{where}: not valid YAML ({error})") from None


def yaml_rows(text: str, where: str, *, key: str | None = None, what: str = "entries") -> list[tuple[int, Any]]:
    """(entry number, entry) per item of a YAML list (or of its ``key`` when the document is a mapping);
    BadInputError naming ``where`` when it is not YAML or holds no list (``what``: the entries, for the message)."""
    data = yaml_document(text, where)
    if key is not None and isinstance(data, dict) and isinstance(data.get(key), list):
        data = data[key]
    if not isinstance(data, list):
        raise BadInputError(f"{where}: expected a YAML list of {what}, got {type(data).__name__}")
    return list(enumerate(data, 1))


#: the table formats a file's suffix (lower case) selects
TABLE_SUFFIXES: dict[str, str] = {".jsonl": "jsonl", ".csv": "csv", ".yaml": "yaml", ".yml": "yaml"}


@dataclass(frozen=True)
class Table:
    """The rows of a table file: ``(number, row)`` pairs, and what the numbers count (``line`` or ``entry``)."""

    rows: list[tuple[int, Any]]
    unit: str


def read_table(text: str, suffix: str, where: str, *, columns: Sequence[str], what: str,
               key: str | None = None, blank_cells: bool = True) -> Table | None:
    """The rows of a JSONL, CSV or YAML file chosen by its ``suffix`` (None for any other suffix).

    A CSV needs a header naming one of ``columns`` (BadInputError naming ``where`` otherwise); a YAML
    file is a list of ``what`` (or a mapping holding it at ``key``). JSONL keeps bad lines as ``Unparsed``.
    ``blank_cells=False`` leaves a CSV row's empty cells out (a blank cell then reads as an absent field).
    """
    kind = TABLE_SUFFIXES.get(suffix.lower())
    if kind == "jsonl":
        return Table(jsonl_rows(text), "line")
    if kind == "csv":
        fields, rows = csv_rows(text)
        if not any(c in fields for c in columns):
            wanted = f"'{columns[0]}' column" if len(columns) == 1 else f"column of {list(columns)}"
            raise BadInputError(f"{where}: the CSV header {fields} has no {wanted}")
        return Table(rows if blank_cells else [(n, {k: v for k, v in row.items() if v}) for n, row in rows], "line")
    if kind == "yaml":
        return Table(yaml_rows(text, where, key=key, what=what), "entry")
    return None


__all__ = ["TABLE_SUFFIXES", "Table", "Unparsed", "csv_rows", "jsonl_rows", "read_table", "yaml_document", "yaml_rows"]
