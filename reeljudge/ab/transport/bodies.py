"""Request bodies read with bounds: a size cap while streaming, a count of values, strict JSON, a nesting limit.

A rater link reaches the server from anywhere, so nothing is read whole before it is bounded: the
caller checks the token first, then the declared length, then the stream is cut at the cap; before
the body is parsed, a scan of the raw bytes bounds how many JSON values (and so objects) the parse
may build; then it is parsed (NaN and Infinity refused, nesting limited) and every string checked
to be storable text.
"""

from __future__ import annotations

import json
from typing import Any

MAX_BODY = 512 * 1024
MAX_DEPTH = 16
#: JSON values a body may hold: the page's longest watch log (500 events of at most 5 fields) and the form fit in 25,000
MAX_VALUES = 32_768
#: the bytes outside strings at which a JSON value (or key) may begin, past the first
_VALUE_STARTS = (b",", b":", b"[", b"{")


class BodyError(Exception):
    """A request body the server will not read: ``status`` (413 or 400) and a message for the client."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def check_declared(request: Any, limit: int = MAX_BODY) -> None:
    """BodyError(413) when the request declares a ``Content-Length`` over ``limit`` (or not a number); reads nothing."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.strip().isdigit() or len(declared.strip()) > 18 or int(declared) > limit):
        raise BodyError(413, f"request too large (at most {limit} bytes)")


async def read_capped(request: Any, limit: int = MAX_BODY) -> bytes:
    """The body, or BodyError(413) as soon as it is known to exceed ``limit`` bytes (declared or streamed)."""
    check_declared(request, limit)
    from starlette.requests import ClientDisconnect

    body, size = bytearray(), 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise BodyError(413, f"request too large (at most {limit} bytes)")
            body += chunk
    except ClientDisconnect:
        raise BodyError(400, "the connection closed before the body was complete") from None
    return bytes(body)


def count_values(raw: bytes) -> int:
    """An upper bound on the JSON values (scalars, arrays, objects, keys) in ``raw``, from its bytes alone.

    Outside strings, every value but the first follows a ``,``, ``:``, ``[`` or ``{``; strings are
    skipped whole (a ``,`` in a note is not a value), as a parser reads them: escape pairs taken from
    the left (``\\\\`` then ``\\"``) are no quote, and an unclosed string holds the rest. A few passes of
    the bytes' own C loops (replace, split, join, count), none of which looks back: linear in
    ``len(raw)`` whatever the bytes, and short enough to hold the interpreter for milliseconds at the
    cap. (A regex that tried each quote as a string's start was quadratic: issue 46.)
    """
    plain = raw.replace(b"\\\\", b"__").replace(b'\\"', b"__")  # escape pairs: no quote inside stays a quote
    outside = b"".join(plain.split(b'"')[0::2])  # between a string's end and the next string's start
    return 1 + sum(outside.count(c) for c in _VALUE_STARTS)


def parse_bounded(raw: bytes, max_values: int = MAX_VALUES, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """``parse_object`` after ``count_values`` bounds what the parse may allocate (BodyError 413 beyond ``max_values``)."""
    if count_values(raw) > max_values:
        raise BodyError(413, f"the body holds more than {max_values} JSON values")
    return parse_object(raw, max_depth)


def _refuse_constant(name: str) -> Any:
    raise BodyError(400, f"the body is not strict JSON: {name} is not a JSON number")


def parse_object(raw: bytes, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """A JSON object from ``raw``; BodyError(400) for invalid JSON, NaN/Infinity or nesting deeper than ``max_depth``."""
    try:
        body = json.loads(raw, parse_constant=_refuse_constant)
    except RecursionError:
        raise BodyError(400, f"the body nests deeper than {max_depth} levels") from None
    except (ValueError, UnicodeDecodeError):
        raise BodyError(400, "the body must be a JSON object") from None
    if not isinstance(body, dict):
        raise BodyError(400, "the body must be a JSON object")
    if depth(body) > max_depth:
        raise BodyError(400, f"the body nests deeper than {max_depth} levels")
    return body


def depth(value: Any) -> int:
    """How deeply lists and objects nest in ``value`` (a scalar is 0), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children)
    return deepest


def unstorable_field(value: Any, path: str = "") -> str | None:
    """The dotted path of the first key or string in ``value`` that is not storable text (a lone surrogate, NUL), else None.

    Each value visited carries a link to its parent's (not a copy of its path): the path is spelt only for the one
    value found, each key in it cut to ``PATH_KEY_CHARS``. (A copied path cost memory the key's length times the
    values under it: a 440 KB key over 32,000 values, 14 GB.)
    """
    stack: list[tuple[Any, _Trail]] = [(value, None)]
    while stack:
        item, trail = stack.pop()
        if isinstance(item, str):
            if not _storable(item):
                return _spell(trail, path)
        elif isinstance(item, dict):
            for key, child in item.items():
                if not _storable(key):
                    return _spell(trail, path)
                stack.append((child, (trail, str(key))))
        elif isinstance(item, list):
            stack.extend((child, (trail, i)) for i, child in enumerate(item))
    return None


#: a value's place in a body: (its parent's place, its key or index), None at the top
_Trail = tuple[Any, str | int] | None
PATH_KEY_CHARS = 40


def _spell(trail: _Trail, root: str) -> str:
    """The dotted path of a place (``root``: the path of the top), or "(body)" for the top itself."""
    labels: list[str | int] = []
    while trail is not None:
        trail, label = trail
        labels.append(label)
    where = root
    for label in reversed(labels):
        where += f"[{label}]" if isinstance(label, int) else f".{label[:PATH_KEY_CHARS]}" if where else label[:PATH_KEY_CHARS]
    return where or "(body)"


def _storable(text: str) -> bool:
    """True when ``text`` encodes as UTF-8 and holds no NUL (no note needs one; a PostgreSQL text value cannot hold one)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return "\0" not in text
