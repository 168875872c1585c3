"""promptfoo assertion: offline video probes (technical, black, frozen, cuts, flicker, motion, colour).

Thin entry: the work lives in ``reeljudge.probes.assertion``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reeljudge.probes.assertion import get_assert  # noqa: E402

__all__ = ["get_assert"]
