"""How far two people agree on the relevance set, and how far the offline judge agrees with each.

The train lists of ``datasets/relevance_labelled.yaml`` (author 1) were labelled a second time,
blind, by a second author (``datasets/relevance_second_labels.yaml``: shuffled, without author 1's
labels, from the rubric alone). Per pair of raters (author 1, author 2, the offline judge) on the
same lists: relevance exact and within one, Cohen's κ and Krippendorff's ordinal α for relevance
(``reeljudge.stats.agreement``), filmability exact, score band and pass/fail (0.8). The judge was
tuned on author 1's train labels, so "judge vs author 2" is the fairer view of it on these lists,
and "author 1 vs author 2" is what a target such as relevance exact ≥ 0.75 can be held against.

Run: ``.venv/bin/python -m benchmarks.relevance_labellers``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from benchmarks.relevance import DATASET, PASS_THRESHOLD, ROOT, judge_lists, load_lists
from reeljudge.stats.agreement import cohen_kappa, krippendorff_alpha

SECOND = ROOT / "datasets" / "relevance_second_labels.yaml"
FIELDS = ("relevance", "filmability", "variety", "score")


def load_second(path: Path = SECOND) -> dict[str, dict[str, Any]]:
    """Author 2's labels by ``narration/list`` id; ValueError when a list is labelled twice."""
    out: dict[str, dict[str, Any]] = {}
    for row in yaml.safe_load(path.read_text(encoding="utf-8")):
        key = f"{row['narration']}/{row['list']}"
        if key in out:
            raise ValueError(f"{key} is labelled twice in {path.name}")
        out[key] = {f: row[f] for f in FIELDS}
    return out


def raters(split: str = "train") -> dict[str, dict[str, dict[str, Any]]]:
    """Labels by list id for each rater: author 1, author 2 and the offline judge (default options)."""
    second = load_second()
    items = [i for i in load_lists(DATASET) if i["split"] == split and f"{i['narration_id']}/{i['id']}" in second]
    judged = judge_lists(items)
    first = {f"{i['narration_id']}/{i['id']}": {f: i[f] for f in FIELDS} for i in items}
    judge = {f"{j.narration_id}/{j.list_id}": {"relevance": j.breakdown.relevance, "filmability": j.breakdown.filmability,
                                               "variety": j.breakdown.variety, "score": j.score} for j in judged}
    return {"author 1": first, "author 2": {k: second[k] for k in first}, "offline judge": judge}


def pair_figures(a: dict[str, dict[str, Any]], b: dict[str, dict[str, Any]], names: tuple[str, str]) -> dict[str, Any]:
    """Agreement of two raters over the lists both labelled."""
    keys = sorted(set(a) & set(b))
    rel = {k: {names[0]: a[k]["relevance"], names[1]: b[k]["relevance"]} for k in keys}
    n = len(keys)

    def count(test: Any) -> tuple[int, int]:
        return sum(bool(test(a[k], b[k])) for k in keys), n

    return {
        "lists": n,
        "relevance_exact": count(lambda x, y: x["relevance"] == y["relevance"]),
        "relevance_within_one": count(lambda x, y: abs(x["relevance"] - y["relevance"]) <= 1),
        "relevance_kappa": cohen_kappa(rel, names[0], names[1], [0, 1, 2, 3], n_resamples=1000, seed=0).estimate,
        "relevance_alpha_ordinal": krippendorff_alpha(rel, "ordinal",
                                                      value_domain=[0, 1, 2, 3], n_resamples=200, seed=0).estimate,
        "filmability_exact": count(lambda x, y: x["filmability"] == y["filmability"]),
        "score_band": count(lambda x, y: abs(x["score"] - y["score"]) < 1e-9),
        "pass_fail": count(lambda x, y: (x["score"] >= PASS_THRESHOLD) == (y["score"] >= PASS_THRESHOLD)),
    }


def main() -> None:
    """Print the three pairs' agreement on the twice-labelled train lists."""
    by = raters()
    pairs = [("author 1", "author 2"), ("offline judge", "author 1"), ("offline judge", "author 2")]
    print(f"{'pair':<28} {'lists':>5} {'rel exact':>10} {'within 1':>9} {'κ':>6} {'α ord':>6} {'film':>6} "
          f"{'score':>6} {'pass':>6}")
    for x, y in pairs:
        f = pair_figures(by[x], by[y], (x, y))
        share = {k: v[0] / v[1] for k, v in f.items() if isinstance(v, tuple)}
        print(f"{x + ' vs ' + y:<28} {f['lists']:>5} {share['relevance_exact']:>10.3f} {share['relevance_within_one']:>9.3f} "
              f"{f['relevance_kappa']:>6.3f} {f['relevance_alpha_ordinal']:>6.3f} {share['filmability_exact']:>6.3f} "
              f"{share['score_band']:>6.3f} {share['pass_fail']:>6.3f}")


if __name__ == "__main__":
    main()
