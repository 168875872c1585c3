"""``reeljudge calibrate`` with DSG's released files reproduces DSG's Table 3 "PaLI + DSG" row, and
``score_with_dependencies`` applies DSG's rule to hand-made question graphs.

Data: DSG's TIFA160 answers, question graphs and Likert ratings (Apache-2.0), `datasets/calibration/dsg_tifa160`.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from reeljudge.cli import main
from reeljudge.gecko import score_with_dependencies
from reeljudge.gecko.dependencies import direct_parents_score, failed_ancestors
from support.paths import ROOT

DSG = ROOT / "datasets" / "calibration" / "dsg_tifa160"
SHA256 = {
    "pali17b_dsg.csv": "17cf3009c573c0a84f201e3bdd7884eb248f2ffbb159fe3eca7b5e9c55f8cef4",
    "dsg-1k-anns.csv": "6c797314a54401564db7f77419df89816de16d8c494cf3ceb6b6ed8e6d14aa20",
    "tifa160-likert-anns.csv": "61c9ff41b9f9fc26a44bbaf5540caeb67c09a9e3039536567f3e45d40ad0e9f8",
}
# DSG (ICLR 2024) Table 3, PaLI-17B + DSG questions, against TIFA160 human Likert: Spearman / Kendall
PUBLISHED = (0.571, 0.458)
# the same data under our transitive rule (a grandchild of a wrong question scores 0 too)
TRANSITIVE = (0.568, 0.456)


def test_the_shipped_data_is_the_released_data():
    for name, digest in SHA256.items():
        assert hashlib.sha256((DSG / name).read_bytes()).hexdigest() == digest
    assert (DSG / "LICENSE").read_text().split()[:4] == ["Apache", "License", "Version", "2.0,"]


def _calibrate(tmp_path: Path, rule: str) -> dict:
    out = tmp_path / f"{rule}.json"
    argv = ["calibrate", str(DSG / "pali17b_dsg.csv"), str(DSG / "tifa160-likert-anns.csv"),
            "--dependencies", str(DSG / "dsg-1k-anns.csv"), "--dsg-rule", rule, "--resamples", "100", "--json", str(out), "-q"]
    assert main(argv) == 0
    return json.loads(out.read_text())


@pytest.mark.parametrize("rule, expected", [("released", PUBLISHED), ("transitive", TRANSITIVE)])
def test_dsg_table3_pali_row_through_calibrate(tmp_path, rule, expected):
    report = _calibrate(tmp_path, rule)
    assert report["items"]["matched"] == 800 and report["items"]["human_only"] == [] and report["raters"] == 5
    overall = report["results"]["score"][0]
    assert overall["group"] == "all" and overall["n"] == 800
    assert (round(overall["spearman"]["estimate"], 3), round(overall["kendall_tau_b"]["estimate"], 3)) == expected


def test_an_unanswered_prompt_scores_zero_and_a_foreign_file_is_refused(tmp_path, capsys):
    from reeljudge.calibration.dsg_source import read_dsg_answers

    scores = read_dsg_answers(DSG / "pali17b_dsg.csv", DSG / "dsg-1k-anns.csv")
    assert scores.items["sd2dot1/tifa160_134"].scores["score"] == 0.0  # no answers in the release
    plain = tmp_path / "judge.csv"
    plain.write_text("item,score\na,1\nb,0\n")
    assert (main(["calibrate", str(plain), str(DSG / "tifa160-likert-anns.csv"), "--dependencies",
                  str(DSG / "dsg-1k-anns.csv")]) == 2)
    assert "--dependencies is for a DSG answer file" in capsys.readouterr().err


def test_rule_on_a_chain():
    correct = {1: True, 2: False, 3: True, 4: True}
    parents = {2: [1], 3: [2], 4: [3]}
    assert failed_ancestors(correct, parents) == {3: 2, 4: 3}  # the grandchild names its own (zeroed) parent
    assert score_with_dependencies(correct, parents) == 1 / 4
    assert direct_parents_score(correct, parents) == 2 / 4  # DSG's script: only direct parents' answers


def test_rule_on_a_diamond():
    parents = {2: [1], 3: [1], 4: [2, 3]}
    assert score_with_dependencies({1: True, 2: True, 3: False, 4: True}, parents) == 2 / 4
    assert failed_ancestors({1: True, 2: True, 3: False, 4: True}, parents) == {4: 3}
    assert score_with_dependencies({1: False, 2: True, 3: True, 4: True}, parents) == 0.0
    assert score_with_dependencies({1: True, 2: True, 3: True, 4: True}, parents) == 1.0


def test_absent_and_zero_parents_are_ignored_and_the_denominator_keeps_zeroed_children():
    assert score_with_dependencies({1: True, 2: True}, {1: [0], 2: [7]}) == 1.0  # 7 is not a question here
    assert score_with_dependencies({1: False, 2: True, 3: True}, {2: [1], 3: [0, 9]}) == 1 / 3
    assert score_with_dependencies({5: True}, {}) == 1.0
    assert score_with_dependencies({}, {1: [2]}) == 0.0
    # a wrong child of a failed parent is skipped too (its own verdict is not used)
    assert failed_ancestors({1: False, 2: False}, {2: [1]}) == {2: 1}


def test_a_cycle_does_not_zero_a_question_through_itself():
    assert score_with_dependencies({1: True, 2: True}, {1: [2], 2: [1]}) == 1.0
    assert failed_ancestors({1: True, 2: True, 3: False}, {1: [2], 2: [1, 3]}) == {1: 2, 2: 3}
