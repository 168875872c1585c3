"""promptfoo provider: Gemini writes B-roll search terms for the rendered prompt.

Thin entry: the work lives in ``reeljudge.providers.terms.gemini``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reeljudge.providers.terms.gemini import call_api  # noqa: E402

__all__ = ["call_api"]
