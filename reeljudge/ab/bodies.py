"""Request bodies read with bounds: a size cap while streaming, strict JSON, a nesting limit.

A rater link reaches the server from anywhere, so nothing is read whole before it is bounded: the
declared length is checked first, then the stream is cut at the cap, and only then is the body
parsed (NaN and Infinity refused, nesting limited) — before any token is looked up.
"""

from __future__ import annotations

import json
from typing import Any

MAX_BODY = 512 * 1024
MAX_DEPTH = 16


class BodyError(Exception):
    """A request body the server will not read: ``status`` (413 or 400) and a message for the client."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


async def read_capped(request: Any, limit: int = MAX_BODY) -> bytes:
    """The body, or BodyError(413) as soon as it is known to exceed ``limit`` bytes (declared or streamed)."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.strip().isdigit() or int(declared) > limit):
        raise BodyError(413, f"request too large (at most {limit} bytes)")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyError(413, f"request too large (at most {limit} bytes)")
        chunks.append(chunk)
    return b"".join(chunks)


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
