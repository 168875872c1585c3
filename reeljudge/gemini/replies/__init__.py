"""The one reply reader: what a judge's reply says, or a refusal that names why it cannot be read.

Every judge reads its replies here. The policy (docs/decisions.md, "Ambiguity policy"):

- **Repaired**, because only one reading exists: code fences and prose around one JSON value,
  trailing or missing commas, single quotes, unquoted letters (``"answer": d``), a string opened
  with ``"`` and closed with ``'``, numbers or booleans written as text where the schema wants a
  number or boolean (``"relevance": "3"``), one object wrapped in a one-element list, a verdict
  written as a letter in any usual form (``b``, ``B``, ``b)``, ``(b)``, ``b) long shot``,
  ``Answer: B``) or as the exact text of one choice, a bare numbered answer key (``1. b``).
- **Refused**, because two readings exist (:class:`ReplyInvalid`, fed back to the judge once, then
  the judge did not judge): the same key twice in one object (``ambiguous``), more than one JSON
  value that differ (``ambiguous``), text that ends inside a string, array or object
  (``truncated``), a list shorter than the request implies (``incomplete``), no JSON at all or a
  value that breaks the schema (``unparseable``). A question given two verdicts is *unanswered*,
  never guessed (:func:`read_choice`).

Reasons quote the offending part of the reply, not the whole reply.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

#: where each name lives; a submodule loads when one of its names is first used (a judge that reads
#: only JSON never loads the verdict reader)
_HOMES = {
    **dict.fromkeys(("ReplyInvalid", "Span", "coerce_to_schema", "find_spans", "json_parser", "quote", "read_json",
                     "require_count", "schema_errors"), "json_values"),
    **dict.fromkeys(("Choice", "merge_choices", "read_choice"), "verdicts"),
}

if TYPE_CHECKING:  # pragma: no cover - typing only
    from reeljudge.gemini.replies.json_values import (
        ReplyInvalid,
        Span,
        coerce_to_schema,
        find_spans,
        json_parser,
        quote,
        read_json,
        require_count,
        schema_errors,
    )
    from reeljudge.gemini.replies.verdicts import Choice, merge_choices, read_choice

__all__ = [
    "Choice", "ReplyInvalid", "Span", "coerce_to_schema", "find_spans", "json_parser", "merge_choices", "quote",
    "read_choice", "read_json", "require_count", "schema_errors",
]


def __getattr__(name: str) -> Any:
    """A name of the reader, from the submodule that defines it."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
