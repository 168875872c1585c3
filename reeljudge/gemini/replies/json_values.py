"""Reading the one JSON value of a judge's reply: repaired where one reading exists, refused where two do.

Part of the one reply reader (``reeljudge.gemini.replies``; policy in its docstring).
"""


from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

# a string opened with " and closed with ' (``"plate']``); the opening quote must start a value (after
# ``[ , : {``), else a key's closing quote followed by a single-quoted value (``"a": 'x'}``) would match
_MISMATCHED_QUOTE = re.compile(r'([\[,:{]\s*)"([^"\n]*)\'(\s*[\],}])')
_LOOKS_JSON = re.compile(
    r"""(?:\{\s*(?:["'][^"'\n]{0,80}["']|"(?:[^"\\\n]|\\.){0,80}"|[A-Za-z_]\w*)\s*:|\{\s*\}"""
    r"""|\[\s*(?:[\[{"'\d-]|true\b|false\b|null\b)|\[\s*\])"""
)


class ReplyInvalid(ValueError):
    """A reply that arrived but cannot be used; the message is fed back to the judge once."""

    kind = "unparseable"

    def __init__(self, message: str, *, kind: str | None = None) -> None:
        super().__init__(message)
        if kind is not None:
            self.kind = kind


def quote(text: str, start: int = 0, end: int | None = None, width: int = 60) -> str:
    """A short excerpt of ``text[start:end]`` for a reason: at most ``width`` characters, elided."""
    part = text[start:end] if end is not None else text[start:]
    part = " ".join(part.split())
    return f"«{part}»" if len(part) <= width else f"«{part[: width // 2]}…{part[-width // 2 :]}»"


# ---- finding the JSON values in a reply --------------------------------------------------------


@dataclass
class Span:
    """One top-level bracketed value in a reply: where it is, whether it closes, keys seen twice."""

    start: int
    end: int
    closed: bool
    open_inside: str = ""  # when not closed: "a string", "an object" or "an array"
    duplicate_keys: list[str] = field(default_factory=list)


def find_spans(text: str) -> list[Span]:
    """Every top-level ``{…}``/``[…]`` that looks like JSON, scanning strings and nesting; the last may be unclosed."""
    spans: list[Span] = []
    i = 0
    while i < len(text):
        if text[i] in "{[" and _LOOKS_JSON.match(text, i):
            span = _scan(text, i)
            spans.append(span)
            if not span.closed:
                break
            i = span.end
        else:
            i += 1
    return spans


def _scan(text: str, start: int) -> Span:
    """The span of the value starting at ``start``, tracking strings, nesting and object keys."""
    stack: list[str] = []
    keys: list[set[str]] = []
    duplicates: list[str] = []
    quote_char = ""
    token_start = 0
    last_string = ""
    previous = ""
    i = start
    while i < len(text):
        c = text[i]
        if quote_char:
            if c == "\\":
                i += 2
                continue
            if c == quote_char:
                quote_char, last_string = "", text[token_start + 1 : i]
                previous = '"'
        elif c in "\"'" and (c == '"' or previous in "{[,:"):
            quote_char, token_start = c, i
        elif c in "{[":
            stack.append("}" if c == "{" else "]")
            keys.append(set())
            previous = c
        elif c in "}]":
            if stack:
                stack.pop()
                keys.pop()
            previous = c
            if not stack:
                return Span(start, i + 1, True, duplicate_keys=duplicates)
        elif c == ":" and stack and stack[-1] == "}":
            key = last_string if previous == '"' else _bare_key(text, i)
            if key in keys[-1]:
                duplicates.append(key)
            keys[-1].add(key)
            previous = c
        elif not c.isspace():
            previous = c
        i += 1
    inside = "a string" if quote_char else ("an object" if stack and stack[-1] == "}" else "an array")
    return Span(start, len(text), False, inside, duplicates)


def _bare_key(text: str, colon: int) -> str:
    """The unquoted key written just before a colon (``{answer: "b"}``)."""
    match = re.search(r"([A-Za-z_][\w-]*)\s*$", text[:colon])
    return match.group(1) if match else ""


# ---- reading one JSON value ----------------------------------------------------------------------


def read_json(text: str, schema: Mapping[str, Any] | None = None) -> Any:
    """The one JSON value a reply holds, repaired where unambiguous and shaped to ``schema``.

    Raises ReplyInvalid (kind ``unparseable``, ``truncated`` or ``ambiguous``) naming the problem.
    """
    wants_object = (schema or {}).get("type") == "object"
    value = _strict_json(text)
    if value is _NOT_JSON or (wants_object and not (isinstance(value, dict) or _object_list(value))):
        value = _repaired_json(text, wants_object)
    if wants_object and isinstance(value, list):
        if len(value) != 1:
            raise ReplyInvalid(f"the reply is a list of {len(value)} objects where one object was asked", kind="ambiguous")
        value = value[0]
    return coerce_to_schema(value, schema) if schema else value


def _no_constant(name: str) -> Any:
    """JSON has no NaN or Infinity: leave such a reply to the repairing reader."""
    raise ValueError(name)


def _strict_json(text: str) -> Any:
    """The value of a reply that is exactly one strict JSON object or array with no conflicting key, else _NOT_JSON.

    Such a reply has one reading, the one the repairing reader would find (the common case: a
    model in JSON mode), so nothing is scanned or repaired.
    """
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[":
        return _NOT_JSON
    try:
        return json.loads(stripped, object_pairs_hook=_no_conflicting_keys(stripped), parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return _NOT_JSON


def _repaired_json(text: str, wants_object: bool) -> Any:
    """The one JSON value in ``text`` found by scanning and repairing (see the package doc); ReplyInvalid.

    The text is read as written first; only when that fails is a string opened with ``"`` and closed
    with ``'`` mended, so a valid string such as ``"the word 'fast', then"`` is never rewritten.
    """
    try:
        return _scanned_json(text, wants_object)
    except ReplyInvalid:
        mended = _MISMATCHED_QUOTE.sub(r'\1"\2"\3', text)
        if mended == text:
            raise
    return _scanned_json(mended, wants_object)


def _scanned_json(text: str, wants_object: bool) -> Any:
    """The one JSON value among the spans of ``text`` that look like JSON; ReplyInvalid."""
    spans = find_spans(text)
    if spans and not spans[-1].closed:
        bad = spans[-1]
        raise ReplyInvalid(
            f"the reply ends inside {bad.open_inside} (it was cut off or left unclosed): "
            f"{quote(text, max(bad.start, len(text) - 60))}",
            kind="truncated",
        )
    values: list[tuple[Span, Any]] = []
    for span in spans:
        value = _parse_span(text, span)
        if value is not _NOT_JSON and (not wants_object or isinstance(value, dict) or _object_list(value)):
            values.append((span, value))
    if not values:
        raise ReplyInvalid(f"the reply holds no JSON {'object' if wants_object else 'value'}: {quote(text)}")
    distinct = [v for i, v in enumerate(values) if all(v[1] != w[1] for w in values[:i])]
    if len(distinct) > 1:
        (a, _), (b, _) = distinct[0], distinct[1]
        raise ReplyInvalid(
            f"the reply holds {len(distinct)} different JSON values where one answer was asked: "
            f"{quote(text, a.start, a.end)} and {quote(text, b.start, b.end)}",
            kind="ambiguous",
        )
    return distinct[0][1]


_NOT_JSON = object()


def _object_list(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _parse_span(text: str, span: Span) -> Any:
    """The value of one span: strict JSON (duplicate keys checked), else repaired; _NOT_JSON if neither."""
    core = text[span.start : span.end]
    try:
        return json.loads(core, object_pairs_hook=_no_conflicting_keys(core))
    except ValueError as error:
        if isinstance(error, ReplyInvalid):
            raise
    if span.duplicate_keys:
        key = span.duplicate_keys[0]
        raise ReplyInvalid(f"the key {key!r} appears twice in one object: {quote(core)}", kind="ambiguous")
    import json_repair

    value = json_repair.loads(core)
    return value if isinstance(value, (dict, list)) and (value or core.strip() in ("{}", "[]")) else _NOT_JSON


def _no_conflicting_keys(core: str) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    """An ``object_pairs_hook`` that refuses a key given twice with different values."""

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out and out[key] != value:
                raise ReplyInvalid(
                    f"the key {key!r} appears twice in one object with different values "
                    f"({json.dumps(out[key])[:40]}, then {json.dumps(value)[:40]})",
                    kind="ambiguous",
                )
            out[key] = value
        return out

    return hook


def coerce_to_schema(value: Any, schema: Mapping[str, Any]) -> Any:
    """``value`` with numbers and booleans written as text turned into numbers and booleans where
    ``schema`` wants them, recursively; anything else unchanged (validation judges it)."""
    types_ = schema.get("type")
    wanted = set(types_) if isinstance(types_, list) else {types_}
    if isinstance(value, str) and not ({"string"} & wanted):
        text = value.strip()
        if "integer" in wanted and re.fullmatch(r"[+-]?\d+", text):
            return int(text)
        if "number" in wanted and re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?", text):
            number = float(text)
            return int(number) if number.is_integer() and "." not in text and "e" not in text.lower() else number
        if "boolean" in wanted and text.lower() in ("true", "false"):
            return text.lower() == "true"
    if isinstance(value, float) and "integer" in wanted and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        return {k: coerce_to_schema(v, props[k]) if k in props else v for k, v in value.items()}
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        return [coerce_to_schema(v, schema["items"]) for v in value]
    return value


def schema_errors(value: Any, schema: Mapping[str, Any], limit: int = 5) -> list[str]:
    """Readable schema violations of ``value`` (at most ``limit``), empty when valid."""
    from jsonschema import Draft202012Validator

    errors = sorted(Draft202012Validator(schema).iter_errors(value), key=lambda e: list(e.absolute_path))
    return [f"at {'/'.join(str(p) for p in e.absolute_path) or '(top level)'}: {e.message}" for e in errors[:limit]]


def json_parser(schema: Mapping[str, Any], normalise: Callable[[Any], Any] | None = None) -> Callable[[str], Any]:
    """A parse function for ``JudgeClient.ask``: read, normalise, validate; ReplyInvalid if unusable."""

    def parse(text: str) -> Any:
        value = read_json(text, schema)
        if normalise is not None:
            value = normalise(value)
        problems = schema_errors(value, schema)
        if problems:
            raise ReplyInvalid("the JSON does not match the schema: " + "; ".join(problems))
        return value

    return parse


def require_count(found: int, expected: int, what: str, missing: Sequence[str] = ()) -> None:
    """ReplyInvalid (``incomplete``) when a reply lists fewer ``what`` than the request implies."""
    if found < expected:
        which = f" (missing: {', '.join(missing[:8])})" if missing else ""
        raise ReplyInvalid(f"the reply gives {found} {what} where {expected} were asked{which}", kind="incomplete")


