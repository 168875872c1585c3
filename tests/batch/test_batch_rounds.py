"""End to end: `reeljudge batch run -- <promptfoo eval args>` over the Gecko suite takes one round per
stage (questions → filter → VQA), makes no online call, and the suite then replays at zero calls."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.fake_gemini import json_reply
from support.gecko_scripts import local_suite_env, script_local_suite
from support.paths import ROOT

REELJUDGE = str(Path(sys.executable).parent / "reeljudge")


@pytest.mark.e2e
def test_gecko_suite_runs_in_three_batch_rounds_then_replays_at_zero_calls(fake, tmp_path):
    pairs = script_local_suite(fake)
    out = tmp_path / "results.json"
    env = local_suite_env(fake.url, tmp_path)
    eval_args = ["-c", "promptfooconfig.gecko.yaml", "-o", str(out), "--no-progress-bar", "--no-cache"]
    run = subprocess.run(
        [REELJUDGE, "batch", "run", "--no-progress", "--interval", "0.05", "--promptfoo",
         "bash scripts/promptfoo.sh", "--", *eval_args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "== batch run: 3 round(s), 4 eval run(s)" in run.stdout and "stopped: nothing left to plan" in run.stdout
    assert fake.calls() == []  # every judge request went through the Batch API
    jobs = list(fake.batches.jobs.values())
    assert [len(j.requests) for j in jobs] == [6, 6, 6]  # one request per prompt and stage; then one VQA per test
    rows = json.loads(out.read_text())["results"]["results"]
    assert len(rows) == 2 * len(pairs) and all(r["success"] for r in rows)
    assert all(r["gradingResult"]["componentResults"][0]["metadata"]["cache_hit"] for r in rows)
    scores = {(r["vars"]["video"], r["vars"]["expect"]): r["score"] for r in rows}
    for pair in pairs:
        assert scores[(pair["clip"], "match")] > scores[(pair["clip"], "mismatch")]
    requests_before = len(fake.requests)
    replay = subprocess.run(["bash", "scripts/promptfoo.sh", "eval", *eval_args], cwd=ROOT,
                            env={**env, "REELJUDGE_CACHE": "replay"}, capture_output=True, text=True, timeout=300)
    assert replay.returncode == 0, replay.stdout[-2000:] + replay.stderr[-2000:]
    assert len(fake.requests) == requests_before  # replay: not one request of any kind


@pytest.mark.e2e
def test_default_filmability_suite_takes_two_rounds_generator_then_judge(fake, tmp_path):
    terms = ["server room", "engineer typing", "sunset over a data center"]
    fake.on(lambda body, text: "Grade these search terms" not in text, json_reply({"terms": terms}))
    fake.on("Grade these search terms", json_reply({
        "breakdown": {"relevance": 3, "filmability": 3, "variety": 1}, "unfilmableTerms": [], "points": 7,
        "score": 1.0, "reason": "scripted", "criterionReasons": {"relevance": "x", "filmability": "x", "variety": "x"}}))
    out = tmp_path / "results.json"
    env = {**os.environ, "GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url,
           "PROMPTFOO_CONFIG_DIR": str(tmp_path / "promptfoo")}
    eval_args = ["-c", "promptfooconfig.yaml", "--filter-first-n", "2", "-o", str(out), "--no-progress-bar", "--no-cache"]
    run = subprocess.run(
        [REELJUDGE, "batch", "run", "--no-progress", "--interval", "0.05", "--promptfoo",
         "bash scripts/promptfoo.sh", "--", *eval_args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "== batch run: 2 round(s), 3 eval run(s)" in run.stdout
    assert fake.calls() == []
    jobs = list(fake.batches.jobs.values())
    assert [len(j.requests) for j in jobs] == [2 + 2 * 2, 2]  # generator + judge of the offline terms; then the judge of Gemini's
    rows = json.loads(out.read_text())["results"]["results"]
    assert len(rows) == 6 and all("did not judge" not in r["gradingResult"]["reason"] for r in rows)
    ours = [r["gradingResult"]["componentResults"][0]["metadata"] for r in rows]
    assert all(m["judge"] == "gemini" and m["cache_hit"] for m in ours)
    assert all(r["response"]["metadata"]["cache_hit"] for r in rows if r["provider"]["label"] == "gemini-terms")
