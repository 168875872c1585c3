"""A clip shorter than a probe needs is "too short to judge" for that probe: never a pass.

A 1-frame and a 2-frame clip passed all seven checks ("no frozen playback in 1 analysed frames"): a
freeze, a cut, flicker or shake cannot show in so few frames, so a pass said nothing. Each probe's row
in the probe table says how many analysed frames it needs (from its own options); on a shorter clip
its result fails with that reason, and the assertion fails with it. The probes that a single frame
settles (technical facts, a black frame, colour) still judge it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from reeljudge.assertions.video_probes import get_assert
from reeljudge.probes import ProbeOptions, probe_clip
from reeljudge.synth.encode import write_clip

TEMPORAL = {"frozen_frames": 6, "scene_cuts": 3, "flicker": 6, "camera_shake": 6}  # frames each needs by default


def _clip(folder: Path, frames: int) -> Path:
    """A colourful noise clip of ``frames`` frames (320×180, 24 fps)."""
    rng = np.random.default_rng(frames)
    pictures = [np.clip(rng.normal(120, 40, (180, 320, 3)), 0, 255).astype(np.uint8) for _ in range(frames)]
    return write_clip(folder / f"short_{frames}.mp4", pictures)


@pytest.fixture(scope="module")
def clips(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    folder = tmp_path_factory.mktemp("short")
    return {n: _clip(folder, n) for n in (1, 2, 5, 6)}


@pytest.mark.parametrize("frames", [1, 2])
def test_a_one_or_two_frame_clip_is_too_short_for_every_probe_that_reads_time(clips: dict[int, Path], frames: int) -> None:
    verdict = probe_clip(clips[frames])
    results = verdict.by_name()
    assert not verdict.passed
    assert {r.name for r in verdict.failed} == set(TEMPORAL)
    for name, needed in TEMPORAL.items():
        assert results[name].reason.startswith(f"too short to judge: {frames} analysed frame(s), and {name} needs at least "
                                               f"{needed} ("), results[name].reason
        assert results[name].score == 0.0 and results[name].details["too_short"] is True
    for name in ("technical", "black_frames", "black_and_white"):  # one frame settles these
        assert results[name].passed and "too short" not in results[name].reason
    assert not results["dynamic_degree"].passed and not results["dynamic_degree"].gating  # a property: reported unjudged


def test_a_clip_one_frame_short_of_a_probe_is_too_short_and_one_at_its_need_is_judged(clips: dict[int, Path]) -> None:
    short, enough = probe_clip(clips[5]).by_name(), probe_clip(clips[6]).by_name()
    assert {n for n, r in short.items() if "too short" in r.reason} == {"frozen_frames", "flicker", "camera_shake"}
    assert short["scene_cuts"].passed
    assert [n for n, r in enough.items() if "too short" in r.reason] == []
    assert probe_clip(clips[6]).passed


def test_what_a_probe_needs_follows_its_options(clips: dict[int, Path]) -> None:
    results = probe_clip(clips[5], ProbeOptions.of(frozen_min_frames=2, shake_min_frames=2, flicker_min_swings=3)).by_name()
    assert results["frozen_frames"].passed and results["camera_shake"].passed and results["flicker"].passed
    results = probe_clip(clips[6], ProbeOptions.of(black_min_frames=8)).by_name()
    assert results["black_frames"].reason.startswith("too short to judge: 6 analysed frame(s), and black_frames needs at "
                                                     "least 8 (a black run of black_min_frames=8)")


def test_a_required_property_on_a_too_short_clip_fails_as_too_short(clips: dict[int, Path]) -> None:
    results = probe_clip(clips[2], ProbeOptions.of(expect_motion=True, min_smoothness=0.5,
                                                   probes=("dynamic_degree", "motion_smoothness"))).by_name()
    for name in ("dynamic_degree", "motion_smoothness"):
        assert results[name].gating and not results[name].passed
        assert results[name].reason.startswith("too short to judge: 2 analysed frame(s)"), results[name].reason


def test_the_assertion_fails_a_one_frame_clip_saying_it_is_too_short(clips: dict[int, Path]) -> None:
    result = get_assert("", {"vars": {"clip": str(clips[1]), "prompt": "a ball"}, "test": {"description": "one frame"},
                             "config": {}})
    assert result["pass"] is False
    assert "4 of 7 checks failed" in result["reason"] and "FAIL frozen_frames: too short to judge: 1 analysed" in result["reason"]
