"""End to end: the A/B judge suite through promptfoo against the fake server (and offline with the probes)."""

from __future__ import annotations

import json

import pytest
import yaml

from support.promptfoo_run import rows, run_promptfoo_eval
from reeljudge.media.refs import resolve_media, sha256_file
from support.ab_judge_scripts import prefer
from support.paths import ROOT

CONFIG = "promptfooconfig.ab-judge.yaml"
DIMS = ("prompt_adherence", "temporal_consistency", "identity_consistency", "motion_physics")


def clip_sha(dataset_id: str) -> str:
    return sha256_file(resolve_media(dataset_id, base_dir=ROOT).path)


@pytest.mark.e2e
def test_suite_through_promptfoo_against_the_fake_server_has_scores_per_dimension(fake, tmp_path):
    tests = yaml.safe_load((ROOT / "tests" / "suites" / "ab_judge.yaml").read_text())
    for test in tests:
        v = test["vars"]
        better, worse = (v["reference"], v["new"]) if v.get("expect_fail") else (v["new"], v["reference"])
        prefer(fake, v["prompt"], clip_sha(better), clip_sha(worse), tag="flicker")
    env = {"GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url,
           "REELJUDGE_CACHE_DIR": str(tmp_path / "cache")}
    code, results, output = run_promptfoo_eval(CONFIG, tmp_path, env=env)
    assert code == 0, output[-3000:]
    cells = rows(results)
    assert len(cells) == len(tests) and all(c["success"] for c in cells)
    for cell in cells:
        named = cell["namedScores"]
        for system in ("new", "reference"):
            assert {f"ab_{system}_{d}" for d in DIMS} <= set(named)
        assert named["ab_consistent"] == 1.0
        grading = next(c for c in cell["gradingResult"]["componentResults"]
                       if (c.get("metadata") or {}).get("judge") == "ab_judge")
        assert grading["metadata"]["orders_asked"] == 2 and "flicker (Flicker / temporal jitter)" in grading["reason"]
        assert cell["response"]["video"]["storageRef"]["key"].startswith("video/")  # the new clip plays in the viewer
    by_desc = {c["testCase"]["description"]: c for c in cells}
    planted = by_desc["ab_judge: new clip with a scene cut loses to the clean reference (planted fault)"]
    assert planted["namedScores"]["ab_win"] == 0.0 and planted["namedScores"]["ab_new_prompt_adherence"] == 2.0
    assert len(fake.calls()) == 2 * len(tests)
    text = json.dumps(cells)
    assert str(ROOT) not in text, [k for k in text.split('"') if str(ROOT) in k][:3]  # results name no machine path


@pytest.mark.e2e
def test_suite_offline_with_the_probes(tmp_path):
    code, results, output = run_promptfoo_eval(CONFIG, tmp_path, env={"REELJUDGE_AB_JUDGE": "probes"})
    assert code == 0, output[-3000:]
    cells = rows(results)
    assert cells and all(c["success"] for c in cells)
    assert all("ab_probes_new_temporal_consistency" in c["namedScores"] for c in cells)
    assert not any(k.endswith("prompt_adherence") for c in cells for k in c["namedScores"])
    assert str(ROOT) not in json.dumps(cells)
