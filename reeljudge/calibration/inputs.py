"""Reading what ``reeljudge calibrate`` compares: judge scores and human ratings, per item.

Judge scores come from a promptfoo results file (a namedScore, or the score, per test; the item
id from a template over the test's description, provider, prompt, clip and vars) or from a CSV / JSONL
file with ``item`` and a score column. Human ratings come from CSV / JSONL rows of ``item`` and
``rating`` (with an optional ``rater``), or JSONL rows with a ``ratings`` list or
``{rater: rating}`` mapping. Optional ``tags`` (a list, or ``;``-separated) and ``family``
fields give the groups the report breaks down by.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from reeljudge.gates.results import CannotCompare, read_results
from reeljudge.rows import Unparsed, csv_rows, jsonl_rows

_FIELD = re.compile(r"\{([^{}]+)\}")


@dataclass
class Item:
    """One item: its score(s) and the groups it belongs to."""

    scores: dict[str, float] = field(default_factory=dict)  # judge metric -> score, or rater -> rating
    ratings: list[float] = field(default_factory=list)  # human ratings in order (named or not)
    tags: set[str] = field(default_factory=set)
    family: str | None = None


@dataclass
class JudgeScores:
    """Judge scores per item for one or more judge metrics, and what was left out."""

    metrics: list[str]
    items: dict[str, Item]
    not_judged: list[str] = field(default_factory=list)


@dataclass
class HumanRatings:
    """Human ratings per item and who gave them."""

    items: dict[str, Item]
    raters: set[str]  # named raters; empty when the file does not name them
    max_ratings_per_item: int


def read_judge_scores(path: str | Path, metrics: list[str], item_template: str | None = None) -> JudgeScores:
    """Judge scores from a promptfoo results file, CSV or JSONL (by content, then suffix)."""
    path = Path(path)
    if path.suffix.lower() == ".json":
        return _from_promptfoo(read_results(path), metrics or ["score"], item_template or "{description}", str(path))
    rows = list(_rows(path, _read_text(path)))
    metrics = metrics or ["score"]
    items: dict[str, Item] = {}
    for n, row in rows:
        item = _item_id(path, n, row)
        if item in items:
            raise CannotCompare(f"{path}: item {item!r} appears twice (row {n}); give each item one row of judge scores")
        entry = items[item] = Item(tags=_tags(row), family=_family(row))
        for metric in metrics:
            entry.scores[metric] = _number(path, n, metric, row.get(metric))
    return JudgeScores(metrics, items)


def _from_promptfoo(run: Any, metrics: list[str], template: str, name: str) -> JudgeScores:
    """Per test: the named metrics (``score`` = the test's score); unjudged tests left out, listed."""
    items: dict[str, Item] = {}
    not_judged = []
    for cell in run.cells:
        item = _render(template, cell, name)
        if item in items or item in not_judged:
            raise CannotCompare(
                f"{name}: item id {item!r} from --item {template!r} is not unique (provider {cell.provider!r}); "
                "add fields to --item, e.g. '{provider}/{description}'"
            )
        if not cell.judged:
            not_judged.append(item)
            continue
        values = {"score": cell.score, **cell.named}
        missing = [m for m in metrics if values.get(m) is None]
        if missing:
            known = ", ".join(sorted(k for k, v in values.items() if v is not None))
            raise CannotCompare(f"{name}: test {cell.label!r} has no metric {missing[0]!r} (it has: {known})")
        items[item] = Item(scores={m: float(values[m]) for m in metrics}, tags=set(cell.tags), family=cell.family)
    if not items:
        raise CannotCompare(f"{name}: none of its {len(run.cells)} test results was judged (e.g. {run.cells[0].reason[:300]})")
    return JudgeScores(metrics, items, not_judged)


def _render(template: str, cell: Any, name: str) -> str:
    """The item id of a cell from ``template`` (fields: description, provider, prompt, clip, vars.NAME)."""
    fields = {"description": cell.description, "provider": cell.provider, "prompt": cell.prompt}

    def value(match: re.Match) -> str:
        key = match.group(1)
        if key.startswith("vars."):
            var = key[5:]
            if var not in cell.vars:
                raise CannotCompare(f"{name}: --item uses {{{key}}} but test {cell.label!r} has no var {var!r}")
            return str(cell.vars[var])
        if key == "clip":
            if not cell.clip_sha256:
                raise CannotCompare(f"{name}: --item uses {{clip}} but test {cell.label!r} names no clip "
                                    "(response.metadata.clip.sha256: run it with the clip or Veo provider)")
            return cell.clip_sha256
        if key not in fields:
            raise CannotCompare(f"--item {template!r}: unknown field {{{key}}} (use description, provider, "
                                "prompt, clip, vars.NAME)")
        return str(fields[key])

    return _FIELD.sub(value, template)


def read_human_ratings(path: str | Path) -> HumanRatings:
    """Human ratings from CSV or JSONL (long rows with ``rating``, or JSONL ``ratings`` lists/maps)."""
    path = Path(path)
    items: dict[str, Item] = defaultdict(Item)
    raters: set[str] = set()
    for n, row in _rows(path, _read_text(path)):
        item = items[_item_id(path, n, row)]
        item.tags |= _tags(row)
        item.family = _family(row) or item.family
        if "ratings" in row:
            given = row["ratings"]
            pairs = list(given.items()) if isinstance(given, dict) else [(None, v) for v in (given or [])]
        elif "rating" in row:
            pairs = [(row.get("rater"), row["rating"])]
        else:
            raise CannotCompare(f"{path}: row {n} has no 'rating' (or JSONL 'ratings') field; fields: {', '.join(row)}")
        for rater, value in pairs:
            rating = _number(path, n, "rating", value)
            item.ratings.append(rating)
            if rater not in (None, ""):
                if str(rater) in item.scores:
                    raise CannotCompare(f"{path}: rater {rater!r} rated item {_item_id(path, n, row)!r} twice (row {n})")
                item.scores[str(rater)] = rating
                raters.add(str(rater))
    rated = {k: v for k, v in items.items() if v.ratings}
    if not rated:
        raise CannotCompare(f"{path}: no ratings found")
    return HumanRatings(rated, raters, max(len(v.ratings) for v in rated.values()))


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CannotCompare(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CannotCompare(f"{path}: cannot be read ({exc})") from None


def _rows(path: Path, text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, row) of a CSV or JSONL file."""
    if path.suffix.lower() in (".jsonl", ".ndjson") or text.lstrip().startswith("{"):
        for n, row in jsonl_rows(text):
            if isinstance(row, Unparsed):
                raise CannotCompare(f"{path}: line {n} is not valid JSON ({row.message})")
            if not isinstance(row, dict):
                raise CannotCompare(f"{path}: line {n} is not a JSON object")
            yield n, row
        return
    fields, rows = csv_rows(text)
    if "item" not in fields:
        raise CannotCompare(f"{path}: a CSV needs a header with an 'item' column (found: {', '.join(fields) or 'none'})")
    yield from rows


def _item_id(path: Path, n: int, row: dict[str, Any]) -> str:
    value = row.get("item")
    if value is None or str(value).strip() == "":
        raise CannotCompare(f"{path}: row {n} has no 'item'")
    return str(value).strip()


def _number(path: Path, n: int, name: str, value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise CannotCompare(f"{path}: row {n}: {name} {value!r} is not a number") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise CannotCompare(f"{path}: row {n}: {name} is {value!r}")
    return number


def _tags(row: dict[str, Any]) -> set[str]:
    raw = row.get("tags", row.get("tag"))
    if raw in (None, ""):
        return set()
    if isinstance(raw, str):
        return {t.strip() for t in raw.split(";") if t.strip()}
    return {str(t) for t in raw}


def _family(row: dict[str, Any]) -> str | None:
    value = row.get("family")
    return None if value in (None, "") else str(value)

