"""Off-topic lists and the offline judge (issue 35): does it read a list about something else as
unrelated (relevance 0) and fail it, while lists that are related still pass?

Judged on the cases of :mod:`benchmarks.off_topic_set` (swapped lists, hand-written off-topic lists,
near misses, and the labelled on-topic lists), per split:

- **off-topic false passes**: swapped and hand-written off-topic lists that pass (table score >= 0.8
  and relevance >= ``min_relevance`` 1, the assertion's defaults); target <= 1 % on the test split;
- **off-topic read as 0**: target >= 95 %;
- **related lists that still pass**: on-topic lists labelled 0.8 or above (the labelled sets; the new
  narrations' concrete lists) that pass; target >= 95 %; near misses read as related (>= 1);
- **term AUC**: ROC AUC of the term-level evidence (minus the background rank) between the terms of
  on-topic lists (relevance >= 2) in their own narration and the same terms in swapped narrations;
  **list AUC**: the same for the list-level evidence (minus the list rank) between related lists and
  off-topic lists.

:func:`calibrate` re-reads every judged list under other list-rule parameters from its stored
evidence (no re-embedding) and picks those of least cost on the train split, with the cost of
:data:`COSTS` (docs/decisions.md, issue 35); :func:`frontier` prints the rules compared there (issue
35's per-term rule among them) on both splits. Run: ``.venv/bin/python -m benchmarks.relevance_off_topic``
(``--calibrate`` prints the train-split search; ``--errors SPLIT`` lists the off-topic lists that pass
and the related lists that fail).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Sequence, cast

from benchmarks.off_topic_set import Case, build_cases
from reeljudge.filmability.judge_local import LocalJudgeOptions, judge_terms_locally
from reeljudge.filmability.score_table import RELATED, UNSURE, Breakdown, score_breakdown

if TYPE_CHECKING:
    from reeljudge.filmability.relevance import RelevanceThresholds

PASS_THRESHOLD = 0.8
MIN_RELEVANCE = 1
#: issue 35's test-split targets (shares)
TARGETS = {"off_topic_pass": 0.01, "off_topic_zero": 0.95, "related_pass": 0.95}
#: the asymmetric cost the thresholds are calibrated with: an off-topic list that passes costs far more
#: than a related list that fails, which costs more than a one-level miss of relevance
COSTS = {"off_topic_pass": 10.0, "related_fail": 2.0, "level_miss": 1.0}
#: the list-rule parameters searched: ``list_rank_joined_weight``, ``max_list_rank`` (1000: no evidence asked, the
#: reading before issue 35), ``max_second_term_rank`` (1000: no cap)
GRID = {"list_rank_joined_weight": (0.4, 0.5, 0.6, 0.7),
        "max_list_rank": (6.0, 8.0, 10.0, 12.0, 13.0, 14.0, 16.0, 20.0, 30.0, 1000.0),
        "max_second_term_rank": (12, 16, 20, 25, 1000)}


@dataclass(frozen=True)
class JudgedCase:
    """A case with the judge's breakdown and the per-term evidence (to re-read under other thresholds)."""

    case: Case
    breakdown: Breakdown
    terms: tuple[dict[str, Any], ...]  # per term: margin_level, background_rank, topic, filmable
    software: bool
    evidence: dict[str, Any]  # the list-level evidence (``details.relevance_list``)


def judge_cases(cases: Sequence[Case], options: LocalJudgeOptions | None = None) -> list[JudgedCase]:
    """Every case judged offline (the background vectors load once per process)."""
    out = []
    for case in cases:
        local = judge_terms_locally(case.narration, list(case.terms), options=options)
        status = {t["term"]: t["status"] for t in local.details["terms"]}
        terms = tuple({"margin_level": r["margin_level"], "rank": r["background_rank"], "gloss": r["topic"],
                       "filmable": status.get(r["term"]) == "filmable"} for r in local.details.get("relevance", []))
        out.append(JudgedCase(case, local.breakdown, terms, bool(local.details.get("software_narration")),
                              dict(local.details.get("relevance_list", {}))))
    return out


def _thresholds(o: LocalJudgeOptions) -> RelevanceThresholds:
    """``o`` as the relevance rules' thresholds: it has every one, read-only (a frozen dataclass), where the protocol
    declares them as plain attributes, which mypy takes for settable."""
    return cast("RelevanceThresholds", o)


def _term_readings(j: JudgedCase, o: LocalJudgeOptions, max_term_rank: int | None = None) -> list[Any]:
    """The case's term readings rebuilt from its evidence (``max_term_rank``: issue 35's first, per-term rule, which
    read a term fitted better by more background narrations as 0; kept to compare with)."""
    from reeljudge.filmability.relevance import TermRelevance, _gloss_level

    readings = []
    for t in j.terms:
        level = t["margin_level"] if max_term_rank is None or t["rank"] <= max_term_rank else 0
        if j.software:
            level = max(level, _gloss_level(t["gloss"], _thresholds(o)))
        level = level if t["filmable"] else min(level, o.abstract_relevance_cap)
        readings.append(TermRelevance("", level, "", 0.0, 0.0, 0.0, None, 0.0, 0.0, t["gloss"] if j.software else 0.0, "",
                                      t["rank"], margin_level=t["margin_level"]))
    return readings


def reread(j: JudgedCase, o: LocalJudgeOptions) -> Breakdown:
    """The case's breakdown with its relevance re-read under ``o``'s list-rule parameters."""
    return reread_answer(j, o)[0]


def reread_answer(j: JudgedCase, o: LocalJudgeOptions) -> tuple[Breakdown, str]:
    """The case's breakdown re-read under ``o``'s list-rule parameters, and the offline judge's answer (related,
    off-topic, unsure: issue 47)."""
    from reeljudge.filmability.relevance import BackgroundEvidence, list_answer, list_evidence, list_level

    if not j.terms or not j.evidence:
        return j.breakdown, RELATED
    readings = _term_readings(j, o)
    e = j.evidence
    evidence = list_evidence(readings, BackgroundEvidence([t["rank"] for t in j.terms], e["background_size"], [],
                                                          e["joined_rank"], e["mean_rank"]), _thresholds(o))
    return (replace(j.breakdown, relevance=list_level(readings, evidence, _thresholds(o))),
            list_answer(evidence, _thresholds(o)))


def reread_per_term(j: JudgedCase, o: LocalJudgeOptions, max_term_rank: int) -> Breakdown:
    """The case's breakdown under issue 35's first rule: a term fitted better by more than ``max_term_rank``
    background narrations reads 0, and the list's level comes from its terms (for the frontier only)."""
    from reeljudge.filmability.relevance import topic_level

    if not j.terms:
        return j.breakdown
    return replace(j.breakdown, relevance=topic_level(_term_readings(j, o, max_term_rank)))


def passes(b: Breakdown) -> bool:
    """The filmability assertion's verdict at its defaults (threshold 0.8, min_relevance 1)."""
    return score_breakdown(b).score >= PASS_THRESHOLD and b.relevance >= MIN_RELEVANCE


def _related_should_pass(c: Case) -> bool:
    """A related list a person scores 0.8 or above (the new narrations' concrete lists: 3/3/1)."""
    return c.kind == "on-topic" and c.relevance >= 1 and (c.label_score is None or c.label_score >= PASS_THRESHOLD)


def metrics(judged: Sequence[JudgedCase], split: str, bds: Sequence[Breakdown] | None = None) -> dict[str, Any]:
    """The section's figures for one split (``bds``: breakdowns to use instead of the judged ones; a list the offline
    judge is unsure about counts by its reading, as ``unsure: pass`` scores it)."""
    rows = [(j, b) for j, b in zip(judged, bds if bds is not None else [j.breakdown for j in judged]) if j.case.split == split]
    off = [(j, b) for j, b in rows if j.case.kind in ("swap", "off-topic")]
    related = [(j, b) for j, b in rows if _related_should_pass(j.case)]
    near = [(j, b) for j, b in rows if j.case.kind == "near-miss"]
    return {
        "off_topic": len(off), "swapped": sum(j.case.kind == "swap" for j, _ in off),
        "off_topic_pass": sum(passes(b) for _, b in off), "off_topic_zero": sum(b.relevance == 0 for _, b in off),
        "related": len(related), "related_pass": sum(passes(b) for _, b in related),
        "near": len(near), "near_related": sum(b.relevance >= 1 for _, b in near), "near_pass": sum(passes(b) for _, b in near),
        "level_misses": sum(abs(b.relevance - j.case.relevance) for j, b in rows if j.case.kind != "swap"),
    }


#: issue 47's targets for the three answers (each split): off-topic lists the offline judge decides as passing, and
#: related lists that pass or are deferred (unsure: Gemini's in the cascade)
ANSWER_TARGETS = {"off_topic_decided_pass": 0.01, "related_pass_or_deferred": 0.95}
#: what one deferred list costs in the band's calibration (issue 47): a Gemini call in the cascade, a failure that says
#: why without a key; half a one-level miss
COST_DEFER = 0.5
#: the band edges searched: ``related_list_rank`` (at or below: related) and ``off_topic_list_rank`` (above: off-topic)
BAND_GRID = {"related_list_rank": (0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 13.0),
             "off_topic_list_rank": (13.0, 16.0, 20.0, 25.0, 30.0, 40.0, 60.0, 100.0)}


def answer_metrics(judged: Sequence[JudgedCase], split: str, o: LocalJudgeOptions | None = None) -> dict[str, Any]:
    """The three answers' figures for one split under ``o`` (default options): per kind the lists decided related,
    off-topic and unsure; the off-topic lists decided as passing; the related lists passing (decided), deferred
    (unsure) and failing; keyless (unsure: fail / unsure: pass) passes; the share of lists deferred."""
    o = o or LocalJudgeOptions()
    rows = [(j, *reread_answer(j, o)) for j in judged if j.case.split == split]
    off = [(b, a) for j, b, a in rows if j.case.kind in ("swap", "off-topic")]
    related = [(b, a) for j, b, a in rows if _related_should_pass(j.case)]
    return {
        "lists": len(rows), "deferred": sum(a == UNSURE for _, _, a in rows),
        "off_topic": len(off), "off_answers": _answers(off),
        "off_topic_decided_pass": sum(a == RELATED and passes(b) for b, a in off),
        "off_topic_band_pass": sum(a == UNSURE and passes(b) for b, a in off),
        "related": len(related), "related_answers": _answers(related),
        "related_decided_pass": sum(a == RELATED and passes(b) for b, a in related),
        "related_deferred": sum(a == UNSURE for _, a in related),
        "related_band_pass": sum(a == UNSURE and passes(b) for b, a in related),
        "level_misses": sum(abs(b.relevance - j.case.relevance) for j, b, a in rows if j.case.kind != "swap" and a != UNSURE),
    }


def _answers(rows: Sequence[tuple[Breakdown, str]]) -> dict[str, int]:
    """How many lists got each answer."""
    return {name: sum(a == name for _, a in rows) for name in (RELATED, "off-topic", UNSURE)}


def answer_cost(m: dict[str, Any]) -> float:
    """The band's calibration cost: :data:`COSTS` on what the offline judge decides, :data:`COST_DEFER` per list
    deferred."""
    return (COSTS["off_topic_pass"] * m["off_topic_decided_pass"]
            + COSTS["related_fail"] * (m["related"] - m["related_decided_pass"] - m["related_deferred"])
            + COSTS["level_miss"] * m["level_misses"] + COST_DEFER * m["deferred"])


def answer_shortfalls(m: dict[str, Any]) -> list[str]:
    """Issue 47's targets one split's three-answer figures miss."""
    misses = []
    if m["off_topic"] and m["off_topic_decided_pass"] / m["off_topic"] > ANSWER_TARGETS["off_topic_decided_pass"]:
        misses.append(f"off-topic decided passes {m['off_topic_decided_pass']}/{m['off_topic']} above 1 %")
    kept = m["related_decided_pass"] + m["related_deferred"]
    if m["related"] and kept / m["related"] < ANSWER_TARGETS["related_pass_or_deferred"]:
        misses.append(f"related passing or deferred {kept}/{m['related']} below 95 %")
    return misses


def calibrate_band(judged: Sequence[JudgedCase],
                   base: LocalJudgeOptions | None = None) -> list[tuple[float, LocalJudgeOptions, dict[str, Any]]]:
    """Every band of :data:`BAND_GRID` (the list rule's other parameters as shipped) with its train cost, best first."""
    import itertools

    base = base or LocalJudgeOptions()
    out = []
    for low, high in itertools.product(*BAND_GRID.values()):
        if low > high:
            continue
        o = replace(base, related_list_rank=low, off_topic_list_rank=high)
        m = answer_metrics(judged, "train", o)
        out.append((answer_cost(m), o, m))
    return sorted(out, key=lambda x: (x[0], x[2]["deferred"]))


def answer_report(judged: Sequence[JudgedCase], splits: Sequence[str]) -> None:
    """Print the three answers' figures and the cascade's call share per split."""
    share = lambda a, b: f"{a}/{b} = {a / b if b else 0:.3f}"  # noqa: E731
    o = LocalJudgeOptions()
    print(f"three answers (related at list rank <= {o.related_list_rank:g}, off-topic above {o.off_topic_list_rank:g}, "
          "unsure between):")
    for split in splits:
        m = answer_metrics(judged, split, o)
        kept = m["related_decided_pass"] + m["related_deferred"]
        print(f"  {split}: off-topic lists {m['off_answers']}, related lists {m['related_answers']}")
        print(f"    off-topic decided as passing      {share(m['off_topic_decided_pass'], m['off_topic'])}")
        print(f"    related passing or deferred       {share(kept, m['related'])} (passing {m['related_decided_pass']}, "
              f"deferred {m['related_deferred']})")
        print(f"    cascade: lists deferred to Gemini {share(m['deferred'], m['lists'])}")
        print(f"    keyless, unsure: fail (default)   off-topic pass {share(m['off_topic_decided_pass'], m['off_topic'])}, "
              f"related pass {share(m['related_decided_pass'], m['related'])}")
        print(f"    keyless, unsure: pass             off-topic pass "
              f"{share(m['off_topic_decided_pass'] + m['off_topic_band_pass'], m['off_topic'])}, related pass "
              f"{share(m['related_decided_pass'] + m['related_band_pass'], m['related'])}")
        misses = answer_shortfalls(m)
        print(f"    targets: {'all met' if not misses else '; '.join(misses)}")


def cost(m: dict[str, Any]) -> float:
    """The calibration cost of one split's figures (:data:`COSTS`)."""
    return (COSTS["off_topic_pass"] * m["off_topic_pass"] + COSTS["related_fail"] * (m["related"] - m["related_pass"])
            + COSTS["level_miss"] * m["level_misses"])


def calibrate(judged: Sequence[JudgedCase],
              base: LocalJudgeOptions | None = None) -> list[tuple[float, LocalJudgeOptions, dict[str, Any]]]:
    """Every parameter set of :data:`GRID` with its train cost, best first (ties: the stricter list rank)."""
    import itertools

    base = base or LocalJudgeOptions()
    out = []
    for values in itertools.product(*GRID.values()):
        changes: dict[str, Any] = dict(zip(GRID, values))
        o = replace(base, **changes)
        m = metrics(judged, "train", [reread(j, o) for j in judged])
        out.append((cost(m), o, m))
    return sorted(out, key=lambda x: (x[0], x[1].max_list_rank, -x[1].max_second_term_rank))


#: the rules the frontier compares: issue 35's first rule (per term) at thresholds, and the list rule at list ranks
FRONTIER_TERM_RANKS = (15, 40)
FRONTIER_LIST_RANKS = (8.0, 10.0, 13.0, 16.0, 20.0, 30.0)


def frontier(judged: Sequence[JudgedCase], base: LocalJudgeOptions | None = None) -> list[tuple[str, str, dict[str, Any]]]:
    """(rule, split, figures) for the rules compared in docs/decisions.md: before issue 35, the per-term rule, and the
    list rule at several list ranks (the shipped weights and second-term cap), on both splits."""
    base = base or LocalJudgeOptions()
    rules: list[tuple[str, Any]] = [("before issue 35 (no evidence)", lambda j: reread(j, replace(base, max_list_rank=1000.0,
                                                                                                   max_second_term_rank=1000)))]
    rules += [(f"per term: rank > {r} reads 0", lambda j, r=r: reread_per_term(j, base, r)) for r in FRONTIER_TERM_RANKS]
    rules += [(f"list: list rank > {t:g}", lambda j, t=t: reread(j, replace(base, max_list_rank=t))) for t in FRONTIER_LIST_RANKS]
    return [(name, split, {**metrics(judged, split, [rule(j) for j in judged])}) for name, rule in rules
            for split in ("train", "test")]


def term_auc(judged: Sequence[JudgedCase], split: str) -> tuple[float, int, int]:
    """ROC AUC of minus the background rank: own terms (on-topic lists, relevance >= 2) against swapped terms."""
    own = [-t["rank"] for j in judged if j.case.split == split and j.case.kind == "on-topic" and j.case.relevance >= 2
           for t in j.terms]
    swapped = [-t["rank"] for j in judged if j.case.split == split and j.case.kind == "swap" for t in j.terms]
    if not own or not swapped:
        return float("nan"), len(own), len(swapped)
    import numpy as np

    a, b = np.asarray(own, dtype=float), np.asarray(swapped, dtype=float)
    return _auc(a, b), len(a), len(b)


def _auc(a: Any, b: Any) -> float:
    """ROC AUC: the chance that a value of ``a`` exceeds one of ``b`` (ties count half)."""
    import numpy as np

    b = np.sort(b)
    wins = (np.searchsorted(b, a, side="left").sum()
            + 0.5 * (np.searchsorted(b, a, side="right") - np.searchsorted(b, a, side="left")).sum())
    return float(wins / (len(a) * len(b)))


def list_auc(judged: Sequence[JudgedCase], split: str) -> float:
    """ROC AUC of minus the list rank: related lists (labelled 0.8 or above) against off-topic lists."""
    import numpy as np

    related = [-j.evidence["list_rank"] for j in judged if j.case.split == split and _related_should_pass(j.case) and j.evidence]
    off = [-j.evidence["list_rank"] for j in judged if j.case.split == split
           and j.case.kind in ("swap", "off-topic") and j.evidence]
    return _auc(np.asarray(related, dtype=float), np.asarray(off, dtype=float)) if related and off else float("nan")


def shortfalls(m: dict[str, Any]) -> list[str]:
    """The targets one split's figures miss (empty when all are met)."""
    misses = []
    if m["off_topic"] and m["off_topic_pass"] / m["off_topic"] > TARGETS["off_topic_pass"]:
        misses.append(f"off-topic passes {m['off_topic_pass']}/{m['off_topic']} above {TARGETS['off_topic_pass']:.0%}")
    if m["off_topic"] and m["off_topic_zero"] / m["off_topic"] < TARGETS["off_topic_zero"]:
        misses.append(f"off-topic read as 0 {m['off_topic_zero']}/{m['off_topic']} below {TARGETS['off_topic_zero']:.0%}")
    if m["related"] and m["related_pass"] / m["related"] < TARGETS["related_pass"]:
        misses.append(f"related lists passing {m['related_pass']}/{m['related']} below {TARGETS['related_pass']:.0%}")
    return misses


def report(judged: Sequence[JudgedCase], splits: Sequence[str] = ("train", "test")) -> None:
    """Print the section's figures per split."""
    for split in splits:
        m = metrics(judged, split)
        auc, n_own, n_swap = term_auc(judged, split)
        share = lambda a, b: f"{a}/{b} = {a / b if b else 0:.3f}"  # noqa: E731
        print(f"off-topic {split}: {m['off_topic']} off-topic lists ({m['swapped']} swapped), {m['related']} related lists, "
              f"{m['near']} near misses (unsure lists counted by the offline reading, as unsure: pass scores them)")
        print(f"  off-topic false passes   {share(m['off_topic_pass'], m['off_topic'])}")
        print(f"  off-topic read as 0      {share(m['off_topic_zero'], m['off_topic'])}")
        print(f"  related lists that pass  {share(m['related_pass'], m['related'])}")
        print(f"  near misses read >= 1    {share(m['near_related'], m['near'])} (pass {m['near_pass']})")
        print(f"  term AUC own vs swapped  {auc:.3f} ({n_own} own terms, {n_swap} swapped)")
        print(f"  list AUC related vs off  {list_auc(judged, split):.3f}")
        misses = shortfalls(m)
        print(f"  targets: {'all met' if not misses else '; '.join(misses)}")


def _errors(judged: Sequence[JudgedCase], split: str) -> None:
    """Print the off-topic lists that pass and the related lists that fail, with the relevance reason."""
    for j in judged:
        c = j.case
        bad = (c.kind in ("swap", "off-topic") and passes(j.breakdown)) or (_related_should_pass(c) and not passes(j.breakdown))
        if c.split == split and bad:
            print(f"  [{c.kind}] {c.list_id} → {c.narration_id}: relevance {j.breakdown.relevance} (labelled {c.relevance})")
            print(f"    {j.breakdown.criterion_reasons.get('relevance', '')}")


def off_topic_section(split: str | None = None, search: bool = False, errors: str | None = None) -> None:
    """Judge the off-topic set and print its figures (optionally the calibration search and frontier, or the errors)."""
    cases = [c for c in build_cases() if split in (None, c.split)]
    judged = judge_cases(cases)
    report(judged, [split] if split else ("train", "test"))
    answer_report(judged, [split] if split else ("train", "test"))
    if search:
        print("  band search (train; cost: off-topic decided pass 10, related decided fail 2, level miss 1, deferred "
              f"{COST_DEFER:g}):")
        for total, o, m in calibrate_band([j for j in judged if j.case.split == "train"])[:12]:
            print(f"    cost {total:6.1f}: related <= {o.related_list_rank:g}, off-topic > {o.off_topic_list_rank:g} → off-topic "
                  f"decided pass {m['off_topic_decided_pass']}/{m['off_topic']}, related pass {m['related_decided_pass']} "
                  f"deferred {m['related_deferred']} of {m['related']}, deferred {m['deferred']}/{m['lists']}")
        for total, o, m in calibrate([j for j in judged if j.case.split == "train"])[:15]:
            print(f"  cost {total:6.1f}: joined weight {o.list_rank_joined_weight}, max_list_rank {o.max_list_rank:g}, "
                  f"max_second_term_rank {o.max_second_term_rank} → off-topic pass {m['off_topic_pass']}/{m['off_topic']}, "
                  f"related pass {m['related_pass']}/{m['related']}, level misses {m['level_misses']}")
        if split is None:
            print("  frontier (the rules compared; chosen on train cost only):")
            for name, part, m in frontier(judged):
                print(f"    {name:34s} {part:5s} off-topic pass {m['off_topic_pass']:3d}/{m['off_topic']} read 0 "
                      f"{m['off_topic_zero']:3d}, related pass {m['related_pass']:3d}/{m['related']}, near related "
                      f"{m['near_related']}/{m['near']}, level misses {m['level_misses']}, cost {cost(m):.0f}")
    if errors:
        _errors(judged, errors)


def main() -> None:
    """Command line of the section alone."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calibrate", action="store_true",
                        help="search the list rule on the train split, then print the frontier")
    parser.add_argument("--errors", metavar="SPLIT", help="list the off-topic passes and related failures of this split")
    parser.add_argument("--split", metavar="SPLIT", help="judge this split only (tuning: train)")
    args = parser.parse_args()
    off_topic_section(args.split, args.calibrate, args.errors)


if __name__ == "__main__":
    main()
