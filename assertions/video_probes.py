"""promptfoo assertion: offline video probes (technical, black, frozen, cuts, flicker, motion, colour).

Thin entry: the work lives in ``reeljudge.assertions.video_probes``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reeljudge.assertions.video_probes import get_assert  # noqa: E402

__all__ = ["get_assert"]
