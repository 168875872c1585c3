"""The offline term generators (no LLM), by name: narration in, B-roll search terms out.

``keywords`` copies the narration's content words; ``visual`` keeps the filmable ones and swaps
abstract ones for scenes. The promptfoo providers (``reeljudge.providers.terms.offline``) and the
bulk judge (``reeljudge.filmability.bulk``) both use them from here.
"""

from __future__ import annotations

from typing import Callable

from reeljudge.filmability.generators.keywords import keyword_terms
from reeljudge.filmability.generators.visual import visual_terms

GENERATORS: dict[str, Callable[[str], list[str]]] = {"keywords": keyword_terms, "visual": visual_terms}
