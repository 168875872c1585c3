"""The syntactic head of a search term: which unit names the thing a camera would film.

B-roll search terms are short noun phrases ("garbage truck", "stack of plates"), clauses
("developer typing") or bare words. A rule-based head finder is enough for them and needs no
model: word classes come from lemminflect's lexicon (shipped in its wheel; which readings a word
*can* have: "fix" NOUN/VERB, "leaking" a VERB form), closed-class words from the lists below.

Rules, over the units of :func:`reeljudge.filmability.lexicon.segment` (a rated multiword
expression is one unit):

1. Determiners and numbers are skipped; the term is cut at its first conjunction (each side is
   read on its own by the caller) and at its first preposition: what comes before is the main
   phrase, what follows its complement ("sunset | over a data center"; a rated phrase such as
   "at sea" opens the complement). A term that starts with a preposition is read from its
   complement ("in the rain").
2. In English compounds the head is the last word: "garbage truck", "water usage",
   "efficient engine".
3. "X of Y" where X counts, groups or frames things ("row of houses", "close-up of hands"), and
   "X from Y" where X is a shot word ("view from a plane window"), are read from Y; a shot word at the
   end of a compound ("hard disk close-up") is read from the word before it.
4. A noun followed by a verb's -ing form is an agent and its action ("developer typing",
   "programmer thinking", "waves crashing"): the agent decides — unless the -ing word is itself a
   rated noun (a concrete one such as "building", or one the lexicon lists as a noun: "school
   funding", "data processing" are read by "funding", "processing"). A past participle after a
   noun ("phone left on a bench") describes the noun, which decides; an adverb after an -ing form
   describes the action ("developer typing fast").
5. With words after the action ("worker inspecting parts", "goalkeeper diving save"), a concrete
   noun before an -ing verb is the agent and decides too, unless the -ing word is a nominalisation
   (it can be a noun, or the norms rate it as a word, and not as concrete: "school funding cuts",
   "family spending habits").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import cast

from reeljudge.filmability.lexicon import UnitMatch

DETERMINERS = frozenset(
    "a an the some any this that these those my your our their his her its every each no another several "
    "many few much".split()
)
NUMBERS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve twenty thirty hundred hundreds thousand "
    "thousands million millions dozen dozens".split()
)
PREPOSITIONS = frozenset(
    "of in on at over under with without from for by through near behind into onto across around during "
    "above below beside between among along inside outside against toward towards to via past beyond "
    "within after before like while".split()
)
CONJUNCTIONS = frozenset("and or & versus vs".split())
#: nouns that count, group or frame what follows "of": the head is what they hold
LIGHT_NOUNS = frozenset(
    "pile stack row line group bunch lot lots pair couple set series handful number kind type sort piece "
    "bit amount variety heap cluster crowd collection".split()
)
#: shot words: "close-up of hands", "city aerial" are judged by what they show
VIEW_NOUNS = frozenset(
    (
        "close up", "closeup", "shot", "view", "footage", "video", "clip", "image", "photo", "picture", "aerial",
        "timelapse", "time lapse", "b roll", "scene", "aerial view", "aerial shot", "slow motion",
    )
)
#: camera language: a term that says how to shoot something names a visible thing
CAMERA_WORDS = VIEW_NOUNS | frozenset(("above", "at night", "overhead", "drone", "macro", "underwater", "slow mo"))
#: adjectives that follow their noun ("office full of laptops")
POSTPOSITIVE = frozenset("full free ready".split())


@dataclass(frozen=True)
class HeadParse:
    """Which unit of a term decides, and the role of every other unit."""

    head: int | None  # index into the units; None when the term has no content word
    form: str  # "word", "compound", "phrase", "agent-action", "of-phrase", "shot", "postposed", "empty"
    roles: dict[int, str] = field(default_factory=dict)  # unit index -> head/modifier/complement/action/function
    detail: str | None = None  # the light noun, shot word or action that moved the head


def word_classes(unit: UnitMatch) -> frozenset[str]:
    """Universal POS classes a unit can have (NOUN for multiword units and unknown words)."""
    if " " in unit.text:
        return frozenset({"NOUN"})
    return _word_classes(unit.text)


@lru_cache(maxsize=4096)
def _word_classes(word: str) -> frozenset[str]:
    """Classes from lemminflect's lexicon, with suffix guesses for words it does not know."""
    if word in DETERMINERS:
        return frozenset({"DET"})
    if word in PREPOSITIONS:
        return frozenset({"ADP"})
    if word in CONJUNCTIONS:
        return frozenset({"CCONJ"})
    if word in NUMBERS or word.isdigit():
        return frozenset({"NUM"})
    try:
        import lemminflect
    except ImportError:  # documented fallback: suffix guesses only
        readings: dict[str, tuple[str, ...]] = {}
    else:
        readings = lemminflect.getAllLemmas(word)
    if readings:
        return frozenset(readings)
    if word.endswith("ly"):
        return frozenset({"ADV"})
    if word.endswith("ing"):
        return frozenset({"VERB", "NOUN"})
    return frozenset({"NOUN"})


@lru_cache(maxsize=4096)
def verb_form(word: str) -> str | None:
    """``VBG`` (an -ing form of a verb) or ``VBN`` (a past participle that is no noun), else None.

    Told from lemminflect's lemma readings alone (its inflection table costs another 0.3 s to load):
    an -ing word with a verb reading is VBG; a word whose verb lemma differs from it, that does not
    end in -s (3rd person or a plural) and has no noun reading ("parked", "broken") is VBN.
    """
    if " " in word:
        return None
    classes = _word_classes(word)
    if "VERB" not in classes:
        return None
    if word.endswith("ing"):
        return "VBG"
    try:
        import lemminflect
    except ImportError:
        return None
    verbs = lemminflect.getAllLemmas(word).get("VERB", ())
    if "NOUN" not in classes and not word.endswith("s") and verbs and word not in verbs:
        return "VBN"
    return None


def is_function(unit: UnitMatch) -> bool:
    """Determiners, numbers, prepositions and conjunctions carry no filmable content."""
    return bool(word_classes(unit) & {"DET", "NUM", "ADP", "CCONJ"}) and " " not in unit.text


def split_coordination(units: list[UnitMatch]) -> list[list[UnitMatch]]:
    """The conjuncts of a term cut at its conjunctions ("salt and pepper" -> two)."""
    parts: list[list[UnitMatch]] = [[]]
    for unit in units:
        if unit.text in CONJUNCTIONS:
            parts.append([])
        else:
            parts[-1].append(unit)
    return [p for p in parts if p]


def find_head(units: list[UnitMatch], threshold: float) -> HeadParse:
    """The head of one conjunct (see module doc). ``threshold`` tells rated -ing nouns from actions."""
    roles = {i: "function" for i, u in enumerate(units) if is_function(u)}
    prep = _preposition(units)
    # a rated phrase that starts with a preposition ("at sea") opens the complement and is part of it
    start = None if prep is None else prep + (" " not in units[prep].text)
    main = [i for i in range(len(units) if prep is None else prep) if i not in roles]
    comp = [] if start is None else [i for i in range(start, len(units)) if i not in roles]
    if not main and not comp:
        return HeadParse(None, "empty", roles)
    if not main:  # "in the rain": the complement is all there is, so it starts somewhere
        inner = find_head(units[start:], threshold)
        shifted = {i + cast(int, start): r for i, r in inner.roles.items()}
        head = None if inner.head is None else inner.head + cast(int, start)
        return HeadParse(head, inner.form, {**roles, **shifted}, inner.detail)
    for i in comp:
        roles[i] = "complement"
    last = main[-1]
    framing = (units[prep].text == "of" and _key(units[last]) in LIGHT_NOUNS | VIEW_NOUNS) or (
        units[prep].text == "from" and _key(units[last]) in VIEW_NOUNS
    ) if prep is not None else False
    if framing and comp:
        inner = find_head(units[start:], threshold)
        if inner.head is not None:
            head = inner.head + cast(int, start)  # a complement (comp) has its start
            roles.update({i: "modifier" for i in main})
            roles.update({i + cast(int, start): r for i, r in inner.roles.items() if r != "function"})
            return HeadParse(head, "of-phrase", roles, units[last].text)
    return _main_head(units, main, roles, threshold)


def _preposition(units: list[UnitMatch]) -> int | None:
    """Index of the unit that opens the first prepositional phrase (a multiword one not first)."""
    for i, unit in enumerate(units):
        words = unit.text.split(" ")
        if words[0] in PREPOSITIONS and (len(words) == 1 or i > 0):
            return i
    return None


def _main_head(units: list[UnitMatch], main: list[int], roles: dict[int, str], threshold: float) -> HeadParse:
    """The head inside the main phrase (no preposition left): last word, agent, or shot-word rule."""
    last = main[-1]
    if len(main) > 1 and "ADV" in word_classes(units[last]) and verb_form(units[main[-2]].text) == "VBG":
        roles[last] = "modifier"  # "developer typing fast": the adverb describes the action
        if len(main) > 2 and "NOUN" in word_classes(units[main[-3]]):  # "airplane taking off": a particle makes
            agent, action = main[-3], main[-2]                        # the -ing word a verb, its noun the agent
            roles.update({i: "modifier" for i in main[:-3]})
            roles.update({agent: "head", action: "action"})
            return HeadParse(agent, "agent-action", roles, units[action].text)
        return _main_head(units, main[:-1], roles, threshold)
    if (pair := _agent_before_action(units, main, threshold)) is not None:
        agent, action = pair
        roles.update({i: "complement" for i in main if i > action})
        roles.update({i: "modifier" for i in main if i < agent})
        roles.update({agent: "head", action: "action"})
        return HeadParse(agent, "agent-action", roles, units[action].text)
    roles.update({i: "modifier" for i in main[:-1]})
    if len(main) == 1:
        roles[last] = "head"
        return HeadParse(last, "phrase" if " " in units[last].text else "word", roles)
    prev = main[-2]
    noun_before = "NOUN" in word_classes(units[prev])
    if _key(units[last]) in VIEW_NOUNS:
        roles.update({last: "modifier", prev: "head"})
        return HeadParse(prev, "shot", roles, units[last].text)
    form = verb_form(units[last].text)
    rated_noun = units[last].source in ("norms", "override") and (
        (units[last].rating or 0.0) >= threshold or "NOUN" in word_classes(units[last])
    )
    if noun_before and (form == "VBN" or (form == "VBG" and not rated_noun) or units[last].text in POSTPOSITIVE):
        roles.update({last: "action", prev: "head"})
        return HeadParse(prev, "agent-action" if form == "VBG" else "postposed", roles, units[last].text)
    roles[last] = "head"
    return HeadParse(last, "compound", roles)


def _agent_before_action(units: list[UnitMatch], main: list[int], threshold: float) -> tuple[int, int] | None:
    """(agent, action) of "agent, action, object" ("worker inspecting parts", "goalkeeper diving save"), else None.

    A concrete noun followed by a verb's -ing form with words after it. An -ing word that can be a
    noun, or that the norms rate as a word of its own, and is not rated concrete ("funding",
    "processing", "spending" 3.31) is a nominalisation, not an action ("school funding cuts",
    "family spending habits"), so it gives no agent; one rated only through its verb
    ("inspecting" as "inspect") is an action.
    """
    for a, b in zip(main, main[1:-1]):
        agent, action = units[a], units[b]
        if verb_form(action.text) != "VBG" or "NOUN" not in word_classes(agent) or (agent.rating or 0.0) <= threshold:
            continue
        own_rating = action.source in ("norms", "override")  # the -ing form itself is rated, not its verb
        if (action.rating or 0.0) <= threshold and ("NOUN" in word_classes(action) or own_rating):
            continue
        return a, b
    return None


def _key(unit: UnitMatch) -> str:
    """The form of a unit to compare with the word lists: its matched entry, else its text."""
    return unit.entry or unit.text
