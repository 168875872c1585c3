"""Is a search term filmable? Its head, the phrase as a whole, and the sense the narration gives it.

How a term is read (documented in docs/decisions.md; measured by ``benchmarks/term_accuracy.py``):

1. **Units** (:func:`reeljudge.filmability.lexicon.segment`): a rated multiword expression is one
   unit with its own rating ("garbage truck" 4.73, the lower of its two ratings), so the phrase as a whole comes first.
2. **Head** (:mod:`reeljudge.filmability.heads`): the unit that names what would be in frame —
   the last word of a compound ("water usage" → usage), the agent of an action ("developer
   typing" → developer), what a counting or shot word frames ("row of houses" → houses). The head
   decides: a concrete modifier does not make an abstract head filmable ("car ownership"), an
   abstract modifier does not make a filmable head abstract ("efficient engine").
3. **Sense** (:mod:`reeljudge.filmability.senses`): in a software narration, or beside a software
   modifier, an everyday word with a software sense is the software concept ("memory leak",
   "pipeline") unless a concrete word in the term names the visible thing ("leaking pipe");
   beside an economic modifier, a head the norms rate abstract in their economic compounds is the
   economic concept ("housing market" as "labor market" 2.85).
4. **Seen, not only sensed**: a concrete head that is hardly visual in the Lancaster norms
   ("birdsong", "smell": visual strength ≤ ``min_visual``) is not filmable.
5. Filmable when the deciding rating is above ``threshold`` (3.65): a rating at or just above the
   scale's midpoint ("transport" 3.50, "supply chain" 3.55, "cycle" 3.64) means the raters were
   split, and a term whose filmability has two readings is not counted as filmable. A head the norms do not rate falls back
   to the term's most concrete rated word; a term with fewer than half its words rated is
   ``unknown``, never guessed. Conjunctions: the most concrete conjunct decides.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from reeljudge.filmability.heads import HeadParse, find_head, split_coordination
from reeljudge.filmability.lexicon import DEFAULT_THRESHOLD, UnitMatch, segment, visual_strength
from reeljudge.filmability.senses import NarrationDomain, SenseReading, read_sense

DEFAULT_MIN_VISUAL = 1.0
GENERAL = NarrationDomain(False, ())


@dataclass(frozen=True)
class TermConcreteness:
    """How concrete a search term is, and why."""

    term: str
    score: float | None
    status: str  # "filmable", "abstract" or "unknown"
    anchor: str | None  # the unit that decided (the head, or what it frames)
    units: list[UnitMatch] = field(default_factory=list)
    form: str = "word"  # how the head was found (see reeljudge.filmability.heads.HeadParse.form)
    sense: str = "everyday"  # "everyday", "software" or "economic"
    why: str = ""  # one clause saying how the term was read

    def as_dict(self) -> dict[str, object]:
        """JSON-serialisable form."""
        return asdict(self)


def term_concreteness(
    term: str,
    threshold: float = DEFAULT_THRESHOLD,
    *,
    domain: NarrationDomain = GENERAL,
    min_visual: float = DEFAULT_MIN_VISUAL,
) -> TermConcreteness:
    """Read one search term (see module doc) in the given narration domain."""
    units = segment(term)
    rated = [u for u in units if u.rating is not None]
    covered = sum(len(u.text.split(" ")) for u in rated)
    if not rated or covered * 2 < sum(len(u.text.split(" ")) for u in units):
        return TermConcreteness(term, None, "unknown", None, units, form="empty",
                                why="fewer than half its words are in the norms")
    readings = [_read_conjunct(part, term, threshold, domain, min_visual) for part in split_coordination(units)]
    best = max(readings, key=lambda r: (r.status == "filmable", r.score or 0.0))
    return TermConcreteness(term, best.score, best.status, best.anchor, units, best.form, best.sense, best.why)


def _read_conjunct(
    units: list[UnitMatch], term: str, threshold: float, domain: NarrationDomain, min_visual: float
) -> TermConcreteness:
    """The reading of one conjunct of a term."""
    parse = find_head(units, threshold)
    content = [i for i, r in parse.roles.items() if r != "function"]
    if parse.head is None or not content:
        return TermConcreteness(term, None, "unknown", None, units, form="empty", why="no content word")
    head = parse.head
    notes: list[str] = []
    if units[head].rating is None:
        rated = [i for i in content if units[i].rating is not None]
        if not rated:
            return TermConcreteness(term, None, "unknown", None, units, parse.form, why=f"head '{units[head].text}' is not rated")
        fallback = max(rated, key=lambda i: units[i].rating or 0.0)
        notes.append(f"head '{units[head].text}' is not in the norms, so its most concrete rated word decides")
        head = fallback
    unit = units[head]
    score = float(unit.rating or 0.0)
    others = [i for i in content if i != head]
    sense = read_sense(units, head, others, domain, threshold)
    if sense.rating is not None:
        score = sense.rating
    status = "filmable" if score > threshold else "abstract"
    seen = visual_strength(unit.entry or unit.text) if status == "filmable" else None
    if seen is not None and seen[0] <= min_visual:
        status = "abstract"
        notes.append(f"'{unit.text}' is perceived mainly by {seen[1] or 'another sense'}, hardly seen (visual {seen[0]:.2f}/5)")
    why = _explain(units, parse, head, score, status, sense, threshold)
    return TermConcreteness(
        term, round(score, 3), status, unit.text, units, parse.form,
        sense.sense, "; ".join([why, *notes]),
    )


def _explain(
    units: list[UnitMatch], parse: HeadParse, head: int, score: float, status: str, reading: SenseReading, threshold: float
) -> str:
    """One clause: which unit decided, how it was found, and what the other words did."""
    unit = units[head]
    sense = reading.why
    if sense and reading.rating is not None:
        return sense
    kind = "filmable" if score > threshold else "abstract"
    what = f"'{unit.text}' {score:.2f}"
    if parse.form == "agent-action":
        action = next(units[i].text for i, r in parse.roles.items() if r == "action")
        text = f"agent {what} doing '{action}': the agent decides ({kind})"
    elif parse.form in ("of-phrase", "shot"):
        text = f"'{parse.detail}' frames {what}, which decides ({kind})"
    elif parse.form == "postposed":
        text = f"'{parse.detail}' describes {what}, which decides ({kind})"
    elif len(unit.text.split(" ")) > 1 and unit.source.startswith("norms"):
        text = f"the phrase {what} is rated as a whole ({kind})"
    else:
        text = f"head {what} is {kind}"
    mods = [units[i] for i, r in parse.roles.items()
            if r in ("modifier", "complement") and i != head and units[i].rating is not None]
    if kind == "abstract" and (concrete := [m for m in mods if (m.rating or 0.0) > threshold]):
        text += f"; the concrete word '{concrete[0].text}' ({concrete[0].rating:.2f}) does not make it filmable"
    elif kind == "filmable" and (vague := [m for m in mods if (m.rating or 0.0) <= threshold]):
        text += f"; '{vague[0].text}' only describes it"
    if sense:
        text += f"; {sense}"
    return text
