"""From judgement records to the tables the statistics read, and the protocol-aware checks.

Winners become per-sample labels in canonical system order (``"a"``, ``"b"``, ``"tie"``: the
systems sorted by name), ratings become per-clip labels, tags per-sample yes/no. Agreement is
computed on the *design* ratings: the first ``min_raters`` human records of each pair sample.
A third rater is called only on disagreement, so counting them would bias agreement down.
"""

from __future__ import annotations

from typing import Any, Hashable, Iterable, Mapping, Sequence, TypedDict

from reeljudge.ab.analysis.contradiction import LOSER_RATED_HIGHER, contradiction
from reeljudge.ab.store.protocol import Protocol
from reeljudge.ab.store.records import TIE, Judgement, as_judgements
from reeljudge.ab.store.samples import Sample
from reeljudge.stats.agreement import MajorityAgreement, agreement_with_majority as _vs_majority
from reeljudge.stats.rankings import Outcome

WINNER_CATEGORIES = ("a", "b", TIE)


class ContradictionRow(TypedDict):
    """A record whose own ratings contradict its winner (``contradictions``)."""

    record_id: str
    sample_id: str
    rater: str
    winner: str
    ratings_favour: str
    deciding_group: str
    margin: float
    kind: str


class DisagreeingVerdict(TypedDict):
    """One rater's verdict on a sample the raters disagree on."""

    rater: str
    winner: str
    primary_tag: str
    secondary_tags: list[str]
    note: str | None


class Disagreement(TypedDict):
    """A sample whose raters disagree on the winner (``disagreements``): severity 2 opposite winners, 1 a win against
    a tie; ``clips`` is system → clip sha256."""

    sample_id: str
    family: str
    prompt: str
    severity: int
    kind: str
    rating_spread: int
    verdicts: list[DisagreeingVerdict]
    clips: dict[str, str]


def pair_records(records: Iterable[Any], samples: Iterable[Sample], *, kind: str | None = "human") -> list[Judgement]:
    """Records of non-gold samples (of one rater kind; None: all), in the order they were written."""
    pairs = {s.sample_id for s in samples if s.kind != "gold"}
    return [j for j in as_judgements(records) if j.sample_id in pairs and (kind is None or j.rater_kind == kind)]


def design_records(records: Sequence[Judgement], first_n: int = 2) -> list[Judgement]:
    """The first ``first_n`` records of each sample (by write order): the fixed-design ratings."""
    seen: dict[str, int] = {}
    out = []
    for j in records:
        if seen.get(j.sample_id, 0) < first_n:
            seen[j.sample_id] = seen.get(j.sample_id, 0) + 1
            out.append(j)
    return out


def winner_code(j: Judgement) -> str:
    """The winner as ``a`` / ``b`` (systems in name order) or ``tie``."""
    if j.winner == TIE:
        return TIE
    return "a" if j.winner == min(j.systems) else "b"


def winner_labels(records: Iterable[Judgement]) -> dict[str, dict[str, str]]:
    """sample → rater → winner code."""
    labels: dict[str, dict[str, str]] = {}
    for j in records:
        labels.setdefault(j.sample_id, {})[j.rater] = winner_code(j)
    return labels


def rating_labels(records: Iterable[Judgement], dimension: str) -> dict[tuple[str, str], dict[str, int]]:
    """(sample, system) → rater → rating of one dimension."""
    labels: dict[tuple[str, str], dict[str, int]] = {}
    for j in records:
        for system, dims in j.ratings.items():
            if dimension in dims:
                labels.setdefault((j.sample_id, system), {})[j.rater] = dims[dimension]
    return labels


def tag_presence(records: Sequence[Judgement], tag: str) -> dict[str, dict[str, bool]]:
    """sample → rater → whether the rater used ``tag`` (primary or secondary)."""
    presence: dict[str, dict[str, bool]] = {}
    for j in records:
        presence.setdefault(j.sample_id, {})[j.rater] = tag in j.tags
    return presence


def outcomes(records: Iterable[Judgement]) -> list[Outcome]:
    """(system a, system b, score of a) per record: 1 win, 0 loss, 0.5 tie."""
    out = []
    for j in records:
        a, b = sorted(j.systems)
        out.append((a, b, 0.5 if j.winner == TIE else 1.0 if j.winner == a else 0.0))
    return out


def contradictions(records: Iterable[Judgement], protocol: Protocol) -> list[ContradictionRow]:
    """Records whose own ratings contradict their winner, by the one rule of ``reeljudge.ab.analysis.contradiction``
    (the one the A/B judge's reader refuses by): the loser rated better, or a tie rated apart."""
    found: list[ContradictionRow] = []
    for j in records:
        c = contradiction(protocol, j.family, j.winner, j.ratings, j.systems)
        if c is None:
            continue
        # a contradiction is found only where the ratings favour a contestant, so a group decides
        assert c.preference.favoured is not None and c.preference.group is not None
        found.append({"record_id": j.record_id, "sample_id": j.sample_id, "rater": j.rater, "winner": j.winner,
                      "ratings_favour": c.preference.favoured, "deciding_group": c.preference.group,
                      "margin": c.preference.margin, "kind": c.kind})
    return sorted(found, key=lambda c: (c["kind"] != LOSER_RATED_HIGHER, -c["margin"], c["sample_id"]))


def disagreements(records: Sequence[Judgement], samples: Mapping[str, Sample],
                  protocol: Protocol, top: int = 20) -> list[Disagreement]:
    """Samples whose raters disagree on the winner, most severe first.

    Severity 2: opposite winners; 1: a win against a tie. Within a level, the wider spread of the
    raters' rating margins (sum over dimensions of rating(a) − rating(b)) comes first.
    """
    by_sample: dict[str, list[Judgement]] = {}
    for j in records:
        by_sample.setdefault(j.sample_id, []).append(j)
    rows: list[Disagreement] = []
    for sid, js in by_sample.items():
        winners = {j.winner for j in js}
        if len(js) < 2 or len(winners) < 2:
            continue
        systems = winners - {TIE}
        severity = 2 if len(systems) == 2 else 1
        margins = [_margin(j) for j in js]
        sample = samples[sid]
        rows.append({
            "sample_id": sid, "family": sample.family, "prompt": sample.prompt, "severity": severity,
            "kind": "opposite winners" if severity == 2 else "win vs tie", "rating_spread": max(margins) - min(margins),
            "verdicts": [{"rater": j.rater, "winner": j.winner, "primary_tag": j.primary_tag,
                          "secondary_tags": list(j.secondary_tags),
                          "note": j.record.get("note")} for j in js],
            "clips": {sample.system_a: sample.clip_a, sample.system_b: sample.clip_b},
        })
    rows.sort(key=lambda r: (-r["severity"], -r["rating_spread"], r["sample_id"]))
    return rows[:top]


def _margin(j: Judgement) -> int:
    """Sum over dimensions of rating(a) − rating(b), systems in name order."""
    a, b = sorted(j.systems)
    ra, rb = j.ratings.get(a, {}), j.ratings.get(b, {})
    return sum(ra.get(d, 0) - rb.get(d, 0) for d in set(ra) | set(rb))


def agreement_with_majority(records: Iterable[Any], rater: str, *, reference_kind: str = "human", min_others: int = 2,
                            n_resamples: int = 2000, seed: int | None = None) -> MajorityAgreement:
    """How often ``rater`` (e.g. a model judge) picks the winner the majority of ``reference_kind`` raters picked.

    Uses every record of the other raters of that kind on the samples ``rater`` judged (gold
    samples included only if the caller passes them). Includes the agreement without ties.
    """
    js = as_judgements(records)
    labels: dict[Hashable, dict[str, Hashable]] = {}
    others = set()
    for j in js:
        if j.rater == rater or j.rater_kind == reference_kind:
            labels.setdefault(j.sample_id, {})[j.rater] = winner_code(j)
            if j.rater != rater:
                others.add(j.rater)
    return _vs_majority(labels, rater, others=others, min_others=min_others, tie_label=TIE, n_resamples=n_resamples, seed=seed)
