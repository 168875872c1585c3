"""The one definition of a verdict whose own ratings contradict its winner.

A verdict names a winner (or a tie) and rates both clips 1–5 per dimension. Its ratings *favour*
a clip by the protocol's priority order: the priority groups are compared in order (adherence
first, then stability, edit precision, realism, overall), each group's ratings summed over its
dimensions that apply to the task family; the first group where the two clips differ decides, by
any margin (one point is enough: the protocol says to prioritise, so a clip rated better on a
higher priority is the better clip whatever the lower priorities say). The verdict
**contradicts itself** when

- ``loser_rated_higher``: it names a winner and the ratings favour the other clip; or
- ``tie_rated_apart``: it names a tie ("truly indistinguishable") and the ratings favour a clip.

Equal ratings on every group never contradict. The rating server's report
(``reeljudge.ab.analysis.analysis.contradictions``) lists people's records by this rule and the A/B judge's
reader refuses a model's reply by it (fed back once, then not judged): one rule, one function.
Works on any two contestants: sides (``A``/``B``) or system names. Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from reeljudge.ab.store.protocol import TIE, Protocol

LOSER_RATED_HIGHER = "loser_rated_higher"
TIE_RATED_APART = "tie_rated_apart"


@dataclass(frozen=True)
class Preference:
    """Which contestant the ratings favour, the priority group that decides, and by how many points."""

    favoured: str | None
    group: str | None = None
    margin: float = 0
    sums: Mapping[str, float] | None = None  # contestant -> summed rating of the deciding group


@dataclass(frozen=True)
class Contradiction:
    """A verdict whose ratings favour a clip it did not pick (``kind``: see the module doc)."""

    kind: str
    winner: str
    preference: Preference
    labels: tuple[str, ...] = ()  # the deciding group's dimensions, as labels

    def message(self) -> str:
        """What the contradiction is, in words a judge (or a reader of the report) can act on."""
        p = self.preference
        assert p.favoured is not None  # contradiction() finds one only where the ratings favour a side
        sums = p.sums or {}
        other = next(c for c in sums if c != p.favoured)
        dims = " + ".join(self.labels) or str(p.group)
        rated = f"{dims} rated {sums[p.favoured]} for {p.favoured} against {sums[other]} for {other}"
        if self.kind == TIE_RATED_APART:
            return (f"the verdict is a tie but its ratings tell the clips apart: {rated} (the first priority where "
                    f"they differ). Give the winner the ratings favour, or ratings that do not tell the clips apart.")
        return (f"the winner is {self.winner} but the ratings favour {p.favoured}: {rated} (the first priority where "
                f"they differ; the protocol ranks it above the priorities after it). Name {p.favoured} the winner, "
                f"or correct the ratings so they agree with your winner.")


def preference(protocol: Protocol, family: str, ratings: Mapping[str, Mapping[str, float]],
               contestants: tuple[str, str]) -> Preference:
    """Which of ``contestants`` the ratings favour by the protocol's priority order (see the module doc)."""
    x, y = contestants
    for group in protocol.priority:
        dims = [d.id for d in protocol.dimensions_for(family) if d.priority == group]
        rx = sum(_rating(ratings, x, d) for d in dims)
        ry = sum(_rating(ratings, y, d) for d in dims)
        if rx != ry:
            return Preference(x if rx > ry else y, group, abs(rx - ry), {x: rx, y: ry})
    return Preference(None)


def _rating(ratings: Mapping[str, Mapping[str, float]], contestant: str, dimension: str) -> float:
    """One rating, 0 when it is missing (a missing rating is the form rules' business, not this one's)."""
    value = (ratings.get(contestant) or {}).get(dimension)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def contradiction(protocol: Protocol, family: str, winner: str, ratings: Mapping[str, Mapping[str, float]],
                  contestants: tuple[str, str]) -> Contradiction | None:
    """The contradiction between ``winner`` (a contestant or ``tie``) and ``ratings``, or None when they agree."""
    found = preference(protocol, family, ratings, contestants)
    if found.favoured is None:
        return None
    if winner != TIE and found.favoured == winner:
        return None
    labels = tuple(d.label for d in protocol.dimensions_for(family) if d.priority == found.group)
    return Contradiction(TIE_RATED_APART if winner == TIE else LOSER_RATED_HIGHER, winner, found, labels)


__all__ = ["Contradiction", "LOSER_RATED_HIGHER", "Preference", "TIE_RATED_APART", "contradiction", "preference"]
