"""Term-level accuracy of the offline filmability judge on ``datasets/terms_labelled.yaml``.

Each labelled term is read the way the offline judge reads it (``term_concreteness`` in the
narration's domain, default options); "filmable" must match the label, and ``unknown`` counts as
not filmable (as in the judge's filmability points). Accuracy is printed for the train and the
held-out test split, and within each for software/general narrations and compound/single-word
terms.

Run: ``.venv/bin/python -m benchmarks.term_accuracy`` (``--errors train`` lists the train terms it
gets wrong with the reason; ``--errors test`` does the same for the held-out split, which is for
reporting, not for tuning; ``--threshold`` sweeps a concreteness threshold).
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

from reeljudge.filmability.judge_local import LocalJudgeOptions, read_terms

ROOT = Path(__file__).resolve().parents[1]
DATASET = ROOT / "datasets" / "terms_labelled.yaml"


def load_items(path: Path = DATASET) -> list[dict[str, Any]]:
    """One dict per labelled term: narration id, split, software flag, narration, term, label."""
    rows = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [
        {"id": n["id"], "split": n["split"], "software": n["software"], "narration": n["narration"], **t}
        for n in rows
        for t in n["terms"]
    ]


def judge_items(items: list[dict[str, Any]], options: LocalJudgeOptions) -> list[dict[str, Any]]:
    """Each item with the judge's reading: ``predicted`` (bool), ``status`` and ``why``."""
    by_narration: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for item in items:
        by_narration[item["narration"]].append(item)
    out = []
    for narration, group in by_narration.items():
        readings, _ = read_terms(narration, [i["term"] for i in group], options)
        for item, reading in zip(group, readings):
            out.append({**item, "predicted": reading.status == "filmable", "status": reading.status, "why": reading.why})
    return out


def accuracy_table(judged: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """(correct, total) per split and per split × narration kind and term kind."""
    table: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for item in judged:
        ok = item["predicted"] == item["filmable"]
        kind = "software" if item["software"] else "general"
        shape = "compound" if len(item["term"].split()) > 1 else "single"
        for key in (item["split"], f"{item['split']} {kind}", f"{item['split']} {shape}"):
            table[key][0] += ok
            table[key][1] += 1
    return {k: (v[0], v[1]) for k, v in sorted(table.items())}


def main() -> None:
    """Print accuracy per split and group; optionally the misjudged terms of one split."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--errors", choices=("train", "test"), help="list the misjudged terms of this split")
    parser.add_argument("--threshold", type=float, nargs="*", help="concreteness thresholds to compare")
    args = parser.parse_args()
    items = load_items()
    for threshold in args.threshold or [LocalJudgeOptions().concreteness_threshold]:
        judged = judge_items(items, LocalJudgeOptions(concreteness_threshold=threshold))
        print(f"concreteness threshold {threshold}: {len(items)} labelled terms")
        for key, (ok, total) in accuracy_table(judged).items():
            print(f"  {key:<18} {ok:>3}/{total:<3} = {ok / total:.3f}")
        if args.errors:
            for item in judged:
                if item["split"] == args.errors and item["predicted"] != item["filmable"]:
                    label = "filmable" if item["filmable"] else "not filmable"
                    print(f"  WRONG [{item['id']}] {item['term']!r}: labelled {label}, judged {item['status']}: {item['why']}")


if __name__ == "__main__":
    main()
