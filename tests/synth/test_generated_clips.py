"""The committed generated clips (``datasets/clips/gen_*.mp4``) are what their generator writes today.

Compared by decoded content (frame count, size, every 16×16 block mean within ``BLOCK_TOLERANCE`` levels), not
by bytes: x264's output bytes differ between CPUs.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from reeljudge.synth.clips import FIXTURES, SUITE_FIXTURES, make_clip
from support.content import content_differences, frame_differences
from support.paths import ROOT

CLIPS = ROOT / "datasets" / "clips"


def test_every_committed_generated_clip_is_a_suite_fixture() -> None:
    committed = {p.stem.removeprefix("gen_") for p in CLIPS.glob("gen_*.mp4")}
    assert len(committed) >= 8 and committed == set(SUITE_FIXTURES)


@pytest.mark.parametrize("name", SUITE_FIXTURES)
def test_the_committed_clip_matches_its_generator(name: str, tmp_path: Path) -> None:
    fresh = make_clip(tmp_path / f"gen_{name}.mp4", FIXTURES[name].spec)
    assert content_differences(CLIPS / f"gen_{name}.mp4", fresh) == []


def test_a_changed_generator_is_caught(tmp_path: Path) -> None:
    """The disc one pixel a frame slower, or the grain's seed changed: both beyond the tolerance."""
    spec = FIXTURES["clean"].spec
    slower = make_clip(tmp_path / "slower.mp4", replace(spec, object_px=spec.object_px - 1.0))
    reseeded = make_clip(tmp_path / "reseeded.mp4", replace(spec, seed=spec.seed + 1))
    assert "differs by more than" in "".join(content_differences(CLIPS / "gen_clean.mp4", slower))
    assert "differs by more than" in "".join(content_differences(CLIPS / "gen_clean.mp4", reseeded))
    shorter = make_clip(tmp_path / "shorter.mp4", replace(spec, frames=spec.frames - 1))
    assert content_differences(CLIPS / "gen_clean.mp4", shorter)[0] == f"shorter.mp4: {spec.frames - 1} frames, not {spec.frames}"
    assert frame_differences(CLIPS / "gen_clean.mp4", CLIPS / "gen_clean.mp4") == ([], [0.0] * spec.frames)
