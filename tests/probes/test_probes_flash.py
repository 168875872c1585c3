"""Flashes are not cuts: a one-frame and a three-frame flash in a continuous shot are one flash fact
each and the clip passes every probe; a cut that comes back to the first shot is still a scene reset.
The scenes are those where a flash makes an abrupt change at all (in a fast textured pan the
content detector's neighbours already absorb it).

Clips are generated (``reeljudge.synth.clips``): a bright flash at strength 1.33 whitens the
frame to saturation (a camera flash, lightning), the three-frame one decays over its frames.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reeljudge.probes import probe_clip
from reeljudge.synth.clips import ClipSpec, Fault, make_clip

ONE_SHOT = "one continuous shot of a landscape, the camera drifts slowly"
SCENES = {
    "slow_pan": ClipSpec(pan_px=0.5, object_px=1.0),
    "locked_off": ClipSpec(pan_px=0.0, object_px=1.0, grain=2.0),
    "flat_animation": ClipSpec(scene="flat", pan_px=1.0, object_px=2.0),
    "night": ClipSpec(scene="night", pan_px=0.5),
    "slow_pan_30fps": ClipSpec(fps=30, frames=90, pan_px=0.5, object_px=1.0, grain=2.0),
}
FLASHES = {"one_frame": Fault("flash", 30, 1, strength=1.33), "three_frames": Fault("flash", 30, 3, strength=1.33)}


def probe(tmp_path: Path, name: str, spec: ClipSpec) -> dict:
    path = make_clip(tmp_path / f"{name}.mp4", spec)
    return {r.name: r for r in probe_clip(path, prompt=ONE_SHOT)}


@pytest.mark.parametrize("flash", sorted(FLASHES))
@pytest.mark.parametrize("scene", sorted(SCENES))
def test_a_flash_in_a_continuous_shot_is_one_flash_fact_not_a_cut(tmp_path, scene, flash):
    fault = FLASHES[flash]
    results = probe(tmp_path, f"{scene}_{flash}", SCENES[scene].with_faults(fault))
    cuts = results["scene_cuts"]
    assert cuts.passed and cuts.details["cuts"] == [], cuts.reason
    assert [(f["start_frame"], f["end_frame"]) for f in cuts.details["flashes"]] == [(fault.start, fault.end)], cuts.reason
    assert "no scene cuts" in cuts.reason and "1 flash(es), the same shot before and after (not cuts)" in cuts.reason
    assert {n: r.reason for n, r in results.items() if r.gating and not r.passed} == {}


@pytest.mark.parametrize("scene, back_after", [("pan", 3), ("pan", 12), ("locked_off", 3), ("locked_off", 12)])
def test_a_cut_that_comes_back_to_the_first_shot_is_a_scene_reset(tmp_path, scene, back_after):
    spec = ClipSpec(grain=2.0) if scene == "pan" else SCENES["locked_off"]
    results = probe(tmp_path, f"{scene}_back_{back_after}", spec.with_faults(Fault("cut", 30), Fault("cut", 30 + back_after)))
    cuts = results["scene_cuts"]
    assert not cuts.passed and cuts.details["flashes"] == []
    assert [c["start_frame"] for c in cuts.details["cuts"]] == [30, 30 + back_after]
    assert cuts.reason.startswith("scene reset / teleporting: 2 cut(s) in a one-shot clip at frame 30")


def test_a_flash_and_a_cut_in_one_clip_are_told_apart(tmp_path):
    spec = SCENES["slow_pan_30fps"].with_faults(Fault("flash", 30, 1, strength=1.33), Fault("cut", 60))
    cuts = probe(tmp_path, "flash_and_cut", spec)["scene_cuts"]
    assert not cuts.passed and [c["start_frame"] for c in cuts.details["cuts"]] == [60]
    assert [(f["start_frame"], f["end_frame"]) for f in cuts.details["flashes"]] == [(30, 30)]
    assert "1 cut(s) in a one-shot clip at frame 60" in cuts.reason and "flash(es)" in cuts.reason


def test_without_the_flash_rule_the_same_clip_has_two_cuts(tmp_path):
    """The failure the issue reports, kept visible: with flash_max_s 0 the flash is cut in and cut out."""
    from reeljudge.probes import ProbeOptions

    path = make_clip(tmp_path / "flash.mp4", SCENES["slow_pan"].with_faults(FLASHES["one_frame"]))
    (old,) = probe_clip(path, prompt=ONE_SHOT, options=ProbeOptions.of(probes=("scene_cuts",), flash_max_s=0.0))
    assert not old.passed and [c["start_frame"] for c in old.details["cuts"]] == [30, 31]
