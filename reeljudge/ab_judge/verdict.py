"""The A/B judge's verdicts: one per order as the judge saw it, and the pair's verdict in systems.

Each order's verdict is mapped back from sides to systems. With two orders:

- the same winner (a system, or a tie) in both orders: that winner, ``consistent``;
- different winners (a flip, or a win in one order and a tie in the other): a **tie flagged
  inconsistent** with primary tag ``tie_both_flawed`` (each clip lost in one order, so the judge
  found a failure in each; the per-order tags stay in ``orders``), no secondary tags;
- ratings: the mean over both orders per system and dimension (whole or half points);
- consistent tags: the primary tag both orders share, else the first order's; secondary tags are
  the other tags of both orders, most used first, at most the protocol's maximum;
- the note: the first order's (the second's stays in ``orders``).

With one order (``orders: 1``) the verdict is that order's, ``consistent`` is None.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from reeljudge.ab.store.protocol import TIE, Protocol, load_protocol
from reeljudge.gemini.request import Usage
from reeljudge.identity import GEMINI_ENGINE, RecordedOptions, judge_identity
from reeljudge.judging import AB_JUDGE

INCONSISTENT_TAG = "tie_both_flawed"
INCONSISTENT_NOTE = "Position-inconsistent: the verdict changed when the clips swapped sides."


@dataclass(frozen=True)
class OrderVerdict:
    """One order's reply: which system was on which side, the reply as given (side terms), its call."""

    shown: Mapping[str, str]  # side -> system
    form: Mapping[str, Any]  # winner A/B/tie, primary_tag, secondary_tags, ratings {A, B}, note, repaired (the reader's repairs)
    call: Mapping[str, Any] = field(default_factory=dict)  # model, latency, cache hit, cost, attempts, key
    usage: Usage = field(default_factory=Usage)

    @property
    def winner(self) -> str:
        """The winning system, or ``tie``."""
        side = self.form["winner"]
        return TIE if side == TIE else self.shown[side]

    @property
    def tags(self) -> tuple[str, ...]:
        """Primary then secondary tags."""
        return (self.form["primary_tag"], *(self.form.get("secondary_tags") or ()))

    def ratings_of(self, system: str) -> Mapping[str, int]:
        """The ratings this order gave ``system``."""
        side = next(s for s, name in self.shown.items() if name == system)
        return self.form["ratings"][side]

    @property
    def layout(self) -> str:
        """Which system was shown on which side: ``A = new, B = reference``."""
        return f"A = {self.shown['A']}, B = {self.shown['B']}"

    def reason(self) -> str:
        """This order's answer as the judge gave it: the winning side and its system, the tags, the note,
        and the repairs the reply needed to be read."""
        note = f"; note: {self.form['note']}" if self.form.get("note") else ""
        repaired = f"; read with repairs: {'; '.join(self.form['repaired'])}" if self.form.get("repaired") else ""
        return f"winner {self.form['winner']} = {self.winner}; tags: {', '.join(self.tags)}{note}{repaired}"

    def as_dict(self) -> dict[str, Any]:
        """JSON form (stored in a model rater's record under ``judge.orders``)."""
        return {"shown": dict(self.shown), "winner_side": self.form["winner"], "winner": self.winner,
                "primary_tag": self.form["primary_tag"], "secondary_tags": list(self.form.get("secondary_tags") or []),
                "ratings": {s: dict(r) for s, r in self.form["ratings"].items()}, "note": self.form.get("note"),
                "repaired": list(self.form.get("repaired") or []), "call": dict(self.call)}


class Outcome:
    """What a pair verdict means for the candidate (``systems[0]``): shared by both judges' verdicts."""

    systems: tuple[str, str]
    winner: str
    primary_tag: str
    secondary_tags: tuple[str, ...]
    pass_on: str

    @property
    def passed(self) -> bool:
        """The candidate wins, or ties when ``pass_on`` is ``win_or_tie``."""
        return self.winner == self.systems[0] or (self.winner == TIE and self.pass_on == "win_or_tie")

    @property
    def score(self) -> float:
        """1 when the candidate wins, 0.5 on a tie, 0 when it loses."""
        return 1.0 if self.winner == self.systems[0] else 0.5 if self.winner == TIE else 0.0

    @property
    def tags(self) -> tuple[str, ...]:
        """Primary then secondary tags."""
        return (self.primary_tag, *self.secondary_tags)

    @property
    def loser(self) -> str | None:
        """The system that lost, None on a tie."""
        return None if self.winner == TIE else self.systems[1] if self.winner == self.systems[0] else self.systems[0]

    def outcome(self) -> str:
        """The candidate against the other: ``new wins against reference``, ``… ties …`` or ``… loses to …``."""
        new, ref = self.systems
        return (f"{new} ties {ref}" if self.winner == TIE else f"{new} wins against {ref}" if self.winner == new
                else f"{new} loses to {ref}")

    def part_status(self) -> dict[str, bool]:
        """The parts (orders, clips) are not checks of their own: none is marked."""
        return {}


@dataclass(frozen=True)
class PairVerdict(Outcome):
    """The judge's verdict on one pair, in systems: ``systems[0]`` is the candidate (the new clip)."""

    prompt: str
    family: str
    protocol: str
    systems: tuple[str, str]
    winner: str  # a system or "tie"
    primary_tag: str
    secondary_tags: tuple[str, ...]
    ratings: Mapping[str, Mapping[str, float]]  # system -> dimension -> mean rating
    note: str | None
    inconsistent: bool
    orders: tuple[OrderVerdict, ...]
    usage: Usage
    pass_on: str = "win_or_tie"
    fps: float | None = None  # the frames per second sampled from each clip (None: Gemini's default)
    media_resolution: str | None = None  # the tokens per frame asked for (None: Gemini's default)
    configured: RecordedOptions | None = None  # the options that change verdicts, as asked (recorded in who judged)

    judged = True

    @property
    def consistent(self) -> bool | None:
        """Whether both orders gave the same verdict (None when asked in one order only)."""
        return None if len(self.orders) < 2 else not self.inconsistent

    @property
    def cache_hit(self) -> bool:
        """Every order came from the cache."""
        return all(o.call.get("cache_hit") for o in self.orders)

    def reason(self) -> str:
        """The verdict in one line: the outcome and how the orders agreed, the tags (with the protocol's
        labels), the ratings of both clips, the judge's note."""
        new, ref = self.systems
        head = self.outcome()
        if self.inconsistent:
            flips = ", ".join(f"order {i} chose {o.winner}" for i, o in enumerate(self.orders, 1))
            head += f" (position-inconsistent: {flips}; counted as a tie)"
        elif self.consistent:
            head += " (both orders agree)"
        else:
            head += f" (asked in one order, A = {self.orders[0].shown['A']}: orders: 1)"
        if self.winner == TIE and not self.passed:
            head += "; pass_on: win needs a win"
        protocol = load_protocol(self.protocol)
        parts = [head, f"{'primary tag' + (f' ({self.loser})' if self.loser else '')}: {tag_label(protocol, self.primary_tag)}"]
        if self.secondary_tags:
            parts.append("secondary: " + ", ".join(tag_label(protocol, t) for t in self.secondary_tags))
        parts.append("ratings new/reference: " + ", ".join(
            f"{dim} {self.ratings[new][dim]:g}/{self.ratings[ref][dim]:g}" for dim in self.ratings[new]))
        if self.note:
            parts.append(f"note: {self.note}")
        return ". ".join(parts)

    def part_reasons(self) -> dict[str, str]:
        """Each order's answer, by which system was on which side."""
        return {f"order {i} ({o.layout})": o.reason() for i, o in enumerate(self.orders, 1)}

    def named_scores(self) -> dict[str, float]:
        """``ab_win``, ``ab_consistent`` (asked in two orders) and ``ab_<system>_<dimension>`` (the mean ratings)."""
        named: dict[str, float] = {"ab_win": self.score}
        if self.consistent is not None:
            named["ab_consistent"] = 1.0 if self.consistent else 0.0
        for system in self.systems:
            named.update({f"ab_{system}_{dim}": float(value) for dim, value in self.ratings[system].items()})
        return named

    def tokens_used(self) -> dict[str, int] | None:
        """Gemini's tokens over the orders."""
        return self.usage.tokens_used()

    def identity(self) -> dict[str, Any]:
        """Who judged: the model, the protocol's instruction and schema files (hashed), orders and sampling."""
        from reeljudge.ab_judge.rubric import rubric_name, schema_name
        from reeljudge.gemini.prompts import rubric_version

        version = f"{self.protocol}-{rubric_version(rubric_name(self.protocol), schema_name(self.protocol))}"
        return judge_identity(AB_JUDGE.name, GEMINI_ENGINE, model=self.orders[0].call.get("model"), version=version,
                              options=self.configured, replayed=bool(self.cache_hit))

    def metadata(self) -> dict[str, Any]:
        """The outcome, how the orders agreed, tags, ratings, every order's answer, the model and its cost."""
        return {
            "judge": AB_JUDGE.name, "mode": "gemini", "judged": True, "prompt": self.prompt, "family": self.family,
            "protocol": self.protocol, "winner": self.winner, "inconsistent": self.inconsistent, "consistent": self.consistent,
            "orders_asked": len(self.orders), "pass_on": self.pass_on, "primary_tag": self.primary_tag,
            "secondary_tags": list(self.secondary_tags), "ratings": {s: dict(r) for s, r in self.ratings.items()},
            "note": self.note,
            "orders": [o.as_dict() for o in self.orders], "model": self.orders[0].call.get("model"), "cache_hit": self.cache_hit,
            "cost_usd_estimate": None if self.usage.cost_usd is None else round(self.usage.cost_usd, 6),
        }


def tag_label(protocol: Protocol, tag: str) -> str:
    """A reason tag with the protocol's label for it: ``flicker (Flicker / temporal jitter)``."""
    known = protocol.tags.get(tag)
    return f"{tag} ({known.label})" if known else tag


def combine(prompt: str, family: str, protocol: Protocol, systems: tuple[str, str], orders: list[OrderVerdict],
            pass_on: str = "win_or_tie", *, fps: float | None = None, media_resolution: str | None = None,
            configured: RecordedOptions | None = None) -> PairVerdict:
    """The pair's verdict from one or two orders (see the module doc for the rules); ``fps`` and
    ``media_resolution``: how the clips were sampled; ``configured``: the options that change verdicts (recorded in
    who judged)."""
    first = orders[0]
    winners = {o.winner for o in orders}
    inconsistent = len(winners) > 1
    note: str | None
    secondary: tuple[str, ...]
    if inconsistent:
        winner, primary, secondary, note = TIE, INCONSISTENT_TAG, (), INCONSISTENT_NOTE
    else:
        winner, note = first.winner, first.form.get("note") or None
        primary, secondary = _tags(orders, protocol.rules.secondary_tags_max)
    usage = sum((o.usage for o in orders), Usage())
    return PairVerdict(prompt, family, protocol.id, systems, winner, primary, secondary, mean_ratings(systems, orders),
                       note, inconsistent, tuple(orders), usage, pass_on, fps, media_resolution, configured)


def _tags(orders: list[OrderVerdict], most: int) -> tuple[str, tuple[str, ...]]:
    """The primary tag both orders share (else the first order's) and the other tags, most used first."""
    primaries = [o.form["primary_tag"] for o in orders]
    primary = primaries[0]
    counts: dict[str, int] = {}
    for o in orders:
        for tag in o.tags:
            counts[tag] = counts.get(tag, 0) + 1
    rest = sorted((t for t in counts if t != primary), key=lambda t: (-counts[t], list(counts).index(t)))
    return primary, tuple(rest[:most])


def mean_ratings(systems: tuple[str, str], orders: list[OrderVerdict]) -> dict[str, dict[str, float]]:
    """Per system and dimension, the mean rating over the orders (whole numbers stay whole)."""
    out: dict[str, dict[str, float]] = {}
    for system in systems:
        dims = list(orders[0].ratings_of(system))
        out[system] = {}
        for dim in dims:
            total = sum(o.ratings_of(system)[dim] for o in orders)
            mean = total / len(orders)
            out[system][dim] = int(mean) if mean == int(mean) else mean
    return out
