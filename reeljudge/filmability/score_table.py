"""The filmability score table (SPEC §1): points per criterion → score, applied by our code, never by the judge."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping

CRITERIA_MAX: dict[str, int] = {"relevance": 3, "filmability": 3, "variety": 1}
#: the offline judge's three answers on whether a list is about its narration (``relevance.list_answer``)
RELATED, OFF_TOPIC, UNSURE = "related", "off-topic", "unsure"
LEVELS: list[tuple[int, float, str]] = [(6, 1.0, "EXCELLENT"), (4, 0.8, "GOOD"), (2, 0.6, "ACCEPTABLE"), (0, 0.3, "POOR")]


@dataclass(frozen=True)
class Breakdown:
    """One judgement of a term list: points per criterion plus the terms it found unfilmable."""

    relevance: int
    filmability: int
    variety: int
    unfilmable_terms: list[str] = field(default_factory=list)
    reason: str = ""
    criterion_reasons: dict[str, str] = field(default_factory=dict)

    @property
    def points(self) -> int:
        """Total points, 0–7."""
        return self.relevance + self.filmability + self.variety


@dataclass(frozen=True)
class TableScore:
    """The score our table gives a breakdown, and why."""

    points: int
    score: float
    level: str
    capped: bool
    repeat_capped: bool = False  # 1.0 EXCELLENT lowered to 0.8 GOOD because the list repeats a term


def cap_for_repeats(table: TableScore) -> TableScore:
    """The table's score for a list that repeats a term: its distinct terms' score, EXCELLENT lowered to GOOD."""
    if table.level != "EXCELLENT":
        return table
    return replace(table, score=0.8, level="GOOD", repeat_capped=True)


def score_breakdown(b: Breakdown) -> TableScore:
    """Points → score by the spec's table; 1.0 needs relevance 3, else it is capped at 0.8."""
    for name, top in CRITERIA_MAX.items():
        value = getattr(b, name)
        if not isinstance(value, int) or not 0 <= value <= top:
            raise ValueError(f"{name} must be an integer 0–{top}, got {value!r}")
    points = b.points
    for floor, score, level in LEVELS:
        if points >= floor:
            break
    capped = score == 1.0 and b.relevance < 3
    if capped:
        score, level = 0.8, "GOOD"
    return TableScore(points=points, score=score, level=level, capped=capped)


def breakdown_from_reply(reply: Mapping[str, Any]) -> Breakdown:
    """A Breakdown from a validated judge reply (either spelling of the unfilmable-terms field)."""
    terms = reply.get("unfilmableTerms")
    if terms is None:
        terms = reply.get("unfimableTerms", [])
    bd = reply["breakdown"]
    reasons = reply.get("criterionReasons") or {}
    return Breakdown(
        relevance=int(bd["relevance"]),
        filmability=int(bd["filmability"]),
        variety=int(bd["variety"]),
        unfilmable_terms=[str(t) for t in terms],
        reason=str(reply.get("reason", "")),
        criterion_reasons={k: str(v) for k, v in reasons.items()} if isinstance(reasons, Mapping) else {},
    )


def judge_disagreements(reply: Mapping[str, Any], computed: TableScore) -> list[str]:
    """Where the judge's own ``score``/``points`` differ from what its breakdown gives."""
    notes = []
    if "points" in reply and reply["points"] != computed.points:
        notes.append(f"judge said points={reply['points']!r}, breakdown sums to {computed.points}")
    if "score" in reply:
        try:
            if abs(float(reply["score"]) - computed.score) > 1e-9:
                notes.append(f"judge said score={reply['score']!r}, table gives {computed.score}")
        except (TypeError, ValueError):
            notes.append(f"judge said score={reply['score']!r}, not a number")
    return notes
