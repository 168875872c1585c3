"""Batch mode faults: jobs that expire, fail or are cancelled, items that fail inside a succeeded job,
replies fed back, results for keys nobody sent, collect and submit interrupted or run twice."""

from __future__ import annotations


import pytest

from support.fake_gemini import blocked_reply, error_reply, json_reply, text_reply, truncated_reply
from reeljudge.batch import submit as submit_module
from reeljudge.batch.collect import collect, wait
from reeljudge.batch.plan import plan_request
from reeljudge.batch.store import BatchStore
from reeljudge.batch.submit import SubmitOptions, submit
from reeljudge.cache import JudgeCache
from reeljudge.cli import main
from reeljudge.errors import JudgeError
from reeljudge.gemini.client import JudgeClient
from reeljudge.gemini.pricing import estimate_cost
from reeljudge.gemini.request import JudgeRequest
from reeljudge.gemini.settings import load_settings
from test_batch import NARRATIONS, client, judge_reply, plan_all, submit_and_collect


def store() -> BatchStore:
    return BatchStore(load_settings().cache_dir)


def planned_reasons() -> list[str]:
    return [r["failures"][-1]["reason"] for r in store().planned() if r.get("failures")]


@pytest.mark.parametrize("final", ["EXPIRED", "FAILED"])
def test_a_job_that_expires_or_fails_leaves_every_request_planned_and_the_next_submit_sends_them(gemini_env, monkeypatch, final):
    gemini_env.on("Grade these search terms", judge_reply())
    plan_all(monkeypatch)
    gemini_env.batches.script(final)
    _, outcome = submit_and_collect()
    assert outcome.state == f"JOB_STATE_{final}" and outcome.collected == 0 and len(outcome.failed) == 5
    assert planned_reasons() == [f"the batch job ended JOB_STATE_{final}"] * 5
    [again] = plan_all(monkeypatch, NARRATIONS[:1])  # the assertion says what happened, still not a pass
    assert again["pass"] is False and f"failed batch attempt (the batch job ended JOB_STATE_{final})" in again["reason"]
    _, retry = submit_and_collect()
    assert retry.collected == 5 and list(store().planned()) == []


def test_a_cancelled_job_puts_its_requests_back(gemini_env, monkeypatch, capsys):
    gemini_env.on("Grade these search terms", judge_reply())
    plan_all(monkeypatch)
    gemini_env.batches.script("RUNNING")  # never finishes on its own
    assert main(["batch", "submit", "--no-progress"]) == 0
    assert main(["batch", "cancel"]) == 0
    assert main(["batch", "collect", "--no-progress", "--interval", "0.01"]) == 1
    out = capsys.readouterr().out
    assert "JOB_STATE_CANCELLED: 0 replies cached" in out and "5 failed (left planned)" in out
    assert planned_reasons() == ["the batch job ended JOB_STATE_CANCELLED"] * 5


def test_items_that_fail_inside_a_succeeded_job_are_listed_and_retried_alone(gemini_env, monkeypatch):
    gemini_env.on("Grade these search terms", judge_reply())
    plan_all(monkeypatch)
    gemini_env.batches.script("SUCCEEDED", item_errors={
        0: error_reply(500, "backend hiccup"), 1: blocked_reply("PROHIBITED_CONTENT"),
        2: truncated_reply({"breakdown": {"relevance": 3}}),
    })
    _, outcome = submit_and_collect()
    assert outcome.collected == 2
    reasons = sorted(reason for _, _, reason in outcome.failed)
    assert len(reasons) == 3
    assert any("item failed: 500 backend hiccup" in r for r in reasons)
    assert any("blocked" in r and "PROHIBITED_CONTENT" in r for r in reasons)
    assert any("max_tokens" in r for r in reasons)
    _, retry = submit_and_collect()  # only the three failed ones go out again
    [_, second_job] = gemini_env.batches.jobs.values()
    assert len(second_job.requests) == 3 and retry.collected == 3


def test_an_unusable_reply_is_fed_back_once_as_online_then_fails_the_second_time(gemini_env, monkeypatch):
    gemini_env.on(lambda body, text: "previous reply could not be used" in text, judge_reply(), times=1)
    gemini_env.on("Grade these search terms", text_reply("I think the terms are fine."))
    plan_all(monkeypatch, NARRATIONS[:2])
    _, first = submit_and_collect()
    assert first.fed_back == 2 and first.collected == 0
    [planned] = list(store().planned())[:1]
    assert planned["turns"][0]["role"] == "model" and "could not be used" in planned["turns"][1]["text"]
    _, second = submit_and_collect()  # one conversation is answered, the other is refused again
    assert second.collected == 1 and len(second.failed) == 1
    assert "could not be used twice" in second.failed[0][2]
    job = list(gemini_env.batches.jobs.values())[1]
    assert [c["role"] for c in job.requests[0]["request"]["contents"]] == ["user", "model", "user"]
    [left] = list(store().planned())
    assert left["turns"] == []  # a retry starts the conversation again


def test_results_for_keys_nobody_sent_are_reported_never_written(gemini_env, monkeypatch, capsys):
    gemini_env.on("Grade these search terms", judge_reply())
    plan_all(monkeypatch, NARRATIONS[:2])
    stranger = "f" * 64
    good = json_reply({"breakdown": {"relevance": 3, "filmability": 3, "variety": 1}, "unfilmableTerms": [], "reason": "x"})
    from support.fake_gemini import candidate_json

    gemini_env.batches.script("SUCCEEDED", extra_results=[
        {"key": stranger, "response": candidate_json(good, "gemini-2.5-flash")},
        {"key": "../../etc/passwd", "response": candidate_json(good, "gemini-2.5-flash")},
    ])
    assert main(["batch", "submit", "--no-progress", "--source", "file"]) == 0
    assert main(["batch", "collect", "--no-progress", "--interval", "0.01"]) == 1
    out = capsys.readouterr().out
    assert "2 replies cached" in out and "2 unknown key(s)" in out and "'ffff" in out and "etc/passwd" in out
    cache = JudgeCache(load_settings().cache_dir)
    assert cache.get(stranger) is None and cache.stats().by_kind == {"filmability": 2}


def test_a_result_missing_from_a_succeeded_job_stays_planned(gemini_env, monkeypatch):
    gemini_env.on("Grade these search terms", judge_reply())
    plan_all(monkeypatch, NARRATIONS[:3])
    gemini_env.batches.script("SUCCEEDED", drop={1})
    _, outcome = submit_and_collect("file")
    assert outcome.collected == 2 and outcome.missing == 1
    assert planned_reasons() == ["the batch job returned no result for it"]


def test_an_interrupted_collect_resumes_and_writes_nothing_twice(gemini_env, monkeypatch):
    gemini_env.on("Grade these search terms", judge_reply())
    plan_all(monkeypatch)
    c = client()
    [submission] = submit(c, SubmitOptions(progress=False), log=lambda _m: None)
    job = wait(c, submission, interval_s=0.01, deadline_s=10, progress=False)
    real_put, puts = JudgeCache.put, []

    def flaky_put(self, key, kind, value, **kwargs):
        if len(puts) == 2:
            raise KeyboardInterrupt  # the user presses Ctrl-C after two replies
        puts.append(key)
        real_put(self, key, kind, value, **kwargs)

    monkeypatch.setattr(JudgeCache, "put", flaky_put)
    with pytest.raises(KeyboardInterrupt):
        collect(c, submission, job, progress=False)
    monkeypatch.setattr(JudgeCache, "put", real_put)
    again = collect(c, store().read_submission(submission["id"]), job, progress=False)
    assert again.already == 2 and again.collected == 3 and not again.unknown
    assert JudgeCache(c.settings.cache_dir).stats().by_kind == {"filmability": 5}
    assert collect(c, store().read_submission(submission["id"]), job, progress=False).was_collected


def test_a_submit_interrupted_after_the_job_was_created_finds_it_instead_of_sending_twice(gemini_env, monkeypatch):
    gemini_env.on("Grade these search terms", judge_reply())
    plan_all(monkeypatch)
    real = submit_module._record_job
    monkeypatch.setattr(submit_module, "_record_job", lambda *a: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        submit(client(), SubmitOptions(progress=False), log=lambda _m: None)
    monkeypatch.setattr(submit_module, "_record_job", real)
    [resumed] = submit(client(), SubmitOptions(progress=False), log=lambda _m: None)
    assert len(gemini_env.batches.creates()) == 1 and resumed["job"].startswith("batches/")
    assert any(r.path.endswith("/batches") for r in gemini_env.requests)  # looked it up with batches.list
    assert submit(client(), SubmitOptions(progress=False), log=lambda _m: None) == []  # nothing sent twice
    outcome = collect(client(), resumed, wait(client(), resumed, interval_s=0.01, deadline_s=10, progress=False), progress=False)
    assert outcome.collected == 5


def test_a_clip_that_changed_after_planning_is_not_sent(gemini_env, monkeypatch, tmp_path):
    from reeljudge.assertions.gecko import get_assert as gecko_assert
    from support.gecko_scripts import script_prompt
    from reeljudge.synth.clips import ClipSpec, make_clip

    clip = make_clip(tmp_path / "clip.mp4", ClipSpec(width=64, height=48, fps=8, frames=8, seed=1))
    prompt = "A disc gliding over a colourful texture"
    script_prompt(gemini_env, prompt, matched=True)
    context = {"vars": {"prompt": prompt, "video": str(clip)}, "config": {"validity_filter": False}}
    monkeypatch.setenv("REELJUDGE_CACHE", "plan")
    assert "queued_for_batch" in gecko_assert(str(clip), context)["reason"]  # stage 1: questions
    monkeypatch.delenv("REELJUDGE_CACHE")
    submit_and_collect()
    monkeypatch.setenv("REELJUDGE_CACHE", "plan")
    assert "queued_for_batch" in gecko_assert(str(clip), context)["reason"]  # stage 2: VQA with the clip
    monkeypatch.delenv("REELJUDGE_CACHE")
    [vqa] = list(store().planned())
    assert vqa["request"]["parts"][0]["media"]["local_path"] and "data_b64" not in vqa["request"]["parts"][0]["media"]
    make_clip(clip, ClipSpec(width=64, height=48, fps=8, frames=8, seed=2))  # the file changes
    said = []
    assert submit(client(), SubmitOptions(progress=False), log=said.append)[0]["state"] == "empty"
    assert any("changed since it was planned" in line and "dropped a planned gecko.vqa.video request" in line for line in said)
    assert list(store().planned()) == []  # that request can never be sent: the eval now asks about the new file
    monkeypatch.setenv("REELJUDGE_CACHE", "plan")
    assert "queued_for_batch" in gecko_assert(str(clip), context)["reason"]  # planned again, for the new content
    [replanned] = list(store().planned())
    assert replanned["key"] != vqa["key"]


def test_plan_refuses_what_cannot_be_batched(gemini_env, monkeypatch):
    c = JudgeClient(load_settings({"cache": "plan"}), planner=plan_request)
    with pytest.raises(JudgeError) as plain:
        c.ask(JudgeRequest(kind="custom", system="s", parts=("hi",)), lambda text: text)
    assert plain.value.kind == "not_batchable" and "reply_parser" in plain.value.message
    vertex = JudgeClient(load_settings({"cache": "plan", "backend": "vertex"}), planner=plan_request)
    with pytest.raises(JudgeError) as refused:
        vertex.ask(JudgeRequest(kind="custom", system="s", parts=("hi",)), lambda text: text)
    assert refused.value.kind == "not_batchable" and "Developer API" in refused.value.message
    assert list(store().planned()) == []
    without = JudgeClient(load_settings({"cache": "plan"}))  # the client itself knows no batches
    with pytest.raises(JudgeError) as unplanned:
        without.ask(JudgeRequest(kind="custom", system="s", parts=("hi",)), lambda text: text)
    assert unplanned.value.kind == "not_batchable" and "without a planner" in unplanned.value.message


def test_batch_prices_are_half_of_online():
    online = estimate_cost("gemini-2.5-flash", 1_000_000, 100_000)
    assert estimate_cost("gemini-2.5-flash", 1_000_000, 100_000, batch=True) == pytest.approx(online / 2)
    assert estimate_cost("unknown-model", 10, 10, batch=True) is None


def test_status_lists_planned_and_failed_requests(gemini_env, monkeypatch, capsys):
    gemini_env.on("Grade these search terms", judge_reply())
    plan_all(monkeypatch, NARRATIONS[:2])
    gemini_env.batches.script("SUCCEEDED", item_errors={0: error_reply(503)})
    submit_and_collect()
    assert main(["batch", "status", "--failed"]) == 0
    out = capsys.readouterr().out
    assert "planned requests" in out and "filmability (gemini-2.5-flash), waiting: 1" in out
    assert "item failed: 503" in out and "[collected]" in out
