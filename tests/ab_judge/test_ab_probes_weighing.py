"""The offline A/B judge weighs faults by how much of the clip they ruin, on generated clips.

What it guards against: with faults counted per group, a black clip against one with a 0.8 s freeze was
"tie_both_flawed", 0.5, PASS.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import reeljudge
from reeljudge.assertions.ab_judge import get_assert
from reeljudge.ab_judge.probes_judge import compare_probes
from reeljudge.probes.report import ProbeResult, ProbesVerdict
from reeljudge.synth.clips import ClipSpec, Fault, make_clip

pytestmark = pytest.mark.usefixtures("measure_once")  # each clip decoded once per process (tests/support/measure_once.py)

PROMPT = "A red ball rolls past a textured wall while the camera pans; one continuous shot."
BASE = ClipSpec(frames=72, fps=24, grain=1.5)  # 3 s
CLIPS = {
    "black": BASE.with_faults(Fault("black", 0, 72)),
    "freeze": BASE.with_faults(Fault("frozen", 30, 19)),  # 0.8 s
    "flicker": BASE.with_faults(Fault("flicker", 24, 24, hz=8)),
    "cut": BASE.with_faults(Fault("cut", 36)),
    "frozen_most": BASE.with_faults(Fault("frozen", 10, 50)),
}


@pytest.fixture(scope="module")
def clips(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("weighing")
    return {name: make_clip(folder / f"{name}.mp4", spec) for name, spec in CLIPS.items()}


def grade(clips: dict[str, Path], new: str, reference: str) -> dict:
    return get_assert(str(clips[new]), {"vars": {"prompt": PROMPT, "reference": str(clips[reference])},
                                        "config": {"judge": "probes"}, "test": {"description": "weighing"},
                                        "providerResponse": {"metadata": {"clip_path": str(clips[new])}}})


def test_the_probes_say_how_much_of_each_clip_a_fault_ruins(clips):
    shares = {name: {r.name: r.details["ruined_share"] for r in reeljudge.run_probes(path, prompt=PROMPT).failed}
              for name, path in clips.items()}
    assert shares["black"] == {"black_frames": 1.0}
    assert 0.25 <= shares["freeze"]["frozen_frames"] <= 0.3  # 19 planted frames of 72 (+1 at the run's start)
    assert 0.3 <= shares["flicker"]["flicker"] <= 0.4
    assert shares["cut"] == {"scene_cuts": 0.5}  # a cut at the middle: half the clip is not its main shot
    assert shares["frozen_most"]["frozen_frames"] > 0.5


def test_a_black_clip_loses_to_a_reference_with_a_freeze(clips):
    result = grade(clips, "black", "freeze")
    assert result["pass"] is False and result["score"] == 0.0, result["reason"]
    assert result["metadata"]["winner"] == "reference" and result["metadata"]["primary_tag"] == "artifacts"
    assert "the new clip is black or frozen for 100% of its length" in result["reason"]
    assert result["metadata"]["ruined_share"]["new"] == 1.0
    assert grade(clips, "freeze", "black")["pass"] is True  # and the other way round


@pytest.mark.parametrize("new, reference, winner, tag", [
    ("black", "flicker", "reference", "artifacts"),
    # frozen for most of its length, then the picture jumps ahead (a scene reset, not a physics break)
    ("frozen_most", "flicker", "reference", "scene_reset"),
    ("cut", "freeze", "reference", "scene_reset"),  # half the clip another shot vs 0.8 s frozen
    ("black", "frozen_most", "reference", "artifacts"),  # both ruined: the heavier loses
])
def test_heavier_faults_lose(clips, new, reference, winner, tag):
    v = reeljudge.judge_pair(PROMPT, str(clips[new]), str(clips[reference]), judge="probes")
    winner_name = {"new": "clip_a", "reference": "clip_b"}[winner]
    assert (v.winner, v.primary_tag) == (winner_name, tag), (v.weights, v.fault_weights)


def _verdict(**failed: float | None) -> ProbesVerdict:
    names = ("technical", "black_frames", "frozen_frames", "scene_cuts", "flicker", "dynamic_degree",
             "camera_shake", "motion_smoothness")
    return ProbesVerdict([ProbeResult(n, n not in failed, 1.0, "x",
                                      details={} if failed.get(n) is None else {"ruined_share": failed[n]}) for n in names])


def test_faults_of_like_weight_tie_and_a_ruined_clip_loses_to_heavier_lesser_faults():
    like = compare_probes(("x", "y"), (_verdict(flicker=0.25), _verdict(frozen_frames=0.2)), "text-to-video")
    assert (like.winner, like.primary_tag) == ("tie", "tie_both_flawed") and like.weighing() == "faults of like weight"
    heavier = compare_probes(("x", "y"), (_verdict(flicker=0.45), _verdict(frozen_frames=0.2)), "text-to-video")
    assert heavier.winner == "y" and heavier.decided_by == "temporal_consistency"
    # flicker over the whole clip and a cut weigh 1.5, a clip frozen for 60 % weighs 0.6: the frozen clip still loses
    ruined = compare_probes(("x", "y"), (_verdict(flicker=1.0, scene_cuts=0.5), _verdict(frozen_frames=0.6)), "text-to-video")
    assert ruined.winner == "x" and ruined.primary_tag == "physics_break"
    # a fault, however light, still loses to no fault in its group
    light = compare_probes(("x", "y"), (_verdict(), _verdict(scene_cuts=0.03)), "text-to-video")
    assert light.winner == "x" and light.primary_tag == "scene_reset"


def test_an_all_black_clip_is_described_as_black_not_cut_or_coloured(clips):
    found = reeljudge.run_probes(clips["black"], prompt=PROMPT).by_name()
    assert found["black_frames"].reason == "the whole clip is black: all 72 analysed frames"
    assert found["black_and_white"].reason == "colour not judged: every analysed frame is black"
    assert found["black_frames"].passed is False and found["black_and_white"].passed is True
    part = reeljudge.run_probes(clips["black"], prompt=PROMPT, black_min_frames=1, max_frames=40).by_name()
    assert "whole clip" in part["black_frames"].reason  # the analysed frames are the clip the probes saw
