"""Terms a list gives more than once: the same words up to case, punctuation, articles, plural and order.

A generator that writes "server room", "Server rooms" and "room, server" wrote one shot three times.
Both judges score the distinct terms (the score table unchanged); the verdict then says what the repeat
costs (:mod:`reeljudge.filmability.judge`: never EXCELLENT, or a failure with ``repeated_terms: fail``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
#: words that do not make two phrasings different shots
_FILLER = frozenset({"a", "an", "the", "of", "and"})


def _singular(word: str) -> str:
    """The word without an English plural ending (``rooms`` → ``room``, ``boxes`` → ``box``, ``cities`` →
    ``city``); by suffix rules, so a cache hit imports no lexicon."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "xes", "zes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def repeat_key(term: str) -> str:
    """What two phrasings of one term share: lower-case words without punctuation or articles, singular, sorted."""
    words = [_singular(w) for w in _WORD.findall(term.casefold().replace("’", "'")) if w not in _FILLER]
    return " ".join(sorted(words)) if words else term.casefold().strip()


@dataclass(frozen=True)
class Repeats:
    """A term list read for repeats: its distinct terms (first spelling kept, in order) and each repeated term's
    spellings as given."""

    distinct: list[str]
    groups: list[list[str]]

    @property
    def count(self) -> int:
        """Terms given beyond the first of their kind."""
        return sum(len(g) - 1 for g in self.groups)

    def describe(self) -> str:
        """The repeats in plain words: ``'server room' 3 times ('Server rooms', 'room, server')``."""
        parts = []
        for group in self.groups:
            others = sorted({g for g in group[1:] if g != group[0]})
            also = f" (also as {', '.join(repr(o) for o in others)})" if others else ""
            parts.append(f"'{group[0]}' {len(group)} times{also}")
        return "; ".join(parts)

    def as_dict(self) -> dict[str, object]:
        """JSON-able facts for the result's metadata."""
        return {"repeated_terms": self.count, "distinct_terms": len(self.distinct), "groups": self.groups}


def find_repeats(terms: list[str]) -> Repeats:
    """The distinct terms of ``terms`` and the groups of those given more than once."""
    groups: dict[str, list[str]] = {}
    for term in terms:
        groups.setdefault(repeat_key(term), []).append(term)
    return Repeats([g[0] for g in groups.values()], [g for g in groups.values() if len(g) > 1])
