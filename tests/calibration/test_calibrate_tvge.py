"""``reeljudge calibrate`` reproduces the published TVGE correlations (T2VScore, Table 1).

Data: T2VScore's TVGE release as shipped in t2v_metrics (Apache-2.0), `datasets/calibration/tvge`.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from reeljudge.cli import main
from support.tvge import TVGE, write_inputs

# T2VScore (arXiv 2401.07781), Table 1, text alignment: Spearman / Kendall against human ratings
PUBLISHED = {"CLIP Score": (0.343, 0.236), "X-CLIP Score": (0.257, 0.175)}
# acc23 of the same data from t2v_metrics' own tau_optimization.py (commit 6ecb74f, which ports
# mt-metrics-eval's reference), run once outside the test suite: it takes ~40 s per metric there.
REFERENCE_ACC23 = {"CLIP Score": 0.5986582318349409, "X-CLIP Score": 0.5685940609865932}
SHA256 = {
    "t2vscore_alignment_score.json": "b65340b4f08a55ee1b336efb36ca82d439bba4791745cd8e80bb8d237fccd043",
    "t2vscore_results.csv": "f58f27125e45eed9ec37357e4ffdee48aff5345a7c56d8adbd8985cbc323a6a2",
}


def test_the_shipped_data_is_the_released_data():
    for name, digest in SHA256.items():
        assert hashlib.sha256((TVGE / name).read_bytes()).hexdigest() == digest
    assert (TVGE / "LICENSE").read_text().split()[:4] == ["Apache", "License", "Version", "2.0,"]


@pytest.mark.slow  # calibrates on the whole TVGE release
def test_published_spearman_and_kendall_are_reproduced_to_three_decimals(tmp_path):
    human, judge = write_inputs(tmp_path)
    out = tmp_path / "report.json"
    argv = ["calibrate", str(judge), str(human), "--metric", "CLIP Score", "--metric", "X-CLIP Score",
            "--ratings-are-means", "--resamples", "200", "--json", str(out), "-q"]
    assert main(argv) == 0
    report = json.loads(out.read_text())
    assert report["items"]["matched"] == 2543 and report["items"]["human_only"] == []
    for metric, (spearman, kendall) in PUBLISHED.items():
        overall = report["results"][metric][0]
        assert overall["group"] == "all" and overall["n"] == 2543
        assert round(overall["spearman"]["estimate"], 3) == spearman
        assert round(overall["kendall_tau_b"]["estimate"], 3) == kendall
        assert abs(overall["pairwise_accuracy"]["estimate"] - REFERENCE_ACC23[metric]) < 1e-12
        for name in ("pearson", "spearman", "kendall_tau_b", "pairwise_accuracy"):
            interval = overall[name]
            assert interval["low"] < interval["estimate"] < interval["high"]
            assert interval["high"] - interval["low"] < 0.1  # 2,543 items pin the estimate down
        families = {g["group"]: g for g in report["results"][metric][1:]}
        assert set(families) == {f"family={m}" for m in ("floor33", "gen2", "modelscope", "pika", "zeroscope")}
        assert sum(g["n"] for g in families.values()) == 2543
