"""Model raters (e.g. the A/B judge) measured as one more rater, beside the people as the ceiling.

For each model rater, on the pair samples it judged:

- **winner**, overall and per task family; **per dimension** the preference its ratings show
  (which system is rated higher on that dimension, or the same); **per tag** whether it used the
  tag. For each: agreement with the strict majority of the human raters (raw with an interval,
  Cohen's κ, and raw without ties), the share of agreeing judge–human pairs, and — the ceiling —
  the share of agreeing human–human pairs and Fleiss' κ among the design records (first two
  human records per sample) on the same samples. Tags also get positive specific agreement.
- **position consistency**: of the pairs judged in both orders, the share with the same verdict.
- **disagreements with unanimous people**: samples where every human (at least two) chose the
  same winner and the model did not, most severe (the other system) first.
"""

from __future__ import annotations

from typing import Any, Callable, Hashable, Mapping, Sequence, TypedDict

from reeljudge.ab.analysis import analysis as an
from reeljudge.ab.store.protocol import Protocol
from reeljudge.ab.store.records import TIE, Judgement
from reeljudge.ab.store.samples import Sample
from reeljudge.stats import agreement as ag
from reeljudge.stats.bootstrap import IntervalJSON

SAME = "same"
PREFERENCE_CATEGORIES = ("a", "b", SAME)
Labeller = Callable[[Judgement], Hashable | None]


class Comparison(TypedDict):
    """A model on one label against the human majority and the humans, beside human–human agreement (``compare``)."""

    vs_majority: ag.MajorityJSON
    judge_human_pairs: ag.RateJSON
    human_human_pairs: ag.RateJSON
    human_fleiss_kappa: IntervalJSON


class Position(TypedDict):
    """Position consistency: records asked in both orders, how many gave one verdict, the share, records asked once."""

    both_orders: int
    consistent: int
    rate: float | None
    one_order: int


class WinnerComparison(TypedDict):
    """The winner, over every family and per family."""

    all: Comparison
    by_family: dict[str, Comparison]


class DimensionComparison(Comparison):
    """The preference on one rated dimension."""

    label: str


class SpecificPair(TypedDict):
    """Positive specific agreement on a tag: model–human pairs beside human–human pairs."""

    specific_model_human: float | None
    specific_human_human: float | None


class TagComparison(Comparison, SpecificPair):
    """Whether one reason tag was used."""

    tag: str
    label: str
    used_by_model: int


class UnanimousDisagreement(TypedDict):
    """A sample where every human (two or more) chose one winner and the model another."""

    sample_id: str
    family: str
    prompt: str
    humans: str
    n_humans: int
    model: str
    inconsistent: bool
    severity: int
    model_tags: list[str]
    human_tags: list[str]
    note: str | None
    clips: dict[str, str]


class ModelRater(ag.MajorityJSON):
    """Everything the report says about one model rater (``model_report``): its agreement with the human majority, then
    the comparisons by label."""

    samples: int
    position: Position
    winner: WinnerComparison
    dimensions: dict[str, DimensionComparison]
    tags: list[TagComparison]
    unanimous_disagreements: list[UnanimousDisagreement]


def preference(dimension: str) -> Labeller:
    """A record's preference on one dimension: ``a``/``b`` (systems by name) rated higher, ``same``, or None."""

    def label(j: Judgement) -> Hashable | None:
        a, b = sorted(j.systems)
        ra, rb = j.ratings.get(a, {}).get(dimension), j.ratings.get(b, {}).get(dimension)
        if ra is None or rb is None:
            return None
        return "a" if ra > rb else "b" if rb > ra else SAME

    return label


def tag_used(tag: str) -> Labeller:
    """Whether a record used ``tag`` (primary or secondary)."""
    return lambda j: tag in j.tags


def labels_of(records: Sequence[Judgement], label: Labeller) -> dict[str, dict[str, Hashable]]:
    """sample → rater → label (records whose label is None left out)."""
    out: dict[str, dict[str, Hashable]] = {}
    for j in records:
        value = label(j)
        if value is not None:
            out.setdefault(j.sample_id, {})[j.rater] = value
    return out


def compare(model: str, mine: Sequence[Judgement], humans: Sequence[Judgement], design: Sequence[Judgement], label: Labeller,
            categories: Sequence[Hashable], tie: Hashable | None, kw: Mapping[str, Any]) -> Comparison:
    """One row: the model against the human majority and the humans, beside human–human agreement."""
    samples = {j.sample_id for j in mine}
    everyone = labels_of([*humans, *mine], label)
    people = {j.rater for j in humans}
    ceiling = {u: r for u, r in labels_of([j for j in design if j.sample_id in samples], label).items()}
    majority = ag.agreement_with_majority(everyone, model, others=people, min_others=2, tie_label=tie, **kw)
    pairs = {u: r for u, r in labels_of([*[j for j in design if j.sample_id in samples], *mine], label).items()}
    return {
        "vs_majority": majority.as_dict(),
        "judge_human_pairs": ag.agreement_with_others(pairs, model, people, **kw).as_dict(),
        "human_human_pairs": ag.pairwise_agreement(ceiling, **kw).as_dict(),
        "human_fleiss_kappa": ag.fleiss_kappa(ceiling, list(categories), raters_per_unit=2, **kw).as_dict(),
    }


def position(mine: Sequence[Judgement]) -> Position:
    """Position consistency: of the records asked in both orders, how many gave one verdict."""
    both = [j for j in mine if (j.record.get("judge") or {}).get("orders_asked") == 2]
    consistent = sum(1 for j in both if not j.inconsistent)
    return {"both_orders": len(both), "consistent": consistent, "rate": consistent / len(both) if both else None,
            "one_order": sum(1 for j in mine if (j.record.get("judge") or {}).get("orders_asked") == 1)}


def unanimous_disagreements(mine: Sequence[Judgement], humans: Sequence[Judgement],
                            samples: Mapping[str, Sample]) -> list[UnanimousDisagreement]:
    """Samples where every human (two or more) chose one winner and the model chose another."""
    rows: list[UnanimousDisagreement] = []
    for j in mine:
        people = [h for h in humans if h.sample_id == j.sample_id]
        winners = {h.winner for h in people}
        if len(people) < 2 or len(winners) != 1 or j.winner in winners:
            continue
        (agreed,) = winners
        sample = samples[j.sample_id]
        rows.append({
            "sample_id": j.sample_id, "family": j.family, "prompt": sample.prompt, "humans": agreed, "n_humans": len(people),
            "model": j.winner, "inconsistent": j.inconsistent, "severity": 2 if TIE not in (agreed, j.winner) else 1,
            "model_tags": list(j.tags), "human_tags": sorted({t for h in people for t in h.tags}), "note": j.record.get("note"),
            "clips": {sample.system_a: sample.clip_a, sample.system_b: sample.clip_b},
        })
    return sorted(rows, key=lambda r: (-r["severity"], r["sample_id"]))


def model_report(model: str, pairs: Sequence[Judgement], samples: Mapping[str, Sample], protocol: Protocol, first_n: int,
                 kw: Mapping[str, Any]) -> ModelRater:
    """Everything the report says about one model rater."""
    mine = [j for j in pairs if j.rater == model]
    humans = [j for j in pairs if j.rater_kind == "human"]
    design = an.design_records(humans, first_n)
    winner = an.winner_code
    row = lambda records, label, cats, tie: compare(model, records, humans, design, label, cats, tie, kw)  # noqa: E731
    families = sorted({j.family for j in mine})
    dims = [d for d in protocol.dimensions if any(d.id in r for j in mine for r in j.ratings.values())]
    tags = [t for t in protocol.tags.values()
            if any(t.id in j.tags for j in [*mine, *humans] if j.sample_id in {m.sample_id for m in mine})]
    return {
        **an.agreement_with_majority([*humans, *mine], model, **kw).as_dict(),
        "samples": len(mine),
        "position": position(mine),
        "winner": {"all": row(mine, winner, an.WINNER_CATEGORIES, TIE),
                   "by_family": {f: row([j for j in mine if j.family == f], winner, an.WINNER_CATEGORIES, TIE)
                                 for f in families}},
        "dimensions": {d.id: {"label": d.label, **row(mine, preference(d.id), PREFERENCE_CATEGORIES, SAME)} for d in dims},
        "tags": [{"tag": t.id, "label": t.label, "used_by_model": sum(t.id in j.tags for j in mine),
                  **row(mine, tag_used(t.id), (False, True), None), **_specific(model, mine, design, t.id)} for t in tags],
        "unanimous_disagreements": unanimous_disagreements(mine, humans, samples),
    }


def _specific(model: str, mine: Sequence[Judgement], design: Sequence[Judgement], tag: str) -> SpecificPair:
    """Positive specific agreement on a tag: model–human pairs beside human–human pairs, same samples."""
    judged = {j.sample_id for j in mine}
    people = [j for j in design if j.sample_id in judged]
    cross: dict[tuple[str, str], dict[str, bool]] = {}
    for h in people:
        for m in mine:
            if m.sample_id == h.sample_id:
                cross[(h.sample_id, h.rater)] = {model: tag in m.tags, h.rater: tag in h.tags}
    human = {u: r for u, r in an.tag_presence(people, tag).items() if len(r) >= 2}
    return {"specific_model_human": ag.specific_agreement(cross)["agreement"],
            "specific_human_human": ag.specific_agreement(human)["agreement"]}


def model_raters(records: Sequence[Judgement], samples: Sequence[Sample], protocol: Protocol, first_n: int,
                 kw: Mapping[str, Any]) -> list[ModelRater]:
    """The report section for every model rater in the records (pair samples only; gold left out)."""
    pairs = an.pair_records(records, samples, kind=None)
    by_id = {s.sample_id: s for s in samples}
    models = sorted({j.rater for j in pairs if j.rater_kind == "model"})
    return [model_report(m, pairs, by_id, protocol, first_n, kw) for m in models]
