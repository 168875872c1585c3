"""Naive offline baseline: the narration's own content words and word pairs as search terms.

Deterministic and LLM-free. It copies what the narration says, so it tends to produce abstract
terms ("memory", "fast", "closures"): the weak side of the default side-by-side comparison.
"""

from __future__ import annotations

from reeljudge.filmability.lexicon import tokenize
from reeljudge.filmability.judge_local import STOPWORDS


def keyword_terms(narration: str, max_terms: int = 4) -> list[str]:
    """Up to ``max_terms`` content-word pairs, then single content words, in narration order."""
    tokens = tokenize(narration)
    content = [t for t in tokens if t not in STOPWORDS and len(t) > 2]
    pairs = [f"{a} {b}" for a, b in zip(tokens, tokens[1:]) if a in content and b in content]
    terms: list[str] = []
    for cand in pairs + content:
        if len(terms) >= max_terms:
            break
        if cand not in terms and not any(cand in t.split(" ") for t in terms):
            terms.append(cand)
    return terms
