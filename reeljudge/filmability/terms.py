"""Search terms from a generator's output, in whatever common shape it came."""

from __future__ import annotations

import re
from typing import Any

from reeljudge.errors import BadInputError
from reeljudge.filmability.text_kind import is_number, not_prose

LIST_KEYS = ("terms", "search_terms", "searchTerms", "queries", "keywords", "search_queries", "searchQueries")
_BULLET = re.compile(r"^\s*(?:[-*•·+]|\d{1,3}[.)]|\(\d{1,3}\))(?:\s+|$)", re.IGNORECASE)
_QUOTES = "\"'“”‘’`"


def parse_terms(output: Any, *, max_terms: int = 50, max_term_chars: int = 120) -> list[str]:
    """The search terms in ``output`` (JSON list/object, comma/newline list, bullets), repeats kept (the judge flags
    them: :mod:`reeljudge.filmability.repeats`); BadInputError when the output is no list of terms (an HTML page,
    markup, numbers)."""
    if isinstance(output, str) and (kind := not_prose(output)):
        raise BadInputError(f"the output is {kind}, not search terms (starts {output.strip()[:60]!r})")
    terms = [term for term in (_clean(item) for item in _raw_terms(output)) if term]
    if terms and all(is_number(t) for t in terms):
        raise BadInputError(f"the output holds numbers, not search terms ({', '.join(terms[:5])})")
    if not terms:
        shown = str(output)[:80]
        raise BadInputError(f"the output holds no search terms (got {shown!r})")
    if len(terms) > max_terms:
        raise BadInputError(
            f"the output holds {len(terms)} search terms; the rubric grades a short list "
            f"(at most {max_terms}; raise max_terms in the assertion config to allow more)"
        )
    too_long = [t for t in terms if len(t) > max_term_chars]
    if too_long:
        raise BadInputError(
            f"{len(too_long)} term(s) are longer than {max_term_chars} characters, which is not a search "
            f"term (first: {too_long[0][:60]!r}…)"
        )
    return terms


def _raw_terms(output: Any) -> list[Any]:
    """The list of term candidates before cleaning."""
    if output is None:
        return []
    if isinstance(output, list):
        return output
    if isinstance(output, dict):
        return _list_in_object(output)
    text = str(output).strip()
    if not text:
        return []
    decoded = _decode_json(text)
    if isinstance(decoded, list):
        return decoded
    if isinstance(decoded, dict):
        return _list_in_object(decoded)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) > 1:
        return lines
    return re.split(r"[,;|]", text)


def _decode_json(text: str) -> Any:
    """The one JSON list or object in ``text`` (fences and prose allowed), None when there is none;
    BadInputError when the output holds two different ones or ends inside one."""
    from reeljudge.gemini.replies import ReplyInvalid, read_json

    if "[" not in text and "{" not in text:
        return None
    try:
        return read_json(text)
    except ReplyInvalid as invalid:
        if invalid.kind == "unparseable":
            return None
        raise BadInputError(f"the output is {invalid.kind}: {invalid}") from None


def _list_in_object(obj: dict[str, Any]) -> list[Any]:
    """The term list inside a JSON object: a known key first, else the first list of strings."""
    for key in LIST_KEYS:
        if isinstance(obj.get(key), list):
            return obj[key]
    for value in obj.values():
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return value
    raise BadInputError(f"the output is a JSON object with no list of terms (keys: {', '.join(list(obj)[:8])})")


def _clean(item: Any) -> str:
    """One term without bullets, numbering, quotes or surrounding space."""
    if isinstance(item, dict):
        item = item.get("term") or item.get("query") or item.get("text") or ""
    text = str(item).strip()
    text = _BULLET.sub("", text)
    text = text.strip().strip(_QUOTES).strip().rstrip(",").strip().strip(_QUOTES).strip()
    return re.sub(r"\s+", " ", text)
