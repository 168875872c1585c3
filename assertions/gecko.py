"""promptfoo assertion: Gecko prompt adherence of a generated clip or image.

Thin entry: the work lives in ``reeljudge.assertions.gecko``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reeljudge.assertions.gecko import get_assert  # noqa: E402

__all__ = ["get_assert"]
