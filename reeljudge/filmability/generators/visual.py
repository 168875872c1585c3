"""Concreteness-guided offline baseline: filmable words kept, abstract ones swapped for scenes.

Deterministic and LLM-free. Content words of the narration whose concreteness reaches the
filmable threshold are kept; abstract words and software jargon found in :data:`SCENES` are
replaced by stock-footage scenes that show them ("memory" → "computer RAM"), one scene per word
first and second scenes after; if fewer than
``min_terms`` result, generic scenes for the narration's domain fill the list.
"""

from __future__ import annotations

from reeljudge.filmability.judge_local import STOPWORDS, uses_tech_jargon
from reeljudge.filmability.lexicon import lemmas, tokenize
from reeljudge.filmability.term_reading import term_concreteness

#: abstract word (lemma) -> filmable scenes that show it
SCENES: dict[str, tuple[str, ...]] = {
    "memory": ("computer RAM", "memory chip close-up"),
    "fast": ("fast motion blur", "race car"),
    "speed": ("fast motion blur", "stopwatch"),
    "blazingly": ("fast motion blur",),
    "redis": ("server room", "data center lights"),
    "database": ("server rack", "hard drive close-up"),
    "cache": ("server rack", "hard drive close-up"),
    "store": ("hard drive close-up", "warehouse shelves"),
    "closure": ("developer coding", "computer screen code"),
    "function": ("computer screen code", "developer coding"),
    "recursion": ("russian dolls", "spiral staircase"),
    "kubernetes": ("shipping containers port", "server rack"),
    "container": ("shipping containers port",),
    "cluster": ("server rack", "data center aisle"),
    "git": ("developer laptop", "tree branches"),
    "version": ("rewinding clock", "developer laptop"),
    "tls": ("padlock", "online banking laptop"),
    "encrypt": ("padlock", "locked door"),
    "security": ("padlock", "security guard"),
    "api": ("people shaking hands", "computer screen code"),
    "compiler": ("factory assembly line", "computer screen code"),
    "traffic": ("highway traffic",),
    "network": ("ethernet cables", "router lights"),
    "understand": ("person reading", "programmer thinking"),
    "learn": ("student studying",),
    "health": ("person jogging", "fresh vegetables"),
    "history": ("old map", "ancient ruins"),
    "travel": ("airplane window", "suitcase"),
}
TECH_FILL = ("developer typing on laptop", "server room", "computer screen code")
GENERAL_FILL = ("people walking in city", "hands close-up", "sunrise landscape")


def visual_terms(narration: str, max_terms: int = 4, min_terms: int = 3) -> list[str]:
    """Filmable search terms for a narration, in narration order, without duplicates."""
    terms: list[str] = []

    def add(term: str) -> None:
        if len(terms) < max_terms and term not in terms:
            terms.append(term)

    primary: list[str] = []
    secondary: list[str] = []
    for tok in tokenize(narration):
        if tok in STOPWORDS or len(tok) < 3:
            continue
        keys = (tok, *lemmas(tok))
        scenes = next((SCENES[k] for k in keys if k in SCENES), None)
        if scenes:
            primary.append(scenes[0])
            secondary.extend(scenes[1:])
        elif term_concreteness(tok).status == "filmable":
            primary.append(tok)
    for term in primary + secondary:
        add(term)
    fill = TECH_FILL if uses_tech_jargon(narration) else GENERAL_FILL
    for scene in fill:
        if len(terms) >= min_terms:
            break
        add(scene)
    return terms
