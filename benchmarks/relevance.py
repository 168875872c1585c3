"""List-level agreement of the offline filmability judge with people, on ``datasets/relevance_labelled.yaml``.

Every labelled term list is judged offline (``judge_terms_locally``, default options) and compared
with its labels, per split (train: rules may be tuned on it; test: held out, only reported):

- relevance exact and within one (0–3);
- score band: the judge's table score equals the labelled score;
- pass/fail: both at or above 0.8, or both below (the filmability assertion's default threshold);
- pair order: for every two lists of one narration with different labelled scores, the judge
  scores the better one strictly higher (a tie is not an order);
- abstract at 0.8+: lists labelled mostly or all abstract (filmability 0) that the judge scores
  0.8 or above — must be none.

Run: ``.venv/bin/python -m benchmarks.relevance`` (``--errors train`` lists the train lists where the
judge disagrees, with its relevance reason; ``--errors test`` does the same for the held-out split,
for reporting only; ``--split train`` judges and prints the train split alone, so tuning never
shows held-out figures). ``--dataset datasets/relevance_second_author.yaml`` measures the judge on
the set a second author wrote and labelled (splits ``second-train``, which rules may be tuned on,
and ``second-test``, only reported).
:func:`held_out_shortfalls` is the quality gate the tests keep.

Section "off-topic" (issue 35, :mod:`benchmarks.relevance_off_topic`): lists about something else (the
labelled lists swapped to narrations of other domains, hand-written off-topic lists) must be read as
unrelated and fail, while related lists still pass; ``--no-off-topic`` leaves it out, ``--calibrate``
prints the train-split search of its list rule and the frontier of the rules compared.

Three answers (issue 47): the offline judge answers related, off-topic or unsure on each list; every split's
figures give the answers, the cascade's call share (the lists ``judge: auto`` with Gemini defers: the unsure
ones), pass/fail agreement on the lists it decides, and the lists labelled 0.8 or above that pass or are
deferred; the off-topic section adds off-topic lists decided as passing (target <= 1 %), related lists passing
or deferred (>= 95 %) and the keyless figures of ``unsure: fail`` and ``unsure: pass``.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

import yaml

from reeljudge.filmability.judge_local import LocalJudgeOptions, judge_terms_locally
from reeljudge.filmability.score_table import Breakdown, score_breakdown

ROOT = Path(__file__).resolve().parents[1]
DATASET = ROOT / "datasets" / "relevance_labelled.yaml"
PASS_THRESHOLD = 0.8
#: held-out targets of issue 20 (shares; abstract_at_pass is a count)
TARGETS = {"pass_fail": 0.95, "pair_order": 0.90, "relevance_exact": 0.75}


@dataclass(frozen=True)
class Judged:
    """One labelled list with the judge's breakdown and score."""

    narration_id: str
    list_id: str
    split: str
    narration: str
    terms: list[str]
    label: dict[str, Any]
    breakdown: Breakdown
    score: float
    answer: str = "related"  # the offline judge's answer on relatedness: related, off-topic or unsure (issue 47)


def load_lists(path: Path = DATASET) -> list[dict[str, Any]]:
    """One dict per labelled list; raises ValueError when a label's score disagrees with the table or a
    narration id is used twice."""
    rows = yaml.safe_load(path.read_text(encoding="utf-8"))
    ids = [n["id"] for n in rows]
    if twice := sorted({i for i in ids if ids.count(i) > 1}):
        raise ValueError(f"narration ids used twice: {', '.join(twice)} (pairs are grouped by narration id)")
    out = []
    for n in rows:
        for lst in n["lists"]:
            table = score_breakdown(Breakdown(lst["relevance"], lst["filmability"], lst["variety"])).score
            if abs(table - lst["score"]) > 1e-9:
                raise ValueError(f"{n['id']}/{lst['id']}: labelled score {lst['score']} but the table gives {table}")
            out.append({"narration_id": n["id"], "split": n["split"], "domain": n["domain"],
                        "narration": n["narration"], **lst})
    return out


def judge_lists(items: list[dict[str, Any]], options: LocalJudgeOptions | None = None) -> list[Judged]:
    """Each labelled list judged offline."""
    out = []
    for item in items:
        local = judge_terms_locally(item["narration"], list(item["terms"]), options=options)
        bd = local.breakdown
        label = {k: item[k] for k in ("relevance", "filmability", "variety", "score")}
        answer = str((local.details.get("relevance_list") or {}).get("answer", "related"))
        out.append(Judged(item["narration_id"], item["id"], item["split"], item["narration"], list(item["terms"]),
                          label, bd, score_breakdown(bd).score, answer))
    return out


def _pairs(judged: list[Judged]) -> list[tuple[Judged, Judged]]:
    """(better, worse) for every two lists of one narration whose labelled scores differ."""
    by_narration: dict[str, list[Judged]] = defaultdict(list)
    for j in judged:
        by_narration[j.narration_id].append(j)
    pairs = []
    for group in by_narration.values():
        for a, b in combinations(group, 2):
            if a.label["score"] != b.label["score"]:
                pairs.append((a, b) if a.label["score"] > b.label["score"] else (b, a))
    return pairs


def split_metrics(judged: list[Judged]) -> dict[str, dict[str, Any]]:
    """Agreement figures per split: shares with counts, and the abstract lists at 0.8 or above."""
    out: dict[str, dict[str, Any]] = {}
    for split in sorted({j.split for j in judged}):
        part = [j for j in judged if j.split == split]
        pairs = _pairs(part)
        abstract = [j for j in part if j.label["filmability"] == 0]
        counts = {
            "relevance_exact": sum(j.breakdown.relevance == j.label["relevance"] for j in part),
            "relevance_within_one": sum(abs(j.breakdown.relevance - j.label["relevance"]) <= 1 for j in part),
            "score_band": sum(abs(j.score - j.label["score"]) < 1e-9 for j in part),
            "pass_fail": sum((j.score >= PASS_THRESHOLD) == (j.label["score"] >= PASS_THRESHOLD) for j in part),
        }
        metrics: dict[str, Any] = {k: (v, len(part)) for k, v in counts.items()}
        metrics["pair_order"] = (sum(b.score > w.score for b, w in pairs), len(pairs))
        metrics["abstract_at_pass"] = [f"{j.narration_id}/{j.list_id}" for j in abstract if j.score >= PASS_THRESHOLD]
        metrics["abstract_lists"] = len(abstract)
        metrics["answers"] = {a: sum(j.answer == a for j in part) for a in ("related", "off-topic", "unsure")}
        decided = [j for j in part if j.answer != "unsure"]
        metrics["decided_pass_fail"] = (sum(_passes(j) == (j.label["score"] >= PASS_THRESHOLD) for j in decided), len(decided))
        should = [j for j in part if j.label["score"] >= PASS_THRESHOLD and j.label["relevance"] >= 1]
        metrics["related_pass_or_deferred"] = (sum(j.answer == "unsure" or _passes(j) for j in should), len(should))
        out[split] = metrics
    return out


def _passes(j: Judged) -> bool:
    """The assertion's verdict at its defaults when the offline judge decides (threshold 0.8, min_relevance 1)."""
    return j.score >= PASS_THRESHOLD and j.breakdown.relevance >= 1 and j.answer != "unsure"


def relevance_confusion(judged: list[Judged], split: str) -> list[list[int]]:
    """Counts of (labelled relevance, judged relevance) in one split: rows labelled 0–3, columns judged 0–3."""
    table = [[0] * 4 for _ in range(4)]
    for j in judged:
        if j.split == split:
            table[j.label["relevance"]][j.breakdown.relevance] += 1
    return table


def held_out_shortfalls(metrics: dict[str, dict[str, Any]]) -> list[str]:
    """The issue's held-out targets that the ``test`` split misses (empty when all are met)."""
    test = metrics["test"]
    misses = []
    for name, target in TARGETS.items():
        ok, total = test[name]
        if total == 0 or ok / total < target:
            misses.append(f"{name} {ok}/{total} below {target:.0%}")
    if test["abstract_at_pass"]:
        misses.append("mostly-abstract lists at 0.8 or above: " + ", ".join(test["abstract_at_pass"]))
    return misses


def _errors(judged: list[Judged], split: str) -> None:
    """Print the lists of one split where the judge disagrees with the labels."""
    for j in judged:
        b, lab = j.breakdown, j.label
        got = (b.relevance, b.filmability, b.variety, j.score)
        want = (lab["relevance"], lab["filmability"], lab["variety"], lab["score"])
        if j.split == split and got != want:
            print(f"  [{j.narration_id}/{j.list_id}] labelled {want}, judged {got}")
            print(f"    relevance: {b.criterion_reasons.get('relevance', '')}")
            if got[1] != want[1]:
                print(f"    filmability: {b.criterion_reasons.get('filmability', '')}")


def main() -> None:
    """Print the agreement figures per split; optionally the disagreements of one split."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--errors", metavar="SPLIT",
                        help="list the disagreements of this split (train, test, second-train, second-test)")
    parser.add_argument("--split", metavar="SPLIT", help="judge and report this split only (tuning: train)")
    parser.add_argument("--dataset", type=Path, default=DATASET, help="the labelled lists (default: %(default)s)")
    parser.add_argument("--no-off-topic", action="store_true", help="leave out the off-topic section (issue 35)")
    parser.add_argument("--calibrate", action="store_true",
                        help="off-topic section: search the list rule on train and print the frontier")
    args = parser.parse_args()
    judged = judge_lists([i for i in load_lists(args.dataset) if args.split in (None, i["split"])])
    metrics = split_metrics(judged)
    for split, m in metrics.items():
        print(f"{split}: {m['score_band'][1]} lists, {m['pair_order'][1]} pairs")
        for name in ("relevance_exact", "relevance_within_one", "score_band", "pass_fail", "pair_order"):
            ok, total = m[name]
            print(f"  {name:<21} {ok:>3}/{total:<3} = {ok / total if total else 0:.3f}")
        print(f"  abstract at 0.8+      {len(m['abstract_at_pass'])}/{m['abstract_lists']}"
              + (f": {', '.join(m['abstract_at_pass'])}" if m["abstract_at_pass"] else ""))
        a = m["answers"]
        ok, total = m["decided_pass_fail"]
        kept, should = m["related_pass_or_deferred"]
        n = m["score_band"][1]
        print(f"  three answers: related {a['related']}, off-topic {a['off-topic']}, unsure {a['unsure']}; the cascade "
              f"defers {a['unsure']}/{n} = {a['unsure'] / n if n else 0:.3f} to Gemini; pass/fail on decided lists "
              f"{ok}/{total}; lists labelled 0.8+ passing or deferred {kept}/{should}")
        rows = relevance_confusion(judged, split)
        print("  relevance labelled→judged 0..3: " + "  ".join(f"{i}:{row}" for i, row in enumerate(rows)))
    if "test" in metrics:
        misses = held_out_shortfalls(metrics)
        print("held-out targets: " + ("all met" if not misses else "; ".join(misses)))
    if args.errors:
        _errors(judged, args.errors)
    if not args.no_off_topic and args.dataset == DATASET:
        from benchmarks.relevance_off_topic import off_topic_section

        off_topic_section(args.split, args.calibrate, args.errors)


if __name__ == "__main__":
    main()
