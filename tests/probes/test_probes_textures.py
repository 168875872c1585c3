"""Repeating textures and slow pans: the texture corpus's test split passes clean and is caught faulty.

Generated and stock footage is full of bricks, tiles, stripes, fences, blinds, grass, leaves, crowds
and water, and slow pans are the commonest camera move. ``reeljudge.synth.texture_corpus`` makes,
by code, 15 such surfaces filmed clean (pans at 0.5–4 px/frame and at half their period, a tilt, a
zoom, a turn; with and without a ball rolling past) and with each of the six faults planted (black,
freeze, flicker, cut, shake, truncation). Its test split (setting D: 180 clips at 320×180, 24 fps,
never used to tune the probes) is written and probed once per test run (the root conftest's
``texture_test_split``); ``python -m benchmarks.probes_textures`` prints both splits' tables.
"""

from __future__ import annotations

import pytest

from support.corpus import detected_ranges, found_at
from support.textures import texture_clips

pytestmark = pytest.mark.slow

CLIPS = texture_clips("test")
CLEAN = sorted(name for name, clip in CLIPS.items() if clip.group == "clean")
FAULTS = sorted(name for name, clip in CLIPS.items() if clip.group == "fault")


def _failed(results: dict, name: str) -> dict[str, str]:
    return {probe: r["reason"] for probe, r in results[name].items() if r["gating"] and not r["passed"]}


def test_the_corpus_is_a_recipe_of_repeating_surfaces_with_a_held_out_split() -> None:
    train = texture_clips("train")
    assert len(CLIPS) >= 150 and len(train) >= 150
    assert {name[0] for name in CLIPS} == {"D"} and {name[0] for name in train} == {"A", "B", "C"}  # no setting in both
    families = {clip.family for clip in CLIPS.values()}
    assert families >= {"bricks", "tiles", "stripes_a", "stripes_d", "checkerboard", "fence", "blinds", "grass", "foliage",
                        "crowd", "waves", "real_grass", "real_leaves"}
    assert families == {clip.family for clip in train.values()}
    motions = {name.split("_", 1)[1].removeprefix(clip.family + "_") for name, clip in CLIPS.items() if clip.group == "clean"}
    assert ({"pan0.5", "pan1", "pan1.5", "pan2", "pan3", "pan4", "alias",
             "tilt_ball", "zoom", "rotate"} <= {m.removesuffix("_ball") for m in motions} | motions)
    planted = [p.probe for clip in CLIPS.values() for p in clip.planted]
    assert {probe: planted.count(probe) for probe in set(planted)} == {
        "black_frames": 5, "frozen_frames": 5, "flicker": 5, "scene_cuts": 5, "camera_shake": 5, "technical": 5}


@pytest.mark.parametrize("name", CLEAN)
def test_clean_clip_of_a_repeating_surface_passes_every_probe(texture_test_split: dict, name: str) -> None:
    assert _failed(texture_test_split, name) == {}, CLIPS[name].what


@pytest.mark.parametrize("name", FAULTS)
def test_planted_fault_is_found_at_its_frames_and_nothing_else_fails(texture_test_split: dict, name: str) -> None:
    clip = CLIPS[name]
    failed = _failed(texture_test_split, name)
    assert set(failed) == {p.probe for p in clip.planted}, (clip.what, failed)
    for planted in clip.planted:
        details = texture_test_split[name][planted.probe]["details"]
        assert found_at(details, planted), (clip.what, planted, detected_ranges(details), failed)


def test_reasons_say_what_the_camera_did(texture_test_split: dict) -> None:
    pan = texture_test_split["D_bricks_pan1"]
    assert "(steady pan 1.0 px/frame, the picture moving left)" in pan["frozen_frames"]["reason"]
    assert pan["camera_shake"]["reason"].endswith(": steady pan 1.0 px/frame, the picture moving left")
    assert "steady pan 1.0 px/frame" in pan["motion_smoothness"]["reason"]
    stripes = texture_test_split["D_stripes_a_pan1.5_ball"]["camera_shake"]["reason"]
    assert "across the texture's stripes (motion along them does not show)" in stripes
    shake = texture_test_split["D_bricks_shake"]["camera_shake"]
    assert "the camera jumps up to" in shake["reason"] and all(run["jitter_px"] > 2 for run in shake["details"]["runs"])
