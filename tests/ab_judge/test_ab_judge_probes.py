"""The offline A/B judge (judge: probes): temporal and technical dimensions from the probes, adherence abstained."""

from __future__ import annotations


import pytest

import reeljudge
from reeljudge.assertions.ab_judge import get_assert
from reeljudge.ab_judge.probes_judge import compare_probes
from reeljudge.probes.report import ProbeResult, ProbesVerdict
from support.paths import ROOT

pytestmark = pytest.mark.usefixtures("measure_once")  # each clip decoded once per process (tests/support/measure_once.py)

CLIPS = ROOT / "datasets" / "clips"
PROMPT = "A red ball rolls past a textured wall while the camera pans; one continuous shot."


def grade(new: str, reference: str, **config):
    return get_assert(new, {"vars": {"prompt": PROMPT, "reference": str(CLIPS / f"{reference}.mp4")},
                            "config": {"judge": "probes", **config}, "test": {"description": "probes"},
                            "providerResponse": {"metadata": {"clip_path": str(CLIPS / f"{new}.mp4")}}})


def test_clean_clip_beats_a_flickering_one_and_adherence_is_not_judged(fake):
    result = grade("gen_clean", "gen_flicker")
    assert result["pass"] is True and result["score"] == 1.0
    meta = result["metadata"]
    assert meta["mode"] == "probes" and meta["judged"] is True and meta["decided_by"] == "temporal_consistency"
    assert meta["primary_tag"] == "flicker" and meta["faults"]["reference"]["temporal_consistency"] == ["flicker"]
    assert meta["abstained"] == ["prompt_adherence", "identity_consistency"]
    assert meta["dimensions"]["prompt_adherence"] == "not judged (abstained)"
    assert "not judged (abstained, the probes cannot see them): prompt_adherence, identity_consistency" in result["reason"]
    named = result["namedScores"]
    assert named["ab_probes_new_temporal_consistency"] == 1.0 and named["ab_probes_reference_temporal_consistency"] < 1.0
    assert not any("prompt_adherence" in k for k in named)  # never a guessed adherence score
    assert fake.requests == []  # no Gemini, no credentials needed


def test_two_clean_clips_tie_as_both_good_and_a_planted_fault_loses():
    tie = grade("gen_clean", "bbb_excerpt")
    assert tie["pass"] is True and tie["score"] == 0.5 and tie["metadata"]["primary_tag"] == "tie_both_good"
    assert grade("gen_clean", "bbb_excerpt", pass_on="win")["pass"] is False
    planted = grade("gen_cut", "gen_clean", expect_fail=True)
    assert planted["pass"] is True and "scene_reset" in planted["metadata"]["primary_tag"]


def test_a_clip_that_cannot_be_probed_fails_with_its_name(tmp_path):
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(b"\x00" * 2000)
    result = get_assert(str(broken), {"vars": {"prompt": PROMPT, "reference": str(CLIPS / "gen_clean.mp4")},
                                      "config": {"judge": "probes"},
                                      "providerResponse": {"metadata": {"clip_path": str(broken)}}})
    assert result["pass"] is False and "broken.mp4" in result["reason"] and result["metadata"]["judged"] is False


def _verdict(*failed: str) -> ProbesVerdict:
    names = ("technical", "black_frames", "frozen_frames", "scene_cuts", "flicker", "dynamic_degree",
             "camera_shake", "motion_smoothness")
    return ProbesVerdict([ProbeResult(n, n not in failed, 0.0 if n in failed else 1.0, f"{n} found" if n in failed else "ok")
                          for n in names])


@pytest.mark.parametrize("first, second, winner, decided_by, tags", [
    (("camera_shake",), ("flicker",), "x", "temporal_consistency", ("flicker",)),  # stability comes before realism
    (("flicker", "frozen_frames"), ("flicker",), "y", "temporal_consistency", ("flicker", "physics_break")),
    (("technical",), (), "y", "technical", ("artifacts",)),
    (("flicker",), ("scene_cuts",), "tie", None, ("tie_both_flawed",)),
    ((), (), "tie", None, ("tie_both_good",)),
])
def test_groups_decide_in_the_protocol_priority_order(first, second, winner, decided_by, tags):
    v = compare_probes(("x", "y"), (_verdict(*first), _verdict(*second)), "text-to-video")
    assert (v.winner, v.decided_by, v.tags) == (winner, decided_by, tags)


def test_python_face_probes_and_edit_abstains_edit_precision():
    v = reeljudge.judge_pair(PROMPT, str(CLIPS / "gen_clean.mp4"), str(CLIPS / "gen_black.mp4"), judge="probes")
    assert v.judged and v.winner == "clip_a" and v.passed and v.primary_tag == "artifacts"
    edit = compare_probes(("x", "y"), (_verdict(), _verdict()), "edit")
    assert "edit_precision" in edit.abstained
