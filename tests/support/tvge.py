"""The TVGE release (``datasets/calibration/tvge``) in ``reeljudge calibrate``'s input formats.

Item id ``<model>/<video_id>``, family = the text-to-video model. Human ratings become JSONL rows
with a ``ratings`` list; metric scores a CSV with one column per metric.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

TVGE = Path(__file__).resolve().parents[2] / "datasets" / "calibration" / "tvge"
METRICS = ("CLIP Score", "X-CLIP Score", "BLIP-BLEU", "T2VScore-A (GPT-4V)")


def write_inputs(folder: Path, source: Path = TVGE) -> tuple[Path, Path]:
    """Write ``human.jsonl`` and ``judge.csv`` into ``folder``; returns their paths."""
    ratings = json.loads((source / "t2vscore_alignment_score.json").read_text(encoding="utf-8"))
    with (source / "t2vscore_results.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    folder.mkdir(parents=True, exist_ok=True)
    human, judge = folder / "human.jsonl", folder / "judge.csv"
    with human.open("w", encoding="utf-8") as out:
        for video_id, entry in ratings.items():
            for model, values in entry["models"].items():
                if values:  # an empty list: the video was not rated
                    out.write(json.dumps({"item": f"{model}/{video_id}", "ratings": values, "family": model}) + "\n")
    with judge.open("w", encoding="utf-8", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=["item", "family", *METRICS])
        writer.writeheader()
        for row in rows:
            writer.writerow({"item": f"{row['model_name']}/{row['video_id']}", "family": row["model_name"],
                             **{m: row[m] for m in METRICS}})
    return human, judge
