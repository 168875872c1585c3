"""promptfoo provider responses for the offline baseline term generators (no LLM)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping

from reeljudge.errors import ReelJudgeError
from reeljudge.filmability.generators import GENERATORS
from reeljudge.options import load_one, option
from reeljudge.promptfoo.context import provider_config, test_label


@dataclass(frozen=True)
class OfflineTermsOptions:
    """The offline generators' ``config:``."""

    narration_var: str = option("narration", doc="the test var holding the narration sentence")


def provider_response(name: str, options: Mapping[str, Any] | None, context: Mapping[str, Any] | None) -> dict[str, Any]:
    """``{"output": JSON list of terms}`` for the test's narration var, or ``{"error": ...}``."""
    where = f"offline '{name}' generator"
    try:
        opts = load_one(provider_config(options), OfflineTermsOptions, owner=where)
    except ReelJudgeError as error:
        return {"error": f"{where}: test {test_label(context)!r}: {error.message}"}
    vars_ = (context or {}).get("vars") or {}
    narration = vars_.get(opts.narration_var)
    if not isinstance(narration, str) or not narration.strip():
        return {"error": f"{where}: test {test_label(context)!r}: var '{opts.narration_var}' is missing or empty "
                         f"(set vars.{opts.narration_var}, or config.narration_var to the var that holds the narration)"}
    return {"output": json.dumps(GENERATORS[name](narration))}


def call_keywords(prompt: str, options: Mapping[str, Any] | None, context: Mapping[str, Any] | None) -> dict[str, Any]:
    """promptfoo entry of the 'keywords' baseline."""
    return provider_response("keywords", options, context)


def call_visual(prompt: str, options: Mapping[str, Any] | None, context: Mapping[str, Any] | None) -> dict[str, Any]:
    """promptfoo entry of the 'visual' baseline."""
    return provider_response("visual", options, context)
