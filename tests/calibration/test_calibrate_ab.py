"""``reeljudge calibrate`` against an A/B study (``reeljudge ab``): per-clip ratings and pairwise winners."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from reeljudge.ab.store.records import build_record
from reeljudge.ab.store.samples import make_sample
from reeljudge.ab.study.workspace import Workspace
from reeljudge.cli import main
from support.results_fixtures import RunSpec, make_results

DIMS = ("prompt_adherence", "temporal_consistency", "identity_consistency", "motion_physics")
WATCH = {"full_plays": {"A": 2, "B": 2}, "log": []}
N = 16


def sha(n: int) -> str:
    return f"{n:064x}"


def _quality() -> dict[str, float]:
    rng = np.random.default_rng(5)
    return {sha(n): float(rng.uniform(1, 5)) for n in range(1, 2 * N + 1)}


def _study(tmp_path, raters=("ann", "bob", "cat")):
    """Pair samples x vs y; each rater rates both clips near their quality and picks the better one."""
    quality = _quality()
    samples = [make_sample("text-to-video", f"prompt {i}", ("x", sha(2 * i + 1)), ("y", sha(2 * i + 2))) for i in range(N)]
    ws = Workspace(tmp_path / "study")
    ws.fix_protocol()
    ws.store.add_samples(samples, [])
    rng = np.random.default_rng(8)
    for sample in samples:
        for rater in raters:
            shown = {"A": "x", "B": "y"}
            rating = {s: int(np.clip(round(quality[sample.clip_of(shown[s])] + rng.normal(0, 0.6)), 1, 5)) for s in "AB"}
            winner = "tie" if rating["A"] == rating["B"] else max("AB", key=rating.get)
            form = {"winner": winner, "primary_tag": "missed_constraint" if winner != "tie" else "tie_both_good",
                    "secondary_tags": [], "ratings": {s: {d: rating[s] for d in DIMS} for s in "AB"}}
            ws.store.append_judgement(build_record(
                sample_id=sample.sample_id, family=sample.family, protocol="ab-v1", shown=shown,
                clips={s: sample.clip_of(shown[s]) for s in "AB"}, form=form, rater_id=rater, watch=WATCH))
    return ws, samples, quality


def _judge_csv(tmp_path, quality, noise=0.3):
    rng = np.random.default_rng(3)
    path = tmp_path / "judge.csv"
    path.write_text("item,score\n" + "".join(f"{clip},{q / 5 + rng.normal(0, noise / 5):.4f}\n" for clip, q in quality.items()))
    return path


def _run(tmp_path, *argv):
    out = tmp_path / "report.json"
    code = main(["calibrate", *map(str, argv), "--resamples", "200", "--json", str(out), "-q"])
    return code, (json.loads(out.read_text()) if out.exists() else None)


def test_per_clip_ratings_and_pairwise_winners_against_the_human_majority(tmp_path):
    ws, samples, quality = _study(tmp_path)
    judge = _judge_csv(tmp_path, quality)
    code, report = _run(tmp_path, judge, ws.root, "--dimension", "prompt_adherence")
    assert code == 0
    assert report["ab_dimension"] == "prompt_adherence" and report["raters"] == 3
    assert report["items"]["matched"] == 2 * N and set(report["rater_ceiling_spearman"]) == {"ann", "bob", "cat"}
    overall = report["results"]["score"][0]
    assert overall["group"] == "all" and overall["spearman"]["estimate"] > 0.6  # judge and raters follow the same quality

    # the pairwise agreement, recomputed by hand from the stored records
    judge_scores = {line.split(",")[0]: float(line.split(",")[1]) for line in judge.read_text().splitlines()[1:]}
    agree = units = 0
    for sample in samples:
        votes = Counter(r["winner"] for r in ws.store.judgements(sample_id=sample.sample_id))
        top = votes.most_common(2)
        if len(top) > 1 and top[0][1] == top[1][1]:
            continue  # no strict majority
        a, b = judge_scores[sample.clip_a], judge_scores[sample.clip_b]
        units += 1
        agree += (sample.system_a if a > b else sample.system_b) == top[0][0]
    pairwise = report["pairwise_vs_human_majority"]["score"]
    assert (pairwise["units"], pairwise["agree"]) == (units, agree)
    assert pairwise["samples_judged"] == N and pairwise["samples_without_judge_scores"] == 0
    assert pairwise["rate"]["low"] <= agree / units <= pairwise["rate"]["high"]


def test_promptfoo_results_name_clips_by_sha256(tmp_path, capsys):
    ws, samples, quality = _study(tmp_path)
    clips = list(quality)
    data = make_results(RunSpec(n_tests=len(clips), seed=1))
    for row, clip in zip(data["results"]["results"], clips):
        row["response"]["metadata"] = {"clip": {"sha256": clip}}
        row["namedScores"]["film_relevance"] = quality[clip] / 5
    results = tmp_path / "results.json"
    results.write_text(json.dumps(data))
    code, report = _run(tmp_path, results, ws.root, "--dimension", "prompt_adherence", "--metric", "film_relevance")
    assert code == 0 and report["items"]["matched"] == 2 * N
    assert report["pairwise_vs_human_majority"]["film_relevance"]["samples_judged"] == N
    data["results"]["results"][0]["response"]["metadata"] = {}
    results.write_text(json.dumps(data))
    assert main(["calibrate", str(results), str(ws.root), "--dimension", "prompt_adherence", "-q"]) == 2
    assert "names no clip (response.metadata.clip.sha256" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "raters", "message"),
    [
        ([], ("ann", "bob"), "choose one with --dimension (prompt_adherence, temporal_consistency"),
        (["--dimension", "adherence"], ("ann", "bob"),
         "--dimension 'adherence' is not a dimension of the study; did you mean 'prompt_adherence'?"),
        (["--dimension", "prompt_adherence"], ("ann",), "every item has ratings from a single rater (ann)"),
    ],
)
def test_bad_ab_input(tmp_path, capsys, extra, raters, message):
    ws, _, quality = _study(tmp_path, raters)
    assert main(["calibrate", str(_judge_csv(tmp_path, quality)), str(ws.root), *extra, "-q"]) == 2
    assert message in capsys.readouterr().err


def test_an_empty_study_and_a_dimension_without_a_study(tmp_path, capsys):
    ws = Workspace(tmp_path / "empty")
    ws.fix_protocol()
    judge = _judge_csv(tmp_path, _quality())
    assert main(["calibrate", str(judge), str(ws.root), "--dimension", "prompt_adherence", "-q"]) == 2
    assert "has no human judgements of pair samples yet" in capsys.readouterr().err
    ratings = tmp_path / "ratings.csv"
    ratings.write_text("item,rater,rating\n")
    assert main(["calibrate", str(judge), str(ratings), "--dimension", "prompt_adherence", "-q"]) == 2
    assert "--dimension is for an A/B study folder" in capsys.readouterr().err
