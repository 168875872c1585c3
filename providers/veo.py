"""promptfoo provider: Veo text-to-video for the rendered prompt, cached, playable in the viewer.

Thin entry: the work lives in ``reeljudge.providers.veo.provider``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reeljudge.providers.veo.provider import call_api  # noqa: E402

__all__ = ["call_api"]
