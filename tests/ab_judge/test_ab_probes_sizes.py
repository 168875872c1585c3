"""The offline A/B judge (judge: probes) weighs a fault by how much of the clip it ruins and how bad it is,
on pairs built from the texture corpus.

What these pairs guard against, as the earlier rating did it: the temporal rating was the share of temporal probes
passed, 0.75 for any temporal fault (black for the whole clip, flicker over 83 %, a freeze over 33 %); a freeze was
tagged as the shake found beside it, identical new and reference clips "did not judge", and a clean brick pan lost to
a still clip with no ball (its false shake counted against it). The clips here are the test split's
brick wall (``D_bricks_pan2``: 38-px bricks, a 2 px/frame pan, 3 s at 24 fps) with faults planted
over a growing share of it.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from reeljudge.assertions.ab_judge import get_assert
from reeljudge.synth.clips import Fault, make_clip
from support.textures import texture_clips

pytestmark = pytest.mark.usefixtures("measure_once")  # each clip decoded once per process (tests/support/measure_once.py)

WALL = texture_clips("test")["D_bricks_pan2"]
BALL = replace(WALL.spec, object_px=3.0)
PROMPT = WALL.prompt
SIZES = {"small": (30, 10), "third": (24, 24), "most": (6, 60)}  # (first frame, frames); a flicker needs 5 swings to be one
FAULTS = {
    "black": lambda start, n: Fault("black", start, n),
    "freeze": lambda start, n: Fault("frozen", start, n),
    "flicker": lambda start, n: Fault("flicker", start, n, strength=0.5, hz=8.0),
}
CLIPS = {
    "clean": BALL,
    "still_no_ball": replace(BALL, pan_px=0.0, object_px=0.0),
    "black_all": BALL.with_faults(Fault("black", 0, 72)),
    "freeze_to_end": BALL.with_faults(Fault("frozen", 48, 24)),
    "flicker_weak_most": BALL.with_faults(Fault("flicker", 6, 60, strength=0.2, hz=8.0)),
    **{f"{kind}_{size}": BALL.with_faults(make(*SIZES[size])) for kind, make in FAULTS.items() for size in SIZES},
}


@pytest.fixture(scope="module")
def clips(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("sizes")
    return {name: make_clip(folder / f"{name}.mp4", spec, crf=21) for name, spec in CLIPS.items()}


def grade(clips: dict[str, Path], new: str, reference: str) -> dict:
    return get_assert(str(clips[new]), {"vars": {"prompt": PROMPT, "reference": str(clips[reference])},
                                        "config": {"judge": "probes"}, "test": {"description": "sizes"},
                                        "providerResponse": {"metadata": {"clip_path": str(clips[new])}}})


def temporal(result: dict, system: str = "new") -> float:
    return result["namedScores"][f"ab_probes_{system}_temporal_consistency"]


@pytest.mark.parametrize("kind", sorted(FAULTS))
def test_the_temporal_rating_falls_as_the_fault_grows(clips, kind):
    results = [grade(clips, f"{kind}_{size}", "clean") for size in ("small", "third", "most")]
    ratings = [temporal(r) for r in results]
    assert all(r["pass"] is False and r["metadata"]["winner"] == "reference" for r in results), [r["reason"] for r in results]
    assert 1.0 > ratings[0] > ratings[1] > ratings[2] >= 0.0, ratings
    assert all(temporal(r, "reference") == 1.0 for r in results)


def test_a_clip_black_throughout_rates_zero_and_a_weaker_flicker_weighs_less(clips):
    black = grade(clips, "black_all", "clean")
    assert temporal(black) == 0.0 and black["metadata"]["ruined_share"]["new"] == 1.0
    weak, strong = grade(clips, "flicker_weak_most", "clean"), grade(clips, "flicker_most", "clean")
    assert temporal(weak) > temporal(strong), (weak["metadata"]["fault_weights"], strong["metadata"]["fault_weights"])


@pytest.mark.parametrize("new, tags", [
    ("freeze_third", ["scene_reset"]),  # the picture stands still, then jumps ahead: time went on (teleporting)
    ("freeze_to_end", ["physics_break"]),  # the motion stops for good
    ("black_third", ["artifacts"]),
    ("black_all", ["artifacts"]),
    ("flicker_third", ["flicker"]),
])
def test_tags_name_the_fault_that_was_found(clips, new, tags):
    meta = grade(clips, new, "clean")["metadata"]
    assert [meta["primary_tag"], *meta["secondary_tags"]] == tags, meta["faults"]


@pytest.mark.parametrize("name, tag", [("clean", "tie_both_good"), ("freeze_third", "tie_both_flawed")])
def test_identical_new_and_reference_clips_are_a_judged_tie(clips, name, tag):
    result = grade(clips, name, name)
    meta = result["metadata"]
    assert meta["judged"] is True and meta["identical"] is True and meta["winner"] == "tie" and meta["primary_tag"] == tag
    assert result["pass"] is True and result["score"] == 0.5 and "the two clips are the same file" in result["reason"]
    assert meta["ratings"]["new"] == meta["ratings"]["reference"]


def test_a_clean_brick_pan_is_not_beaten_by_a_still_clip(clips):
    result = grade(clips, "clean", "still_no_ball")
    assert result["pass"] is True and result["metadata"]["winner"] == "tie", result["reason"]
    assert result["metadata"]["faults"]["new"] == {"temporal_consistency": [], "motion_physics": [], "technical": []}
    assert "prompt_adherence" in result["metadata"]["abstained"]  # the missing ball is for a judge that sees adherence
