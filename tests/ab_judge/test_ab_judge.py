"""The A/B judge against the fake Gemini server: both orders, flips, refused replies, media, cache."""

from __future__ import annotations

import json

import pytest

from support.fake_gemini import blocked_reply, error_reply, text_reply
from reeljudge.assertions.ab_judge import get_assert
from reeljudge.media.refs import sha256_file
from support.ab_judge_scripts import CLEAN, FLICKER, PROMPT, grade, on_order, prefer, reply, shown_clips, side_bias, verdict_reply
from support.paths import ROOT

FROZEN = str(ROOT / "datasets" / "clips" / "gen_frozen.mp4")
DIMS = ("prompt_adherence", "temporal_consistency", "identity_consistency", "motion_physics")


def sha(path: str) -> str:
    return sha256_file(path)


def test_consistent_judge_both_orders_new_wins_with_scores_per_dimension(gemini_env):
    prefer(gemini_env, PROMPT, sha(CLEAN), sha(FLICKER), tag="flicker", secondary=["artifacts"], note="The reference flickers.")
    result = grade()
    assert result["pass"] is True and result["score"] == 1.0
    calls = gemini_env.calls()
    assert len(calls) == 2
    assert [shown_clips(gemini_env, c.body) for c in calls] == [[sha(CLEAN), sha(FLICKER)], [sha(FLICKER), sha(CLEAN)]]
    named = result["namedScores"]
    assert named["ab_win"] == 1.0 and named["ab_consistent"] == 1.0
    assert {named[f"ab_new_{d}"] for d in DIMS} == {5.0} and {named[f"ab_reference_{d}"] for d in DIMS} == {2.0}
    assert "new wins against reference (both orders agree)" in result["reason"]
    assert "flicker (Flicker / temporal jitter)" in result["reason"] and "artifacts" in result["reason"]
    meta = result["metadata"]
    assert meta["winner"] == "new" and meta["consistent"] is True and meta["orders_asked"] == 2
    assert [o["shown"] for o in meta["orders"]] == [{"A": "new", "B": "reference"}, {"A": "reference", "B": "new"}]
    assert "componentResults" not in result  # the orders are the verdict's breakdown, not checks the viewer counts
    assert result["reason"].splitlines()[1:] == [f"order {n} ({layout}): " + meta["breakdown"][f"order {n} ({layout})"]
                                                 for n, layout in ((1, "A = new, B = reference"), (2, "A = reference, B = new"))]
    assert result["tokensUsed"]["numRequests"] == 2


def test_flip_is_a_tie_flagged_inconsistent(gemini_env):
    side_bias(gemini_env, PROMPT, side="A")
    result = grade()
    assert result["pass"] is True and result["score"] == 0.5  # a tie passes under pass_on: win_or_tie
    meta = result["metadata"]
    assert meta["winner"] == "tie" and meta["inconsistent"] is True and meta["consistent"] is False
    assert meta["primary_tag"] == "tie_both_flawed" and meta["secondary_tags"] == []
    assert [o["winner"] for o in meta["orders"]] == ["new", "reference"]
    assert "position-inconsistent: order 1 chose new, order 2 chose reference; counted as a tie" in result["reason"]
    assert result["namedScores"]["ab_consistent"] == 0.0
    strict = grade(pass_on="win")  # cached: no new calls
    assert strict["pass"] is False and "pass_on: win needs a win" in strict["reason"]
    assert len(gemini_env.calls()) == 2


def test_a_win_in_one_order_and_a_tie_in_the_other_is_inconsistent(gemini_env):
    on_order(gemini_env, PROMPT, sha(CLEAN), reply(verdict_reply("A", "flicker")))
    on_order(gemini_env, PROMPT, sha(FLICKER), reply(verdict_reply("tie", "tie_both_good")))
    meta = grade()["metadata"]
    assert meta["winner"] == "tie" and meta["inconsistent"] is True


def test_ratings_are_averaged_over_both_orders(gemini_env):
    first = {"A": dict.fromkeys(DIMS, 5), "B": dict.fromkeys(DIMS, 3)}
    second = {"A": dict.fromkeys(DIMS, 2), "B": dict.fromkeys(DIMS, 4)}
    on_order(gemini_env, PROMPT, sha(CLEAN), reply(verdict_reply("A", "flicker", ratings=first)))
    on_order(gemini_env, PROMPT, sha(FLICKER), reply(verdict_reply("B", "flicker", ratings=second)))
    result = grade()
    assert result["metadata"]["ratings"] == {"new": dict.fromkeys(DIMS, 4.5), "reference": dict.fromkeys(DIMS, 2.5)}
    assert "prompt_adherence 4.5/2.5" in result["reason"]


@pytest.mark.parametrize("fault", ["blocked", "unparseable"])
def test_one_order_failing_means_the_pair_is_not_judged_and_a_rerun_asks_only_that_order(gemini_env, fault):
    on_order(gemini_env, PROMPT, sha(CLEAN), reply(verdict_reply("A", "flicker")))
    bad = blocked_reply() if fault == "blocked" else text_reply("I would rather not pick a winner.")
    rule = on_order(gemini_env, PROMPT, sha(FLICKER), bad, times=1 if fault == "blocked" else 2)
    result = grade()
    assert result["pass"] is False and result["score"] == 0.0 and result["metadata"]["judged"] is False
    assert "order 2 of 2 (A = reference, B = new) did not judge" in result["reason"]
    assert "order 1 was judged and stays cached, the pair is not judged" in result["reason"]
    assert "namedScores" not in result
    calls = len(gemini_env.calls())
    assert calls == (2 if fault == "blocked" else 3)  # unparseable: fed back once, refused again
    assert rule.used == rule.times
    on_order(gemini_env, PROMPT, sha(FLICKER), reply(verdict_reply("B", "flicker")))
    again = grade()
    assert again["pass"] is True and len(gemini_env.calls()) == calls + 1


def test_damaged_but_unambiguous_json_is_repaired(gemini_env):
    value = verdict_reply("A", "flicker")
    damaged = "```json\n" + json.dumps(value).replace('"flicker"', "'flicker'").rstrip("}") + ",}\n```"
    on_order(gemini_env, PROMPT, sha(CLEAN), reply(damaged))
    on_order(gemini_env, PROMPT, sha(FLICKER), reply(verdict_reply("B", "flicker")))
    result = grade()
    assert result["pass"] is True and len(gemini_env.calls()) == 2


def test_a_rule_breaking_reply_is_fed_back_once_and_never_fixed_up(gemini_env):
    breaking = verdict_reply("tie", "flicker")  # a tie with a failure tag
    on_order(gemini_env, PROMPT, sha(CLEAN), reply(breaking), reply(verdict_reply("A", "flicker")))
    on_order(gemini_env, PROMPT, sha(FLICKER), reply(verdict_reply("B", "flicker")))
    result = grade()
    assert result["pass"] is True
    calls = gemini_env.calls()
    assert len(calls) == 3
    assert "A tie has no loser" in calls[1].text and "could not be used" in calls[1].text
    assert "breaks the protocol's rules" in result["metadata"]["orders"][0]["call"]["fed_back_error"]


def test_a_reply_breaking_the_rules_twice_is_not_judged(gemini_env):
    too_many = verdict_reply("A", "flicker", secondary=["artifacts", "scene_reset", "physics_break", "entity_drift"])
    on_order(gemini_env, PROMPT, sha(CLEAN), reply(too_many))
    result = grade()
    assert result["pass"] is False and result["metadata"]["error_kind"] == "unparseable"  # maxItems is in the schema
    on_order(gemini_env, PROMPT, sha(FLICKER), reply(verdict_reply("tie", "tie_both_good", note="First. Second. Third.")))
    gemini_env.rules.pop(0)
    on_order(gemini_env, PROMPT, sha(CLEAN), reply(verdict_reply("A", "flicker")))
    result = grade()
    assert result["pass"] is False and result["metadata"]["error_kind"] == "breaks_protocol"
    assert "note: Keep the note to 2 sentences (it has 3)" in result["reason"] and "order 2 of 2" in result["reason"]


def test_each_unique_clip_is_uploaded_once_and_a_rerun_makes_no_call(gemini_env):
    prefer(gemini_env, PROMPT, sha(CLEAN), sha(FLICKER))
    prefer(gemini_env, "a second prompt", sha(CLEAN), sha(FROZEN))
    assert grade(inline_max_bytes=0)["pass"] is True
    assert grade(reference=FROZEN, prompt="a second prompt", inline_max_bytes=0)["pass"] is True
    assert len(gemini_env.calls()) == 4 and len(gemini_env.uploads()) == 3  # clean, flicker, frozen
    before = len(gemini_env.requests)
    rerun = grade(inline_max_bytes=0)
    assert rerun["metadata"]["cache_hit"] is True and rerun["tokensUsed"]["numRequests"] == 0
    assert len(gemini_env.requests) == before  # no call, no upload, no file lookup


def test_a_clip_that_fails_to_upload_is_named(gemini_env):
    prefer(gemini_env, PROMPT, sha(CLEAN), sha(FLICKER))
    gemini_env.file_states = ["PROCESSING", "FAILED"]
    result = grade(inline_max_bytes=0)
    assert result["pass"] is False and result["metadata"]["error_kind"] == "media_error"
    assert "new clip" in result["reason"] and "gen_clean.mp4" in result["reason"] and "FAILED" in result["reason"]
    assert gemini_env.calls() == []
    gemini_env.file_states = ["ACTIVE"]
    gemini_env.file_errors = [error_reply(500)] * 8
    result = grade(inline_max_bytes=0, max_attempts=2)
    assert result["pass"] is False and result["metadata"]["error_kind"] == "api_error" and "Files API" in result["reason"]


def test_orders_1_asks_once_and_says_so(gemini_env):
    prefer(gemini_env, PROMPT, sha(CLEAN), sha(FLICKER))
    result = grade(orders=1)
    assert result["pass"] is True and len(gemini_env.calls()) == 1
    assert result["metadata"]["orders_asked"] == 1 and result["metadata"]["consistent"] is None
    assert ("asked in one order" in result["reason"] and "orders: 1" in result["reason"]
            and "ab_consistent" not in result["namedScores"])
    assert grade(orders=2)["pass"] is True and len(gemini_env.calls()) == 2  # the order already asked comes from the cache


def test_orders_1_picks_the_side_by_a_hash_not_always_the_new_clip_first(gemini_env):
    side_bias(gemini_env, None, side="A")
    firsts = set()
    for i in range(8):
        meta = grade(prompt=f"prompt number {i}", orders=1)["metadata"]
        firsts.add(meta["orders"][0]["shown"]["A"])
    assert firsts == {"new", "reference"}


def test_without_credentials_the_assertion_fails_and_names_the_offline_choice(fake):
    result = grade()
    assert result["pass"] is False and result["metadata"]["error_kind"] == "no_credentials"
    assert "GEMINI_API_KEY" in result["reason"] and "judge: probes" in result["reason"]
    assert fake.requests == []


def test_expect_fail_passes_only_when_the_new_clip_lost(gemini_env):
    prefer(gemini_env, PROMPT, sha(CLEAN), sha(FROZEN), tag="physics_break")
    lost = grade(new=FROZEN, reference=CLEAN, expect_fail=True)
    assert lost["pass"] is True and "expected the new clip" in lost["reason"]
    won = grade(new=CLEAN, reference=FROZEN, expect_fail=True)
    assert won["pass"] is False
    not_judged = grade(new=FLICKER, reference=CLEAN, expect_fail=True)  # nothing scripted: the judge did not judge
    assert not_judged["pass"] is False and not_judged["metadata"]["judged"] is False


@pytest.mark.parametrize("config, var_changes, message", [
    ({"oders": 1}, {}, "unknown option 'oders' for ab_judge; did you mean 'orders'?"),
    ({"orders": 3}, {}, "orders"),
    ({"pass_on": "maybe"}, {}, "pass_on"),
    ({}, {"reference": None}, "has no var 'reference'"),
    ({}, {"reference": CLEAN}, "are the same clip"),
    ({}, {"family": "cooking"}, "unknown task family 'cooking'"),
    ({}, {"reference": "no_such_clip"}, "the reference clip (var 'reference')"),
])
def test_bad_input_names_the_option_or_var(gemini_env, config, var_changes, message):
    vars_ = {"prompt": PROMPT, "reference": FLICKER, **var_changes}
    vars_ = {k: v for k, v in vars_.items() if v is not None}
    result = get_assert(CLEAN, {"vars": vars_, "config": config, "test": {"description": "bad"},
                                "providerResponse": {"metadata": {"clip_path": CLEAN}}})
    assert result["pass"] is False and message in result["reason"] and "'bad'" in result["reason"]
    assert gemini_env.calls() == []


def test_edit_tasks_need_the_source_clip(gemini_env):
    result = grade(family="edit")
    assert result["pass"] is False and "need the source clip" in result["reason"]


def test_a_cache_hit_makes_no_call_and_imports_nothing_heavy(gemini_env):
    import os
    import subprocess
    import sys

    prefer(gemini_env, PROMPT, sha(CLEAN), sha(FLICKER))
    assert grade()["pass"] is True
    code = (
        "import sys, json\n"
        "sys.path.insert(0, 'assertions')\n"
        "from ab_judge import get_assert\n"
        f"r = get_assert({CLEAN!r}, {{'vars': {{'prompt': {PROMPT!r}, 'reference': {FLICKER!r}}}, 'config': {{}},"
        f" 'providerResponse': {{'metadata': {{'clip_path': {CLEAN!r}}}}}}})\n"
        "heavy = [m for m in ('google.genai', 'jsonschema', 'json_repair', 'numpy', 'av', 'cv2') if m in sys.modules]\n"
        "print(json.dumps([r['pass'], r['metadata']['cache_hit'], heavy]))\n"
    )
    env = {**os.environ, "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9"}  # nothing listens: a call would fail
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [True, True, []], out.stderr
    assert len(gemini_env.calls()) == 2


def test_python_face_returns_a_typed_verdict_or_not_judged(gemini_env):
    import reeljudge

    prefer(gemini_env, PROMPT, sha(CLEAN), sha(FLICKER), tag="flicker")
    v = reeljudge.judge_pair(PROMPT, CLEAN, FLICKER, media_resolution="low")
    assert v.judged and v.passed and v.winner == "clip_a" and v.consistent is True and v.tags == ("flicker",)
    assert v.ratings["clip_a"]["prompt_adherence"] == 5 and v.usage.requests == 2
    missing = reeljudge.judge_pair("an unscripted prompt", CLEAN, FLICKER)
    assert isinstance(missing, reeljudge.NotJudged) and missing.passed is False and missing.kind == "api_error"
    assert "order 1 of 2" in missing.reason
    with pytest.raises(Exception, match="did you mean 'orders'"):
        reeljudge.judge_pair(PROMPT, CLEAN, FLICKER, order=1)


def test_edit_tasks_show_the_source_first_and_rate_edit_precision(gemini_env):
    dims = (*DIMS, "edit_precision")
    prefer(gemini_env, PROMPT, sha(CLEAN), sha(FLICKER), tag="edit_not_applied", dims=dims)
    context = {"vars": {"prompt": PROMPT, "reference": FLICKER, "family": "edit", "source": FROZEN},
               "config": {}, "providerResponse": {"metadata": {"clip_path": CLEAN}}}
    result = get_assert(CLEAN, context)
    assert result["pass"] is True and result["namedScores"]["ab_new_edit_precision"] == 5.0
    first = gemini_env.calls()[0]
    assert shown_clips(gemini_env, first.body) == [sha(FROZEN), sha(CLEAN), sha(FLICKER)]
    assert "Source clip" in first.text and "Task family: edit" in first.text and "`edit_precision`" in first.text
