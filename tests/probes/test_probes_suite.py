"""End to end: promptfoo runs the offline video suite (clip provider + probes) and records namedScores."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.paths import ROOT as REPO



@pytest.mark.e2e
def test_video_suite_runs_offline_with_named_scores(tmp_path: Path) -> None:
    out = tmp_path / "video_results.json"
    env = dict(os.environ)
    env.update(
        PROMPTFOO_PYTHON=sys.executable,
        PROMPTFOO_CONFIG_DIR=str(tmp_path / "pf"),
        PROMPTFOO_DISABLE_TELEMETRY="1",
        PROMPTFOO_DISABLE_UPDATE="1",
    )
    run = subprocess.run(
        ["bash", "scripts/promptfoo.sh", "eval", "-c", "promptfooconfig.video.yaml", "-o", str(out), "--no-cache"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    results = json.loads(out.read_text())["results"]["results"]
    assert len(results) >= 12 and all(r["success"] for r in results)
    clean = next(r for r in results if r["vars"]["clip"] == "bbb_excerpt")
    assert set(clean["namedScores"]) >= {"technical", "black_frames", "frozen_frames", "scene_cuts", "flicker", "dynamic_degree"}
    key = clean["response"]["video"]["storageRef"]["key"]
    assert (tmp_path / "pf" / "media" / key).read_bytes() == (REPO / "datasets/clips/bbb_excerpt.mp4").read_bytes()
    # results name no machine path: clips are recorded relative to the project
    assert str(REPO) not in json.dumps(results), [k for k in json.dumps(results).split('"') if str(REPO) in k][:3]
