"""The Gemini term generator under test: the promptfoo prompt is its instruction, JSON terms out."""

from __future__ import annotations

import json
from typing import Any, Callable, Mapping

from reeljudge.errors import ReelJudgeError
from reeljudge.batch.planner import judge_client
from reeljudge.gemini.request import JudgeRequest
from reeljudge.gemini.prompts import load_schema
from reeljudge.gemini.parsers import reply_parser
from reeljudge.gemini.replies import json_parser
from reeljudge.gemini.settings import JudgeSettings
from reeljudge.options import load_one
from reeljudge.promptfoo.context import provider_config

SCHEMA_FILE = "search_terms.schema.json"
SYSTEM = (
    "You write stock-footage search terms for B-roll. Follow the user's instruction and answer with "
    'a JSON object {"terms": [...]}.'
)


@reply_parser("generator.search_terms")
def search_terms_parser() -> Callable[[str], Any]:
    """The reader of the generator's reply: ``{"terms": [...]}`` by its JSON Schema."""
    return json_parser(load_schema(SCHEMA_FILE))


def generate_terms(prompt: str, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A promptfoo provider response: the terms as a JSON array, or an ``error`` that says why not."""
    try:
        settings = load_one(provider_config(options), JudgeSettings, owner="gemini term generator")
        schema = load_schema(SCHEMA_FILE)
        request = JudgeRequest(kind="generator.search_terms", system=SYSTEM, parts=(prompt,), schema=schema)
        reply = judge_client(settings).ask(request, search_terms_parser())
    except ReelJudgeError as error:
        return {"error": f"gemini term generator ({error.kind}): {error.message}"}
    return {
        "output": json.dumps(reply.value["terms"], ensure_ascii=False),
        "tokenUsage": reply.usage.tokens_used(),
        "cached": reply.cache_hit,
        "cost": reply.usage.cost_usd or 0.0,
        "metadata": reply.metadata(),
    }


def call_api(prompt: str, options: Mapping[str, Any] | None, context: Mapping[str, Any] | None) -> dict[str, Any]:
    """promptfoo entry: terms for the rendered prompt."""
    return generate_terms(prompt, options)
