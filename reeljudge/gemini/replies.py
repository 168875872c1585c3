"""Judge replies as JSON: repaired for common damage, then validated against a JSON Schema.

Damage seen in real replies (and in Google's own few-shot examples): code fences, prose around the
object, trailing commas, single quotes, unquoted letters (``"answer": d``), mismatched quotes.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Mapping

from reeljudge.gemini.client import ReplyInvalid

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
_MISMATCHED_QUOTE = re.compile(r'"([^"\n]*)\'(\s*[\],}])')


def fix_mismatched_quotes(text: str) -> str:
    """``"plate']`` (a string opened with ``"`` and closed with ``'``) made ``"plate"]``."""
    return _MISMATCHED_QUOTE.sub(r'"\1"\2', text)


def strip_wrapping(text: str) -> str:
    """The JSON-looking core of a reply: inside a code fence, from the first ``{``/``[`` on."""
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1)
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if starts:
        text = text[min(starts):]
    return text.strip()


def repair_json(text: str) -> Any:
    """The value a damaged JSON reply meant; ReplyInvalid when nothing JSON-like is there."""
    core = strip_wrapping(text)
    if not core:
        raise ReplyInvalid("the reply holds no JSON object")
    try:
        return json.loads(core)
    except ValueError:
        pass
    fixed = fix_mismatched_quotes(core)
    try:
        return json.loads(fixed)
    except ValueError:
        pass
    import json_repair

    value = json_repair.loads(fixed)
    if not isinstance(value, (list, dict)) or (not value and core not in ("[]", "{}")):
        raise ReplyInvalid("the reply holds no JSON object that could be repaired")
    return value


def schema_errors(value: Any, schema: Mapping[str, Any], limit: int = 5) -> list[str]:
    """Human-readable schema violations of ``value`` (at most ``limit``), empty when valid."""
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    out = []
    for error in errors[:limit]:
        where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
        out.append(f"at {where}: {error.message}")
    return out


def json_reply_parser(
    schema: Mapping[str, Any], normalise: Callable[[Any], Any] | None = None
) -> Callable[[str], Any]:
    """A parse function for ``JudgeClient.ask``: repair, normalise, validate; ReplyInvalid if not valid."""

    def parse(text: str) -> Any:
        value = repair_json(text)
        if normalise is not None:
            value = normalise(value)
        problems = schema_errors(value, schema)
        if problems:
            raise ReplyInvalid("the JSON does not match the schema: " + "; ".join(problems))
        return value

    return parse


def load_schema(name: str) -> dict[str, Any]:
    """A JSON Schema from ``rubrics/<name>``."""
    from reeljudge.gemini.prompts import rubric_path

    return json.loads(rubric_path(name).read_text(encoding="utf-8"))
