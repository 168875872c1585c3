"""promptfoo provider: serves existing clips (path or dataset id in a test var) as playable video.

Thin entry: the work lives in ``reeljudge.providers.clips``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reeljudge.providers.clips import call_api  # noqa: E402

__all__ = ["call_api"]
