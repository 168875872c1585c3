"""promptfoo provider responses for the offline baseline generators."""

from __future__ import annotations

import json
from typing import Any, Callable, Mapping

from reeljudge.providers.terms.keywords import keyword_terms
from reeljudge.providers.terms.visual import visual_terms

GENERATORS: dict[str, Callable[[str], list[str]]] = {"keywords": keyword_terms, "visual": visual_terms}


def provider_response(name: str, options: Mapping[str, Any] | None, context: Mapping[str, Any] | None) -> dict[str, Any]:
    """``{"output": JSON list of terms}`` for the test's narration var, or ``{"error": ...}``."""
    config = (options or {}).get("config") or {}
    var = str(config.get("narration_var", "narration"))
    vars_ = (context or {}).get("vars") or {}
    narration = vars_.get(var)
    if not isinstance(narration, str) or not narration.strip():
        return {"error": f"offline '{name}' generator: test var '{var}' is missing or empty (set vars.{var}, "
                         "or config.narration_var to the var that holds the narration)"}
    return {"output": json.dumps(GENERATORS[name](narration))}
