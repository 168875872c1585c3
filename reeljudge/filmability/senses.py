"""Which sense a term is read in: the narration's domain and the software sense of everyday words.

A software explainer's "leak", "bug", "cloud" or "pipeline" names a software concept (the rubric's
"programming concepts", not filmable), while a travel video's "lake" is a lake. Two signals,
both from curated word lists (:mod:`reeljudge.filmability.concreteness_overrides`):

- the **narration** is a software explainer when it uses one unambiguous software word
  ("compiler", "API", "Redis") or two words that are often software ("branch" and "merge");
- the **term** itself can carry the domain: a software modifier next to an everyday word
  ("memory leak", "data lake", "computer virus") means the software concept in any narration.

An everyday word is read in its software sense only when nothing in the term names the visible
thing: a concrete word that is not software vocabulary ("storm clouds", "oil pipeline", "bug on
a leaf") or camera language ("tree close-up", "cloud timelapse") keeps the everyday sense, and so
does a rated everyday multiword expression ("tree branch", "spider web") unless it contains a
software word.

The **economic sense** is read from the term alone: beside an economic modifier ("housing",
"wage", "price": :data:`~reeljudge.filmability.concreteness_overrides.ECONOMIC_CONTEXT`), a head
the norms rate concrete alone but abstract in their own rated economic compounds names the
economic thing, not the visible one: "housing market" is read as "labor market" 2.85 and "bond
market" 2.80 are rated, not as "market" 4.70. Which heads have such a sense, and the rating the
term gets (the median of those compounds), come from the norms (:func:`economic_compounds`), not
from a list. As for software, a concrete word that is not economic vocabulary keeps the everyday
sense ("fish market stall" has none; "wage floor" has none; "market floor with traders" has
"traders").
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from statistics import median

from reeljudge.filmability import concreteness_overrides as curated
from reeljudge.filmability.heads import CAMERA_WORDS
from reeljudge.filmability.lexicon import UnitMatch, lemmas, load_norms, tokenize

SOFTWARE_SENSE_RATING = 1.5


@dataclass(frozen=True)
class NarrationDomain:
    """Whether a narration is a software explainer, and the words that say so."""

    software: bool
    evidence: tuple[str, ...]

    def describe(self) -> str:
        """Plain words for a reason."""
        if not self.software:
            return "not a software narration"
        return "a software narration (" + ", ".join(self.evidence) + ")"


@dataclass(frozen=True)
class SenseReading:
    """The sense a term's deciding unit is read in, the rating that sense gives it, and why."""

    sense: str  # "everyday", "software" or "economic"
    rating: float | None  # replaces the unit's own rating; None in the everyday sense
    why: str | None  # None when the unit has no other sense at all


EVERYDAY = SenseReading("everyday", None, None)


def _forms(word: str) -> tuple[str, ...]:
    """A word and its lemmas."""
    return (word, *lemmas(word))


def narration_domain(narration: str) -> NarrationDomain:
    """Software explainer or not, from strong and weak software words (lemmas and word pairs)."""
    tokens = tokenize(narration or "")
    strong: list[str] = []
    weak: list[str] = []
    for a, b in zip(tokens, tokens[1:]):
        if any(f"{a} {f}" in curated.SOFTWARE_NARRATION_STRONG for f in _forms(b)):
            strong.append(f"{a} {b}")
    for tok in tokens:
        forms = _forms(tok)
        if any(f in curated.SOFTWARE_NARRATION_STRONG for f in forms):
            strong.append(tok)
        elif any(f in curated.SOFTWARE_NARRATION_WEAK for f in forms):
            weak.append(tok)
    strong, weak = list(dict.fromkeys(strong)), list(dict.fromkeys(weak))
    software = bool(strong) or len(weak) >= 2
    return NarrationDomain(software, tuple(strong + weak) if software else ())


def unit_keys(unit: UnitMatch) -> tuple[str, ...]:
    """The forms of a unit to compare with word lists: as written, its entry, its last word's lemmas."""
    parts = unit.text.split(" ")
    keys = [unit.text] + ([unit.entry] if unit.entry else [])
    keys += [" ".join(parts[:-1] + [lem]) for lem in lemmas(parts[-1])]
    return tuple(dict.fromkeys(keys))


def is_tech_word(unit: UnitMatch) -> bool:
    """Software vocabulary as a modifier ("memory", "data", "computer", "API")."""
    return any(k in curated.TECH_CONTEXT or k in curated.ABSTRACT_TECH for k in unit_keys(unit))


def has_software_sense(unit: UnitMatch) -> bool:
    """An everyday word with a software sense ("leak", "cloud", "thread")."""
    return any(k in curated.SOFTWARE_SENSES for k in unit_keys(unit))


def read_sense(
    units: list[UnitMatch], head: int, others: list[int], domain: NarrationDomain, threshold: float
) -> SenseReading:
    """The sense of ``units[head]`` (everyday, software or economic), given the term's other content units."""
    software = _software_sense(units, head, others, domain, threshold)
    if software.why is not None:
        return software
    return _economic_sense(units, head, others, threshold)


def _software_sense(
    units: list[UnitMatch], head: int, others: list[int], domain: NarrationDomain, threshold: float
) -> SenseReading:
    """Software or everyday sense for ``units[head]`` (see module doc)."""
    unit = units[head]
    words = unit.text.split(" ")
    tech = [units[i].text for i in others if is_tech_word(units[i])]
    if len(words) > 1 and unit.source.startswith("norms") and not has_software_sense(unit):
        inner = [UnitMatch(w, w, None, "word") for w in words]
        inner_tech = [w.text for w in inner[:-1] if is_tech_word(w)]
        if not (inner_tech and has_software_sense(inner[-1])):
            return EVERYDAY  # an everyday expression ("tree branch")
        tech += inner_tech
    elif not has_software_sense(unit):
        return EVERYDAY
    if not (tech or domain.software):
        return EVERYDAY
    camera = _camera_words(units)
    if camera:
        return SenseReading("everyday", None, f"'{camera[0]}' describes a shot, so '{unit.text}' is the visible thing")
    cues = [
        units[i].text
        for i in others
        if (units[i].rating or 0.0) >= threshold and not is_tech_word(units[i]) and not has_software_sense(units[i])
    ]
    if cues:
        return SenseReading("everyday", None, f"'{cues[0]}' names the visible {unit.text}, so it is read in its everyday sense")
    if tech:
        return SenseReading("software", SOFTWARE_SENSE_RATING, f"next to '{tech[0]}', '{unit.text}' names the software concept")
    return SenseReading("software", SOFTWARE_SENSE_RATING, f"in {domain.describe()}, '{unit.text}' names the software concept")


def is_economic_word(unit: UnitMatch) -> bool:
    """Economic vocabulary as a modifier ("housing", "wage", "price")."""
    return any(k in curated.ECONOMIC_CONTEXT for k in unit_keys(unit))


@lru_cache(maxsize=1024)
def economic_compounds(head: str) -> tuple[tuple[str, float], ...]:
    """The norms' rated two-part compounds of ``head`` after an economic modifier, e.g. "labor market" 2.85."""
    norms = load_norms()
    found: list[tuple[str, float]] = []
    for modifier in sorted(curated.ECONOMIC_CONTEXT):
        for parts in norms.phrases.get(modifier.split(" ")[0], ()):
            phrase = " ".join(parts)
            if parts[-1] == head and " ".join(parts[:-1]) == modifier:
                found.append((phrase, norms.words[phrase]))
    return tuple(found)


def _economic_sense(units: list[UnitMatch], head: int, others: list[int], threshold: float) -> SenseReading:
    """Economic or everyday sense for a single-word ``units[head]`` beside an economic modifier."""
    unit = units[head]
    if " " in unit.text or (unit.rating or 0.0) <= threshold:
        return EVERYDAY
    economic = [units[i].text for i in others if is_economic_word(units[i])]
    if not economic:
        return EVERYDAY
    compounds = next((c for c in map(economic_compounds, (unit.entry or unit.text, *lemmas(unit.text))) if c), ())
    if not compounds or (rating := median(r for _, r in compounds)) > threshold:
        return EVERYDAY
    shown = ", ".join(f"'{p}' {r:.2f}" for p, r in sorted(compounds, key=lambda c: c[1])[:3])
    visible = [units[i].text for i in others if (units[i].rating or 0.0) > threshold and not is_economic_word(units[i])]
    visible += _camera_words(units)
    if visible:
        return SenseReading("everyday", None,
                            f"'{visible[0]}' names the visible {unit.text}, so it is read in its everyday sense")
    return SenseReading(
        "economic", round(rating, 3),
        f"next to '{economic[0]}', '{unit.text}' names the economic {unit.text} (the norms rate {shown}; median {rating:.2f})",
    )


def _camera_words(units: list[UnitMatch]) -> list[str]:
    """Units that are camera language ("close-up", "aerial")."""
    return [u.text for u in units if any(k in CAMERA_WORDS for k in unit_keys(u))]
