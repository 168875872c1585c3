"""The one row reader for the files users hand the bulk commands: JSONL, CSV and YAML lists.

Every reader returns ``(number, row)`` pairs: the line number for JSONL and CSV (the line a CSV row
starts on, counted as the file has them, so a quoted field over two lines does not shift the numbers after it), the entry number
(from 1) for a YAML list. A JSONL line that is not JSON is kept as :class:`Unparsed` so the caller
can report it beside the good rows; a file that cannot be read as a whole raises BadInputError
naming ``where`` (the file, as the caller names it) and the problem. Standard library, plus PyYAML
only when a YAML file is read.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any

from reeljudge.errors import BadInputError


@dataclass(frozen=True)
class Unparsed:
    """A JSONL line that is not valid JSON: the line (stripped) and the parser's message."""

    line: str
    message: str


def jsonl_rows(text: str) -> list[tuple[int, Any]]:
    """(line number, parsed value or :class:`Unparsed`) per non-blank line."""
    rows: list[tuple[int, Any]] = []
    for number, line in enumerate(text.splitlines(), 1):
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


__all__ = ["Unparsed", "csv_rows", "jsonl_rows", "yaml_document", "yaml_rows"]
