"""promptfoo provider: the offline 'visual' baseline term generator (no LLM)."""

from reeljudge.providers.terms.offline import provider_response


def call_api(prompt, options, context):
    """Search terms for the test's narration var, as a JSON array string."""
    return provider_response("visual", options, context)
