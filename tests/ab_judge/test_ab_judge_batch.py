"""``reeljudge ab judge``: the judge as one more rater in a study's store, against the fake server."""

from __future__ import annotations

import json

import yaml

from support.ab_study import make_clips, valid_form
from reeljudge.ab.study.assignment import QCOptions, next_assignment, third_rater_queue
from reeljudge.ab.store.imports import build_samples, read_manifest
from reeljudge.ab.store.records import build_record
from reeljudge.ab.study.workspace import Workspace
from reeljudge.cli import main
from support.ab_judge_scripts import on_order, prefer, reply, side_bias, verdict_reply

MODEL = "gemini-2.5-flash"


def shared_clip_study(tmp_path, folder="study"):
    """Three pairs that share one clip: c0 against c1, c2 and c3 (systems base / other)."""
    clips = make_clips(tmp_path / "src", 4)
    rows = [{"prompt": f"A red ball rolls past a wall, take {i}", "clip_a": clips[0].name, "clip_b": clips[i].name,
             "system_a": "base", "system_b": "other"} for i in (1, 2, 3)]
    manifest = tmp_path / "src" / "manifest.yaml"
    manifest.write_text(yaml.safe_dump(rows))
    ws = Workspace(tmp_path / folder)
    result = build_samples(read_manifest(manifest), ws.fix_protocol(), ws.clips)
    ws.store.add_samples(result.samples, list(result.clips.values()))
    return ws


def script(fake, ws):
    """s0: base better; s1: a judge biased to side A (a flip); s2: other better."""
    s0, s1, s2 = ws.store.samples()
    prefer(fake, s0.prompt, s0.clip_of("base"), s0.clip_of("other"), tag="flicker")
    side_bias(fake, s1.prompt, side="A")
    prefer(fake, s2.prompt, s2.clip_of("other"), s2.clip_of("base"), tag="artifacts", secondary=["scene_reset"])
    return s0, s1, s2


def judge(ws, *args):
    return main(["ab", "judge", "--data", str(ws.root), *args])


def test_batch_fills_the_store_with_model_records_and_a_rerun_costs_nothing(gemini_env, tmp_path, capsys):
    ws = shared_clip_study(tmp_path)
    s0, s1, s2 = script(gemini_env, ws)
    assert judge(ws, "--set", "inline_max_bytes=0", "--workers", "3") == 0
    out = capsys.readouterr().out
    assert "3 judged now" in out and "position consistency: 2 of 3 pairs" in out and "judge calls: 6 made" in out
    assert len(gemini_env.calls()) == 6 and len(gemini_env.uploads()) == 4  # one upload per unique clip, in parallel
    records = {r["sample_id"]: r for r in ws.store.judgements(rater_id=MODEL)}
    assert set(records) == {s0.sample_id, s1.sample_id, s2.sample_id}
    r0, r1, r2 = records[s0.sample_id], records[s1.sample_id], records[s2.sample_id]
    assert (r0["rater"] == {"id": MODEL, "kind": "model", "model": MODEL} and r0["winner"] == "base"
            and r0["inconsistent"] is False)
    assert r0["shown"]["A"]["system"] == "base" and r0["ratings"]["base"]["prompt_adherence"] == 5
    assert [o["winner"] for o in r0["judge"]["orders"]] == ["base", "base"] and r0["judge"]["orders_asked"] == 2
    assert r1["winner"] == "tie" and r1["inconsistent"] is True and r1["primary_tag"] == "tie_both_flawed"
    assert r1["ratings"]["base"]["prompt_adherence"] == 3.5  # 5 in one order, 2 in the other
    assert r2["winner"] == "other" and r2["primary_tag"] == "artifacts" and r2["secondary_tags"] == ["scene_reset"]
    assert ("model", ) == tuple(k for r, k in ws.store.raters() if r == MODEL)
    before = len(gemini_env.requests)
    assert judge(ws) == 0
    assert "3 already judged by gemini-2.5-flash" in capsys.readouterr().out and len(gemini_env.requests) == before
    fresh = shared_clip_study(tmp_path, "study2")  # a new store over the same clips: answered by the judge cache
    assert judge(fresh, "--set", "inline_max_bytes=0") == 0
    assert "0 made, 6 answered from the cache" in capsys.readouterr().out and len(gemini_env.requests) == before
    assert len(fresh.store.judgements()) == 3


def test_orders_1_under_another_name_reuses_the_cache(gemini_env, tmp_path, capsys):
    ws = shared_clip_study(tmp_path)
    script(gemini_env, ws)
    assert judge(ws) == 0
    calls = len(gemini_env.calls())
    assert judge(ws, "--orders", "1", "--rater", "flash-once") == 0
    out = capsys.readouterr().out
    assert "orders: 1" in out and "not measured (orders: 1" in out and len(gemini_env.calls()) == calls
    once = ws.store.judgements(rater_id="flash-once")
    assert len(once) == 3 and {r["judge"]["orders_asked"] for r in once} == {1} and not any(r["inconsistent"] for r in once)


def test_a_pair_the_judge_did_not_judge_writes_nothing(gemini_env, tmp_path, capsys):
    ws = shared_clip_study(tmp_path)
    s0, s1, s2 = ws.store.samples()
    prefer(gemini_env, s0.prompt, s0.clip_of("base"), s0.clip_of("other"))
    prefer(gemini_env, s2.prompt, s2.clip_of("base"), s2.clip_of("other"))
    on_order(gemini_env, s1.prompt, s1.clip_of("base"), reply(verdict_reply("A", "flicker")))
    on_order(gemini_env, s1.prompt, s1.clip_of("other"), reply("no verdict today"))
    assert judge(ws, "--workers", "1") == 1
    out = capsys.readouterr().out
    assert "2 judged now" in out and "1 not judged" in out
    assert f"not judged: {s1.sample_id} (unparseable): order 2 of 2 (A = other, B = base) did not judge" in out
    assert {r["sample_id"] for r in ws.store.judgements()} == {s0.sample_id, s2.sample_id}


def rate_all(ws, rater, qc, winner_of):
    """A person takes every task the QC gives them and picks ``winner_of(sample)`` (a system); the samples seen."""
    seen = []
    while (task := next_assignment(ws.store, rater, qc)) is not None:
        side = {system: side for side, system in task.shown.items()}[winner_of(task.sample)]
        ws.store.append_judgement(build_record(
            sample_id=task.sample.sample_id, family=task.sample.family, protocol="ab-v1", shown=task.shown, clips=task.clips,
            form=valid_form(side), rater_id=rater, watch={"full_plays": {"A": 2, "B": 2}, "log": []}))
        seen.append(task.sample.sample_id)
    return seen


def test_model_records_never_count_as_people_in_quality_control(gemini_env, tmp_path):
    ws = shared_clip_study(tmp_path)
    s0, s1, s2 = script(gemini_env, ws)
    assert judge(ws, "--samples", s0.sample_id, s2.sample_id) == 0  # the model: base wins s0, other wins s2
    qc = QCOptions(min_raters=2, max_raters=3, gold_every=0)
    # ann agrees with the model on s0 and disagrees on s2
    assert sorted(rate_all(ws, "ann", qc, lambda s: "base")) == sorted([s0.sample_id, s1.sample_id, s2.sample_id])
    assert third_rater_queue(ws.store, qc) == []  # a disagreement with the model is not one among people
    # one person and the model on s0 and s2: both still need a second person
    assert sorted(rate_all(ws, "bob", qc, lambda s: "base")) == sorted([s0.sample_id, s1.sample_id, s2.sample_id])


def test_bad_options_are_input_errors(gemini_env, tmp_path, capsys):
    ws = shared_clip_study(tmp_path)
    assert judge(ws, "--set", "oders=1") == 2
    assert "did you mean 'orders'" in capsys.readouterr().err
    assert judge(ws, "--set", "judge=probes") == 2
    assert "cannot write protocol records" in capsys.readouterr().err
    assert judge(ws, "--set", "protocol=ab-v2") == 2
    assert judge(ws, "--samples", "0123456789abcdef") == 2
    assert "no such sample" in capsys.readouterr().err
    assert judge(ws, "--model", "models/gemini") == 2
    assert "--rater" in capsys.readouterr().err
    assert gemini_env.calls() == []


def test_report_after_the_batch_lists_the_model_rater(gemini_env, tmp_path):
    ws = shared_clip_study(tmp_path)
    script(gemini_env, ws)
    assert judge(ws) == 0
    assert main(["ab", "report", "--data", str(ws.root), "--resamples", "50"]) == 0
    report = json.loads((ws.root / "report" / "report.json").read_text())
    (model,) = report["models"]
    assert model["rater"] == MODEL and model["samples"] == 3 and model["position"]["consistent"] == 2
    assert "2 of 3 pairs judged in both orders gave the same verdict" in (ws.root / "report" / "report.html").read_text()


def test_the_cost_benchmark_counts_what_the_issue_asks(monkeypatch, capsys):
    from benchmarks import ab_judge_calls

    for name in ("REELJUDGE_CACHE_DIR", "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL", "REELJUDGE_BACKOFF_INITIAL_S"):
        monkeypatch.setenv(name, "set by the benchmark")  # restored after the test: the benchmark sets them for its runs
    assert ab_judge_calls.main(["--pairs", "2"]) == 0
    out = capsys.readouterr().out
    assert ("run 1: 4 judge calls, 4 uploads" in out and "run 1: 2 judge calls, 4 uploads" in out
            and "run 1: 4 judge calls, 3 uploads" in out)


def test_gold_pairs_on_request_and_the_dashboard_counts_people_only(gemini_env, tmp_path, capsys):
    from support.ab_study import make_study

    ws = make_study(tmp_path, 1, gold=1)
    pair = next(s for s in ws.store.samples() if s.kind == "pair")
    gold = next(s for s in ws.store.samples() if s.kind == "gold")
    prefer(gemini_env, pair.prompt, pair.clip_a, pair.clip_b)
    prefer(gemini_env, gold.prompt, gold.clip_of(gold.expected),
           gold.clip_of(next(x for x in gold.systems if x != gold.expected)))
    assert judge(ws) == 0 and "1 samples: 1 judged now" in capsys.readouterr().out  # gold left out by default
    assert judge(ws, "--gold") == 0 and "1 judged now, 1 already judged" in capsys.readouterr().out
    assert main(["ab", "report", "--data", str(ws.root), "--resamples", "50"]) == 0
    capsys.readouterr()
    (model,) = json.loads((ws.root / "report" / "report.json").read_text())["models"]
    assert model["gold"]["correct"] == 1 and model["samples"] == 1  # gold pairs stay out of the agreement
    assert main(["ab", "status", "--data", str(ws.root)]) == 0
    status = json.loads(capsys.readouterr().out)
    assert (status["complete"] == 0
            and {"rater": MODEL, "kind": "model", "done": 2, "total": None, "gold": model["gold"]} in status["raters"])
