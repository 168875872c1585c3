"""Batch mode: plan in the judge cache, submit to the (fake) Batch API with the real google-genai
client, collect through the same reply reader, then replay at zero calls."""

from __future__ import annotations

import json

import pytest

from support.fake_gemini import json_reply
from reeljudge.batch.collect import collect, wait
from reeljudge.batch.planner import judge_client
from reeljudge.batch.store import BatchStore
from reeljudge.batch.submit import SubmitOptions, submit
from reeljudge.assertions.filmability import get_assert
from reeljudge.gemini.client import JudgeClient
from reeljudge.gemini.settings import load_settings

NARRATIONS = [f"Redis keeps session {n} in memory, making it fast" for n in range(5)]
TERMS = json.dumps(["server room", "computer RAM", "data center lights"])


def judge_reply(r=3, f=3, v=1):
    return json_reply({
        "breakdown": {"relevance": r, "filmability": f, "variety": v},
        "criterionReasons": {"relevance": "on topic", "filmability": "physical", "variety": "mixed"},
        "unfilmableTerms": [], "points": r + f + v, "score": 1.0, "reason": "fine",
    }, prompt_tokens=1000, output_tokens=100)


def ctx(narration, **config):
    return {"vars": {"narration": narration}, "config": {"judge": "gemini", **config}, "test": {"description": narration[:30]}}


def client(**config) -> JudgeClient:
    settings = load_settings(config)
    return judge_client(settings)


def plan_all(monkeypatch, narrations=NARRATIONS):
    monkeypatch.setenv("REELJUDGE_CACHE", "plan")
    results = [get_assert(TERMS, ctx(n)) for n in narrations]
    monkeypatch.delenv("REELJUDGE_CACHE")
    return results


def submit_and_collect(source="auto"):
    c = client()
    [submission] = submit(c, SubmitOptions(source=source, progress=False), log=lambda _m: None)
    job = wait(c, submission, interval_s=0.01, deadline_s=10, progress=False)
    return submission, collect(c, submission, job, progress=False)


def test_plan_records_the_request_and_fails_as_queued_never_a_pass(gemini_env, monkeypatch):
    results = plan_all(monkeypatch)
    for result in results:
        assert result["pass"] is False and result["score"] == 0
        assert "did not judge (queued_for_batch)" in result["reason"] and "queued for batch" in result["reason"]
        assert result["metadata"]["judged"] is False
    assert gemini_env.calls() == []  # planning sends nothing
    store = BatchStore(load_settings().cache_dir)
    records = list(store.planned())
    assert len(records) == 5
    record = records[0]
    assert record["kind"] == "filmability" and record["model"] == "gemini-2.5-flash"
    assert record["parser"]["name"] == "filmability" and record["request"]["schema"]["type"] == "object"
    assert "Grade these search terms" in record["request"]["parts"][0]


def test_planning_twice_keeps_one_record_and_says_where_it_stands(gemini_env, monkeypatch):
    plan_all(monkeypatch, NARRATIONS[:1])
    [again] = plan_all(monkeypatch, NARRATIONS[:1])
    assert "planned and not submitted yet" in again["reason"]
    assert len(list(BatchStore(load_settings().cache_dir).planned())) == 1


@pytest.mark.parametrize("source", ["inline", "file"])
def test_submit_collect_then_replay_costs_zero_calls(gemini_env, monkeypatch, source):
    gemini_env.on("Grade these search terms", judge_reply())
    plan_all(monkeypatch)
    submission, outcome = submit_and_collect(source)
    assert submission["source"] == source and submission["job"].startswith("batches/")
    assert outcome.state == "JOB_STATE_SUCCEEDED" and outcome.collected == 5 and not outcome.failed and not outcome.unknown
    assert outcome.usage.cost_usd == pytest.approx(outcome.online_cost_usd / 2)  # batch price is half
    [create] = gemini_env.batches.creates()
    config = create.body["batch"]["inputConfig"]
    assert ("requests" in config) == (source == "inline") and ("fileName" in config) == (source == "file")
    assert gemini_env.calls() == []  # no online call at any point
    monkeypatch.setenv("REELJUDGE_CACHE", "replay")
    for n in NARRATIONS:
        result = get_assert(TERMS, ctx(n))
        assert result["pass"] is True and result["score"] == 1.0 and result["metadata"]["cache_hit"] is True
    assert gemini_env.calls() == [] and len(gemini_env.batches.creates()) == 1
    assert list(BatchStore(load_settings().cache_dir).planned()) == []


def test_file_and_inline_requests_are_the_same_rest_request(gemini_env, monkeypatch):
    gemini_env.on("Grade these search terms", judge_reply())
    plan_all(monkeypatch, NARRATIONS[:1])
    submit_and_collect("inline")
    cache = load_settings().cache_dir
    # forget the reply and plan the same request again, this time sent as a file
    import shutil

    shutil.rmtree(cache)
    plan_all(monkeypatch, NARRATIONS[:1])
    submit_and_collect("file")
    inline_job, file_job = gemini_env.batches.jobs.values()
    assert inline_job.requests[0]["request"] == file_job.requests[0]["request"]
    assert inline_job.requests[0]["metadata"] == {"key": file_job.requests[0]["key"]}
    request = file_job.requests[0]["request"]
    assert request["generationConfig"]["responseMimeType"] == "application/json"
    assert "rubric" in json.dumps(request["systemInstruction"]).lower() or request["systemInstruction"]["parts"]


def test_collect_run_twice_is_harmless(gemini_env, monkeypatch):
    gemini_env.on("Grade these search terms", judge_reply())
    plan_all(monkeypatch)
    submission, first = submit_and_collect()
    c = client()
    store = BatchStore(c.settings.cache_dir)
    again = collect(c, store.read_submission(submission["id"]), None, progress=False)
    assert again.was_collected and again.collected == 0
    # even a collect that ignores the record's "collected" mark writes nothing twice
    job = c.genai().batches.get(name=submission["job"])
    replay = collect(c, {**store.read_submission(submission["id"]), "collected": False}, job, progress=False)
    assert replay.collected == 0 and replay.already == 5 and not replay.unknown and not replay.failed


def test_the_cli_submits_waits_and_collects(gemini_env, monkeypatch, capsys):
    from reeljudge.cli import main

    gemini_env.on("Grade these search terms", judge_reply())
    plan_all(monkeypatch, NARRATIONS[:2])
    assert main(["batch", "collect", "--no-progress"]) == 0 and "no open batch job" in capsys.readouterr().out
    assert main(["batch", "submit", "--no-progress"]) == 0
    assert "submitted 2 gemini-2.5-flash request(s) inline" in capsys.readouterr().out
    assert main(["batch", "submit", "--no-progress"]) == 0 and "nothing to submit" in capsys.readouterr().out
    assert main(["batch", "wait", "--no-progress", "--interval", "0.01"]) == 0
    assert "JOB_STATE_SUCCEEDED" in capsys.readouterr().out
    assert main(["batch", "collect", "--no-progress", "--interval", "0.01"]) == 0
    out = capsys.readouterr().out
    assert "2 replies cached" in out and "at batch prices" in out
    assert main(["batch", "collect", "--no-progress", "nope"]) == 2
    assert "no submission or job 'nope'" in capsys.readouterr().err


def test_media_goes_inline_as_base64_in_both_forms(gemini_env, monkeypatch, tmp_path):
    from reeljudge.assertions.gecko import get_assert as gecko_assert
    from reeljudge.synth.clips import ClipSpec, make_clip
    from support.gecko_scripts import script_prompt

    clip = make_clip(tmp_path / "clip.mp4", ClipSpec(width=64, height=48, fps=8, frames=8, seed=1))
    prompt = "A disc gliding over a colourful texture"
    script_prompt(gemini_env, prompt, matched=True, drop_last=False)
    context = {"vars": {"prompt": prompt, "video": str(clip)}, "config": {"validity_filter": False}}
    for source in ("inline", "file"):
        for _stage in ("questions", "vqa"):
            monkeypatch.setenv("REELJUDGE_CACHE", "plan")
            assert "queued_for_batch" in gecko_assert(str(clip), context)["reason"]
            monkeypatch.delenv("REELJUDGE_CACHE")
            assert submit_and_collect(source)[1].collected == 1
        assert gecko_assert(str(clip), context)["pass"] is True
        vqa = list(gemini_env.batches.jobs.values())[-1].requests[0]["request"]
        media = vqa["contents"][0]["parts"][0]["inlineData"]
        import base64

        assert base64.urlsafe_b64decode(media["data"]) == clip.read_bytes()
        import shutil

        shutil.rmtree(load_settings().cache_dir)
    assert gemini_env.calls() == []


def test_the_pairwise_ab_judge_goes_through_the_batch_api_in_one_round(gemini_env, monkeypatch):
    from reeljudge.media.refs import sha256_file
    from support.ab_judge_scripts import CLEAN, FLICKER, PROMPT, grade, prefer

    prefer(gemini_env, PROMPT, sha256_file(CLEAN), sha256_file(FLICKER), tag="flicker")
    monkeypatch.setenv("REELJUDGE_CACHE", "plan")
    queued = grade()
    assert queued["pass"] is False and "did not judge (queued_for_batch)" in queued["reason"]
    records = list(BatchStore(load_settings().cache_dir).planned())
    assert len(records) == 2 and {r["parser"]["name"] for r in records} == {"ab_judge.order"}  # both orders
    monkeypatch.delenv("REELJUDGE_CACHE")
    assert submit_and_collect()[1].collected == 2
    monkeypatch.setenv("REELJUDGE_CACHE", "replay")
    result = grade()
    assert result["pass"] is True and result["score"] == 1.0 and result["metadata"]["winner"] == "new"
    assert gemini_env.calls() == []
