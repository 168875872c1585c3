"""The gecko assertion end to end against the fake server: question_set, filter, VQA, scores, costs."""

from __future__ import annotations



from reeljudge.assertions.gecko import get_assert
from support.gecko_scripts import script_prompt
from support.paths import ROOT

CLIP = str(ROOT / "datasets" / "clips" / "gen_clean.mp4")
PROMPT = "A red kite flying over a green meadow while clouds drift"


def ctx(prompt=PROMPT, media=CLIP, **config):
    return {"vars": {"prompt": prompt, "video": media}, "config": config, "test": {"description": "case"}}


def test_matched_prompt_scores_with_tags_questions_and_dropped_question(gemini_env):
    kept = script_prompt(gemini_env, PROMPT, matched=True)
    result = get_assert(CLIP, ctx())
    assert result["pass"] is True, result["reason"]
    assert result["score"] == 1.0
    named = result["namedScores"]
    assert named["gecko"] == 1.0 and named["gecko_coverage"] == 1.0
    assert {k for k in named if k not in ("gecko", "gecko_coverage")} == {f"gecko_{q.tag}" for q in kept}
    statuses = [q["status"] for q in result["metadata"]["questions"]]
    assert statuses.count("kept") == len(kept) and statuses.count("dropped") == 1 and "componentResults" not in result
    assert list(result["metadata"]["breakdown"]) == [q["name"] for q in result["metadata"]["questions"]]
    assert result["reason"].startswith("PASS gecko 1.00") and result["reason"].count("\n") == len(kept) + 1
    dropped = result["metadata"]["questions_dropped"]
    assert dropped[0]["dropped_by"] == "not_supported_by_prompt"
    assert len(gemini_env.calls()) == 3  # question_set, filter, VQA
    assert result["tokensUsed"]["numRequests"] == 3


def test_counter_prompt_scores_low_and_passes_only_with_expect_mismatch(gemini_env):
    script_prompt(gemini_env, PROMPT, matched=False)
    low = get_assert(CLIP, ctx())
    assert low["pass"] is False and low["score"] < 0.5
    assert get_assert(CLIP, ctx(expect="mismatch"))["pass"] is True
