"""promptfoo assertion: is the provider's clip at least as good as the test's reference clip (A/B protocol)?

Thin entry: the work lives in ``reeljudge.assertions.ab_judge``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reeljudge.assertions.ab_judge import get_assert  # noqa: E402

__all__ = ["get_assert"]
