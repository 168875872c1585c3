"""Narrations files for the bulk filmability judge: YAML, JSONL or CSV rows of narration and terms.

Each row has ``narration`` (required), ``terms`` (a list, or text in any shape the assertion
accepts: JSON list, comma/newline list, bullets) and optionally ``id``; other fields (``topic``…)
are carried along and ignored, except names close to a known field (``term``), which are errors.
A row without terms gets them from the offline generator named by ``generator`` (``keywords``
or ``visual``). A row that cannot be judged keeps its ``problem`` and is reported, not dropped.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reeljudge.errors import BadInputError
from reeljudge.filmability.options import FilmabilityOptions
from reeljudge.filmability.terms import parse_terms
from reeljudge.rows import Unparsed, read_table

FIELDS = ("id", "narration", "terms")


@dataclass(frozen=True)
class NarrationRow:
    """One narration to judge, with its terms, or the problem that stops it being judged."""

    ref: str  # the row's id, else ``<file> line N``
    narration: str
    terms: tuple[str, ...] = ()
    id: str | None = None
    terms_source: str = "given"  # or ``generator:<name>``
    problem: str | None = None


def read_rows(source: str | Path, *, generator: str | None = None,
              options: FilmabilityOptions | None = None) -> list[NarrationRow]:
    """The rows of a narrations file, terms parsed or generated; BadInputError if the file is unusable."""
    options = options or FilmabilityOptions()
    path = Path(source)
    make_terms = _generator(generator)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise BadInputError(f"narrations file {source}: cannot be read ({error})") from None
    table = read_table(text, path.suffix, f"narrations file {path}", columns=("narration",), what="narrations",
                       key="narrations")
    if table is None:
        suffix = path.suffix.lower()
        raise BadInputError(f"narrations file {source}: unknown format {suffix or '(no extension)'!r} "
                            "(use .yaml, .jsonl or .csv)")
    rows: list[NarrationRow] = []
    seen: set[str] = set()
    for number, data in table.rows:
        origin = f"{path.name} {table.unit} {number}"
        if isinstance(data, Unparsed):
            data = f"not valid JSON ({data.message}): {data.line[:40]}"
        row = _row(data, origin, make_terms, generator, options)
        if row.id is not None and row.ref in seen:
            row = NarrationRow(origin, row.narration, id=row.id, problem=f"duplicate id {row.id!r}")
        seen.add(row.ref)
        rows.append(row)
    return rows


def _generator(name: str | None) -> Any:
    """The offline term generator called ``name`` (None for none); BadInputError naming the choices."""
    if name is None:
        return None
    from reeljudge.filmability.generators import GENERATORS

    if name not in GENERATORS:
        raise BadInputError(f"unknown term generator {name!r} (choose one of {', '.join(sorted(GENERATORS))})")
    return GENERATORS[name]


def _row(data: Any, origin: str, make_terms: Any, generator: str | None, options: FilmabilityOptions) -> NarrationRow:
    """One NarrationRow from a parsed row; problems are kept on the row."""
    if not isinstance(data, dict):
        return NarrationRow(origin, "", problem=f"{origin}: expected a mapping with narration and terms, got {str(data)[:60]!r}")
    row_id = str(data["id"]).strip() if data.get("id") not in (None, "") else None
    ref = row_id or origin
    narration = data.get("narration")
    misspelt = [(k, m[0]) for k in data if k not in FIELDS
                for m in [difflib.get_close_matches(str(k), FIELDS, n=1, cutoff=0.75)] if m]
    if misspelt:
        key, known = misspelt[0]
        return NarrationRow(ref, str(narration or ""), id=row_id,
                            problem=f"{origin}: unknown field {key!r} (did you mean {known!r}?)")
    if not isinstance(narration, str) or not narration.strip():
        return NarrationRow(ref, "", id=row_id, problem=f"{origin}: field 'narration' is missing or empty")
    if len(narration) > options.max_narration_chars:
        return NarrationRow(ref, narration, id=row_id, problem=(
            f"{origin}: the narration is {len(narration)} characters; a B-roll narration is one or a few sentences "
            f"(limit {options.max_narration_chars})"))
    given = data.get("terms")
    source = "given"
    if given in (None, "", []):
        if make_terms is None:
            return NarrationRow(ref, narration, id=row_id,
                                problem=f"{origin}: no terms (give a 'terms' field, or a term generator)")
        given, source = make_terms(narration), f"generator:{generator}"
    try:
        terms = parse_terms(given, max_terms=options.max_terms)
    except BadInputError as error:
        return NarrationRow(ref, narration, id=row_id, terms_source=source, problem=f"{origin}: {error.message}")
    return NarrationRow(ref, narration, tuple(terms), row_id, source)
