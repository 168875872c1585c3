"""End to end: `reeljudge batch run -- <promptfoo eval args>` over the Gecko suite takes one round per
stage (questions → filter → VQA), makes no online call, and the suite then replays at zero calls."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reeljudge.filmability.judge_gemini import filmability_request
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


GEMINI_TERMS = ["sala de servidores llena de luces", "ingeniera escribiendo en su teclado", "atardecer sobre edificios"]


def _script_filmability(fake, terms: list[str]) -> None:
    """The Gemini generator answers ``terms``; the Gemini judge grades any list 7/7."""
    fake.on(lambda body, text: "Grade these search terms" not in text, json_reply({"terms": terms}))
    fake.on("Grade these search terms", json_reply({
        "breakdown": {"relevance": 3, "filmability": 3, "variety": 1}, "unfilmableTerms": [], "points": 7,
        "score": 1.0, "reason": "scripted", "criterionReasons": {"relevance": "x", "filmability": "x", "variety": "x"}}))


def _batch_run(fake, tmp_path: Path, config: str) -> tuple[subprocess.CompletedProcess[str], list[dict]]:
    """``reeljudge batch run`` over the first two tests of ``config`` with a (fake) key; the run and its rows."""
    out = tmp_path / "results.json"
    env = {**os.environ, "GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url,
           "PROMPTFOO_CONFIG_DIR": str(tmp_path / "promptfoo")}
    eval_args = ["-c", config, "--filter-first-n", "2", "-o", str(out), "--no-progress-bar", "--no-cache"]
    run = subprocess.run(
        [REELJUDGE, "batch", "run", "--no-progress", "--interval", "0.05", "--promptfoo",
         "bash scripts/promptfoo.sh", "--", *eval_args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert out.exists(), run.stdout[-3000:] + run.stderr[-3000:]
    return run, json.loads(out.read_text())["results"]["results"]


def _judge_requests(fake) -> list[list[str]]:
    """Per batch job, the user texts of its judge requests (the filmability rubric's; the system text left out)."""
    texts = [["".join(p.get("text", "") for c in r["request"]["contents"] for p in c["parts"]) for r in job.requests]
             for job in fake.batches.jobs.values()]
    return [[t for t in job if t.startswith("Grade these search terms")] for job in texts]


@pytest.mark.e2e
def test_default_filmability_suite_batches_only_the_lists_the_offline_judge_defers(fake, tmp_path):
    # judge: auto with a key is a cascade (issue 47): the offline judge decides the English lists itself; Gemini's
    # Spanish list is one it does not read, so only that list goes to the Batch API, in a second round.
    _script_filmability(fake, GEMINI_TERMS)
    run, rows = _batch_run(fake, tmp_path, "promptfooconfig.yaml")
    assert "== batch run: 2 round(s), 3 eval run(s)" in run.stdout, run.stdout[-3000:] + run.stderr[-3000:]
    assert run.returncode == (0 if all(r["success"] for r in rows) else 100), run.stdout[-3000:] + run.stderr[-3000:]
    assert fake.calls() == []
    assert len(rows) == 6 and all("did not judge" not in r["gradingResult"]["reason"] for r in rows)
    ours = {(r["provider"]["label"], r["vars"]["narration"]): r["gradingResult"]["componentResults"][0]["metadata"]
            for r in rows}
    deferred = {k for k, m in ours.items() if m["cascade"]["decided_by"] == "gemini"}
    assert {k[0] for k in deferred} == {"gemini-terms"} and len(deferred) == 2
    for key, m in ours.items():
        if key in deferred:
            assert m["judge"] == "gemini" and m["cache_hit"] and m["cascade"]["why"] == "not_english"
        else:
            assert m["judge"] == "local" and m["cascade"] == {"decided_by": "local", "gemini_asked": False}
    jobs = list(fake.batches.jobs.values())
    judged = _judge_requests(fake)
    assert [len(j.requests) for j in jobs] == [2, 2]  # the generator's two requests; then the two deferred lists
    assert [len(j) for j in judged] == [0, len(deferred)]
    # the lists sent are Gemini's for the deferred narrations, one each; none is a list the offline judge decided
    assert sorted(judged[1]) == sorted(filmability_request(n, GEMINI_TERMS).parts[0] for _, n in deferred)


@pytest.mark.e2e
def test_filmability_suite_with_judge_gemini_takes_two_rounds_generator_then_judge(fake, tmp_path):
    # judge: gemini asks Gemini for every list: round one plans the generator and the offline generators' lists,
    # round two the lists of the generator's replies. The config is a copy whose file:// paths name the repository.
    config = (ROOT / "promptfooconfig.yaml").read_text()
    assert "judge: auto" in config
    copy = tmp_path / "promptfooconfig.yaml"
    copy.write_text(config.replace("judge: auto", "judge: gemini").replace("file://", f"file://{ROOT}/"))
    _script_filmability(fake, ["server room", "engineer typing", "sunset over a data center"])
    run, rows = _batch_run(fake, tmp_path, str(copy))
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "== batch run: 2 round(s), 3 eval run(s)" in run.stdout
    assert fake.calls() == []
    jobs = list(fake.batches.jobs.values())
    assert [len(j.requests) for j in jobs] == [2 + 2 * 2, 2]  # generator + judge of the offline terms; then the judge of Gemini's
    assert len(rows) == 6 and all("did not judge" not in r["gradingResult"]["reason"] for r in rows)
    ours = [r["gradingResult"]["componentResults"][0]["metadata"] for r in rows]
    assert all(m["judge"] == "gemini" and m["cache_hit"] and "cascade" not in m for m in ours)
    assert all(r["response"]["metadata"]["cache_hit"] for r in rows if r["provider"]["label"] == "gemini-terms")
