"""promptfoo provider: Gemini writes B-roll search terms for the rendered prompt."""

from reeljudge.providers.terms.gemini import generate_terms


def call_api(prompt, options, context):
    """promptfoo entry: delegate to reeljudge."""
    return generate_terms(prompt, (options or {}).get("config"))
