"""promptfoo assertion: footage filmability of B-roll search terms.

Thin entry: the work lives in ``reeljudge.assertions.filmability``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reeljudge.assertions.filmability import get_assert  # noqa: E402

__all__ = ["get_assert"]
