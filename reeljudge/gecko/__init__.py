"""Gecko (Wiles et al., 2024): does a generated clip or image show what its prompt asked for?

Rubric generation (keyword annotation + one multiple-choice question per keyword), the validity
filter, one VQA request per (media, rubric), and scores per question, per tag and overall.
The promptfoo assertion is ``assertions/gecko.py``; from Python, one line::

    from reeljudge.gecko import GeckoScorer
    result = GeckoScorer(threshold=0.7)("A red apple on a table", "apple.png")

Importing this package is cheap: the pieces load when used.
"""

from __future__ import annotations

from typing import Any

__all__ = ["GeckoScorer"]


def __getattr__(name: str) -> Any:
    if name == "GeckoScorer":
        from reeljudge.gecko.api import GeckoScorer

        return GeckoScorer
    raise AttributeError(name)
