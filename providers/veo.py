"""promptfoo provider: Veo text-to-video for the rendered prompt, cached, playable in the viewer.

Thin entry: the work lives in ``reeljudge.generators.veo``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reeljudge.generators.veo import call_api  # noqa: E402

__all__ = ["call_api"]
