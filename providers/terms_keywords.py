"""promptfoo provider: the offline 'keywords' baseline term generator (no LLM).

Thin entry: the work lives in ``reeljudge.providers.terms.offline``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reeljudge.providers.terms.offline import call_keywords as call_api  # noqa: E402

__all__ = ["call_api"]
