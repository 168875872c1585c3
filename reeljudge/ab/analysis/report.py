"""The A/B report as data: agreement (raw and chance-corrected, per family, per dimension, per
tag), ratings that contradict the winner, top disagreements, gold accuracy, rankings, and model
raters against the human majority beside human–human agreement (``model_raters``).
``report_html.render`` turns it into a page. Model raters' records never enter the human sections.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any, Mapping, Sequence, TypedDict

from reeljudge.ab.analysis import analysis as an
from reeljudge.ab.analysis.analysis import ContradictionRow, Disagreement
from reeljudge.ab.analysis.model_raters import ModelRater, model_raters
from reeljudge.ab.study.assignment import GoldAccuracy, gold_accuracy
from reeljudge.ab.store.evidence import RaterEvidence, evidence_by_rater
from reeljudge.ab.store.protocol import Protocol
from reeljudge.ab.store.records import Judgement, as_judgements, now_iso
from reeljudge.ab.store.samples import Sample
from reeljudge.stats import agreement as ag
from reeljudge.stats.bootstrap import IntervalJSON
from reeljudge.stats.rankings import WinRateJSON, bradley_terry_intervals, win_rates


@dataclass(frozen=True)
class ReportOptions:
    """Report settings.

    Args:
        first_n: records per sample used for agreement (the fixed design; third raters excluded).
        n_resamples: bootstrap resamples for every interval.
        top: how many disagreements to list.
        min_shared: samples two raters must share for their Cohen's κ.
        seed: bootstrap seed (the same data and seed give the same intervals).
    """

    first_n: int = 2
    n_resamples: int = 1000
    top: int = 20
    min_shared: int = 3
    seed: int = 20261122


class Counts(TypedDict):
    """What the report counts: samples (pairs and gold), records, raters (people and models)."""

    pair_samples: int
    gold_samples: int
    judgements: int
    human_raters: int
    model_raters: int


class Design(TypedDict):
    """Which records agreement is computed on, and how many resamples every interval takes."""

    first_n: int
    records_used: int
    n_resamples: int
    note: str


class WinnerAgreement(TypedDict):
    """Agreement on the winner: samples rated twice or more, raw agreement of rater pairs, α and Fleiss' κ."""

    samples: int
    percent: ag.RateJSON
    krippendorff_alpha_nominal: IntervalJSON
    fleiss_kappa: IntervalJSON


class CohenPair(TypedDict):
    """Cohen's κ of two raters on the samples they share (``undefined``: why κ says nothing, or None)."""

    raters: list[str]
    shared: int
    kappa: IntervalJSON
    undefined: str | None


class DimensionAgreement(TypedDict):
    """Krippendorff's α (ordinal) of one rated dimension, over the clips rated twice or more."""

    label: str
    clips: int
    alpha_ordinal: IntervalJSON


class TagAgreement(ag.SpecificAgreementJSON):
    """Positive specific agreement on one reason tag, with how often it was used."""

    tag: str
    label: str
    used: int


class Agreement(TypedDict):
    """The people's agreement: on the winner (overall and per family), per rater pair, per dimension, per tag."""

    overall: WinnerAgreement
    by_family: dict[str, WinnerAgreement]
    cohen_kappa: list[CohenPair]
    dimensions: dict[str, DimensionAgreement]
    tags: list[TagAgreement]


class BradleyTerry(IntervalJSON):
    """One system's Bradley–Terry strength with its interval."""

    system: str


class Rankings(TypedDict):
    """One family's systems ranked: win rates (Wilson intervals) and Bradley–Terry strengths, strongest first."""

    comparisons: int
    win_rates: list[WinRateJSON]
    bradley_terry: list[BradleyTerry]


class Note(TypedDict):
    """A rater's note, with the verdict it came with."""

    record_id: str
    sample_id: str
    family: str
    rater: str
    winner: str
    primary_tag: str
    note: str


class ModelRow(ModelRater):
    """A model rater's section, with its gold accuracy (None when it answered no gold pair)."""

    gold: GoldAccuracy | None


class Report(TypedDict):
    """The A/B report: every number, JSON-ready (``report.json``, and ``report_html.render``'s input)."""

    generated_at: str
    protocol: str
    counts: Counts
    design: Design
    agreement: Agreement
    contradictions: list[ContradictionRow]
    disagreements: list[Disagreement]
    gold: dict[str, GoldAccuracy]
    rankings: dict[str, Rankings]
    models: list[ModelRow]
    notes: list[Note]
    watch_evidence: dict[str, RaterEvidence]


def build_report(records: Sequence[Any], samples: Sequence[Sample], protocol: Protocol,
                 options: ReportOptions = ReportOptions()) -> Report:
    """Every number of the report, JSON-ready."""
    everything = as_judgements(records)
    humans = an.pair_records(everything, samples)
    design = an.design_records(humans, options.first_n)
    by_id = {s.sample_id: s for s in samples}
    kw = {"n_resamples": options.n_resamples, "seed": options.seed}
    families = sorted({j.family for j in humans})
    return {
        "generated_at": now_iso(), "protocol": protocol.id,
        "counts": _counts(everything, samples),
        "design": {"first_n": options.first_n, "records_used": len(design), "n_resamples": options.n_resamples,
                   "note": "Agreement uses the first records of each pair sample "
                           "(third raters are called on disagreement only)."},
        "agreement": {
            "overall": _winner_agreement(design, kw),
            "by_family": {f: _winner_agreement([j for j in design if j.family == f], kw) for f in families},
            "cohen_kappa": _cohen_pairs(design, options, kw),
            "dimensions": _dimensions(design, protocol, kw),
            "tags": _tags(design, protocol),
        },
        "contradictions": an.contradictions(humans, protocol),
        "disagreements": an.disagreements(humans, by_id, protocol, options.top),
        "gold": gold_accuracy([j for j in everything if j.rater_kind == "human"], samples),
        "rankings": {f: _rankings([j for j in humans if j.family == f], kw) for f in families},
        "models": _models(everything, samples, protocol, options.first_n, kw),
        "notes": _notes(everything),
        "watch_evidence": evidence_by_rater(r.record for r in everything if r.rater_kind == "human"),
    }


def _counts(records: Sequence[Judgement], samples: Sequence[Sample]) -> Counts:
    raters = {(j.rater, j.rater_kind) for j in records}
    return {
        "pair_samples": sum(1 for s in samples if s.kind != "gold"), "gold_samples": sum(1 for s in samples if s.kind == "gold"),
        "judgements": len(records), "human_raters": sum(1 for _, k in raters if k == "human"),
        "model_raters": sum(1 for _, k in raters if k == "model"),
    }


def _winner_agreement(design: Sequence[Judgement], kw: dict[str, Any]) -> WinnerAgreement:
    labels = an.winner_labels(design)
    cats = list(an.WINNER_CATEGORIES)
    return {
        "samples": len(ag.multi_rated(labels)),
        "percent": ag.pairwise_agreement(labels, **kw).as_dict(),
        "krippendorff_alpha_nominal": ag.krippendorff_alpha(labels, "nominal", value_domain=cats, **kw).as_dict(),
        "fleiss_kappa": ag.fleiss_kappa(labels, cats, raters_per_unit=2, **kw).as_dict(),
    }


def _cohen_pairs(design: Sequence[Judgement], options: ReportOptions, kw: dict[str, Any]) -> list[CohenPair]:
    labels = an.winner_labels(design)
    raters = sorted({j.rater for j in design})
    out: list[CohenPair] = []
    for a, b in combinations(raters, 2):
        shared = sum(1 for u in labels.values() if a in u and b in u)
        if shared >= options.min_shared:
            kappa = ag.cohen_kappa(labels, a, b, list(an.WINNER_CATEGORIES), **kw).as_dict()
            out.append({"raters": [a, b], "shared": shared, "kappa": kappa, "undefined": _kappa_undefined(labels, a, b)})
    return out


def _kappa_undefined(labels: Mapping[Any, Mapping[str, str]], a: str, b: str) -> str | None:
    """Why Cohen's κ of two raters says nothing, or None: a rater who gives one verdict throughout leaves κ 0 or undefined by
    construction."""
    for rater in (a, b):
        verdicts = {u[rater] for u in labels.values() if a in u and b in u}
        if len(verdicts) == 1:
            return f"{rater} gave the same verdict on every shared sample, so κ cannot tell agreement from chance"
    return None


def _notes(records: Sequence[Judgement]) -> list[Note]:
    """Every record that carries a rater's note, with what the note is about."""
    return [{"record_id": j.record_id, "sample_id": j.sample_id, "family": j.family, "rater": j.rater, "winner": j.winner,
             "primary_tag": j.primary_tag, "note": j.record["note"]} for j in records if j.record.get("note")]


def _dimensions(design: Sequence[Judgement], protocol: Protocol, kw: dict[str, Any]) -> dict[str, DimensionAgreement]:
    out: dict[str, DimensionAgreement] = {}
    for dim in protocol.dimensions:
        labels = an.rating_labels(design, dim.id)
        if labels:
            out[dim.id] = {"label": dim.label, "clips": len(ag.multi_rated(labels)),
                           "alpha_ordinal": ag.krippendorff_alpha(labels, "ordinal",
                                                                  value_domain=[1, 2, 3, 4, 5], **kw).as_dict()}
    return out


def _tags(design: Sequence[Judgement], protocol: Protocol) -> list[TagAgreement]:
    out: list[TagAgreement] = []
    for tag in protocol.tags.values():
        used = sum(1 for j in design if tag.id in j.tags)
        if used:
            presence = {u: r for u, r in an.tag_presence(design, tag.id).items() if len(r) >= 2}
            out.append({"tag": tag.id, "label": tag.label, "used": used, **ag.specific_agreement(presence)})
    return sorted(out, key=lambda t: -t["used"])


def _rankings(records: Sequence[Judgement], kw: dict[str, Any]) -> Rankings:
    results = an.outcomes(records)
    bt = bradley_terry_intervals(results, n_resamples=kw["n_resamples"], seed=kw["seed"]) if results else {}
    return {
        "comparisons": len(results),
        "win_rates": [w.as_dict() for w in win_rates(results)],
        "bradley_terry": [{"system": s, **i.as_dict()} for s, i in sorted(bt.items(), key=lambda si: -si[1].estimate)],
    }


def _models(records: Sequence[Judgement], samples: Sequence[Sample], protocol: Protocol, first_n: int,
            kw: dict[str, Any]) -> list[ModelRow]:
    """Each model rater against the human majority, beside human–human agreement (``model_raters``), and its gold accuracy."""
    gold = gold_accuracy([j for j in records if j.rater_kind == "model"], samples)
    return [{**m, "gold": gold.get(m["rater"])} for m in model_raters(records, samples, protocol, first_n, kw)]
