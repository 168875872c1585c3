"""The generated corpus: no clean hard negative fails a probe, every fault is found at its frames.

One variant of ``support.corpus`` (24 fps, 256×144 plus one 1080p clip) is written once
per session; ``python -m benchmarks.probes_corpus`` runs all three variants and prints precision
and recall per probe.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reeljudge.probes import ProbeOptions, probe_clip
from support.corpus import corpus, detected_ranges, found_at

CLIPS = {clip.name: clip for clip in corpus(0)}
CLEAN = sorted(name for name, clip in CLIPS.items() if clip.group == "clean")
FAULTS = sorted(name for name, clip in CLIPS.items() if clip.group == "fault")


@pytest.fixture(scope="session")
def paths(corpus_v0: dict[str, Path]) -> dict[str, Path]:
    """The corpus's clips, written once per run (the root conftest's ``corpus_v0``)."""
    return corpus_v0


@pytest.fixture(scope="session")
def results(paths: dict[str, Path]) -> dict[str, dict]:
    out = {}
    for name, path in paths.items():
        if name != "truncated":
            out[name] = {r.name: r for r in probe_clip(path, prompt=CLIPS[name].prompt)}
    return out


def _failed(results: dict, name: str) -> dict[str, str]:
    return {n: r.reason for n, r in results[name].items() if r.gating and not r.passed}


def test_the_corpus_covers_the_hard_clean_classes_and_every_fault_class() -> None:
    wanted_clean = {"locked_off", "slow_motion", "flat_animation", "vfr_pan", "real_vp9", "fade_out", "dissolve", "flash",
                    "flash_one_frame", "flash_three_frames", "grain", "night", "pan_hold_1080p"}
    wanted_faults = {f"flicker_{hz}hz_{scene}" for hz in (3, 5, 8, 12) for scene in ("static", "moving")}
    wanted_faults |= {"cut", "cut_and_back", "frozen", "stall", "black", "shake", "truncated", "gray"}
    assert wanted_clean <= set(CLEAN) and wanted_faults <= set(FAULTS)


@pytest.mark.parametrize("name", CLEAN)
def test_clean_hard_negative_passes_every_probe(results: dict, name: str) -> None:
    assert _failed(results, name) == {}


@pytest.mark.parametrize("name", [n for n in FAULTS if n != "truncated"])
def test_fault_is_found_at_its_frames_and_nothing_else_fails(results: dict, name: str) -> None:
    clip = CLIPS[name]
    failed = _failed(results, name)
    assert set(failed) == {e.probe for e in clip.expected}, failed
    for expected in clip.expected:
        result = results[name][expected.probe]
        assert found_at(result.details, expected), (expected, detected_ranges(result.details), result.reason)
        if expected.probe not in {"technical", "black_and_white"}:
            assert " s" in result.reason and str(detected_ranges(result.details)[0][0]) in result.reason  # frames and times


def test_truncated_clip_fails_the_technical_probe(paths: dict[str, Path]) -> None:
    by_name = {r.name: r for r in probe_clip(paths["truncated"])}
    assert not by_name["technical"].passed and "truncated" in by_name["technical"].reason
    assert {n for n, r in by_name.items() if r.gating and not r.passed} == {"technical"}


@pytest.mark.parametrize("name", [n for n in FAULTS if any(e.hz for e in CLIPS[n].expected)])
def test_periodic_flicker_rate_is_reported(results: dict, name: str) -> None:
    made = next(e.hz for e in CLIPS[name].expected if e.hz)
    result = results[name]["flicker"]
    rates = [run["hz"] for run in result.details["runs"]]
    assert len(rates) == 1 and rates[0] == pytest.approx(made, rel=0.15), result.reason
    assert f"at {rates[0]:.1f} Hz" in result.reason


def test_aperiodic_flicker_is_found_without_a_rate(results: dict) -> None:
    result = results["flicker_aperiodic"]["flicker"]
    assert not result.passed and "aperiodic" in result.reason


def test_a_still_scene_is_a_property_not_a_freeze(results: dict) -> None:
    frozen = results["locked_off"]["frozen_frames"]
    assert frozen.passed and frozen.details["runs"] == [] and frozen.details["still_frames"] >= 60
    assert "a property of the shot" in frozen.reason
    motion = results["locked_off"]["dynamic_degree"]
    assert motion.passed and not motion.gating and motion.details["moves"] is False


def test_freeze_reasons_say_why_it_is_playback(results: dict) -> None:
    assert "after moving footage" in results["frozen_end"]["frozen_frames"].reason
    assert "jumps ahead" in results["frozen_object"]["frozen_frames"].reason
    assert "exact duplicates" in results["frozen"]["frozen_frames"].reason


def test_fades_are_reported_as_transitions(results: dict) -> None:
    black = results["fade_out"]["black_frames"]
    assert black.passed and black.details["runs"] == [] and black.details["fades"]
    assert black.details["fades"][0]["end_frame"] == 71 and "transition" in black.reason
    assert results["black_end_hard"]["black_frames"].details["fades"] == []


def test_motion_can_be_required_by_option_prompt_or_degree(paths: dict[str, Path]) -> None:
    still = paths["locked_off"]

    def motion(options: ProbeOptions, prompt: str = "a valley at dawn"):
        return next(r for r in probe_clip(still, options, prompt) if r.name == "dynamic_degree")

    assert not motion(ProbeOptions.of(expect_motion=True)).passed
    asks = motion(ProbeOptions.of(motion_from_prompt=True), "a horse gallops across the valley")
    assert not asks.passed and asks.gating and "prompt asks for movement" in asks.reason
    assert motion(ProbeOptions.of(motion_from_prompt=True), "a quiet valley at dawn").passed
    low = motion(ProbeOptions.of(min_dynamic_degree=0.3))
    assert not low.passed and "min_dynamic_degree" in low.reason
    moving = next(r for r in probe_clip(paths["clean_pan"], ProbeOptions.of(min_dynamic_degree=0.3)) if r.name
                  == "dynamic_degree")
    assert moving.passed and moving.details["degree"] >= 0.3


def test_vfr_pan_is_read_by_timestamps(results: dict) -> None:
    technical = results["vfr_pan"]["technical"]
    assert technical.details["variable_frame_rate"] is True
    assert results["vfr_pan"]["camera_shake"].passed and not results["shake_vfr"]["camera_shake"].passed
