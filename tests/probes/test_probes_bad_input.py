"""Bad input gives a clear, failing result naming the test, the var and the problem; never a crash."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from reeljudge.assertions.video_probes import get_assert
from reeljudge.synth.clips import BASE, ClipSpec, make_clip, write_clip


def grade(path: Path | str, description: str = "bad input case", **config) -> dict:
    context = {"vars": {"clip": str(path), "prompt": "a ball"}, "test": {"description": description}, "config": config}
    return get_assert("", context)


def assert_clear_failure(result: dict, *needles: str) -> None:
    assert result["pass"] is False and result["score"] == 0.0
    for needle in ("bad input case", "var 'clip'", *needles):
        assert needle in result["reason"], result["reason"]


def test_missing_file(tmp_path: Path) -> None:
    assert_clear_failure(grade(tmp_path / "absent.mp4"), "absent.mp4", "file not found")


def test_zero_bytes(tmp_path: Path) -> None:
    (tmp_path / "empty.mp4").write_bytes(b"")
    assert_clear_failure(grade(tmp_path / "empty.mp4"), "empty.mp4", "0 bytes")


def test_not_a_video(tmp_path: Path) -> None:
    (tmp_path / "notes.mp4").write_text("this is not a video\n" * 50)
    assert_clear_failure(grade(tmp_path / "notes.mp4"), "notes.mp4", "not a decodable media file")


def test_unsupported_extension(tmp_path: Path) -> None:
    (tmp_path / "clip.txt").write_text("x")
    assert_clear_failure(grade(tmp_path / "clip.txt"), "unsupported media type '.txt'")


def test_no_clip_named() -> None:
    result = get_assert("", {"vars": {"prompt": "a ball"}, "test": {"description": "bad input case"}, "config": {"var": "video"}})
    assert result["pass"] is False and "has no var 'video'" in result["reason"] and "bad input case" in result["reason"]


def test_audio_only(tmp_path: Path) -> None:
    import av

    path = tmp_path / "voice.mp4"
    with av.open(str(path), "w") as container:
        stream = container.add_stream("aac", rate=16000, layout="mono")
        for start in range(0, 16000, 1024):
            frame = av.AudioFrame.from_ndarray(np.zeros((1, 1024), np.float32), format="fltp", layout="mono")
            frame.sample_rate, frame.pts = 16000, start
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    assert_clear_failure(grade(path), "voice.mp4", "no video stream", "audio")


def test_truncated(tmp_path: Path) -> None:
    whole = make_clip(tmp_path / "whole.mp4", BASE)
    cut = tmp_path / "truncated.mp4"
    data = whole.read_bytes()
    cut.write_bytes(data[: int(len(data) * 0.55)])
    result = grade(cut)
    assert result["pass"] is False
    technical = result["metadata"]["probes"]["technical"]
    assert technical["passed"] is False and "truncated" in result["metadata"]["breakdown"]["technical"], result["reason"]
    assert "truncated" in result["reason"]


def test_variable_frame_rate_is_reported(tmp_path: Path) -> None:
    spec = ClipSpec(frames=48)
    steps = [40 if i % 3 else 100 for i in range(spec.frames)]
    pts = np.concatenate([[0], np.cumsum(steps)[:-1]]).astype(int)
    path = write_clip(tmp_path / "vfr.mp4", __import__("reeljudge.synth.clips", fromlist=["render"]).render(spec),
                      fps=25, pts_ms=list(pts))
    result = grade(path)
    assert ("variable frame rate" in result["metadata"]["breakdown"]["technical"]
            and result["metadata"]["probes"]["technical"]["passed"] is True)
    strict = grade(path, allow_vfr=False)
    assert (strict["metadata"]["probes"]["technical"]["passed"] is False
            and "variable frame rate" in strict["metadata"]["breakdown"]["technical"])


def test_4k_is_analysed_at_reduced_size(tmp_path: Path) -> None:
    spec = ClipSpec(width=3840, height=2160, frames=3, fps=24, texture=False, pan_px=40, object_px=60)  # 4k; few frames
    path = make_clip(tmp_path / "uhd.mp4", spec, crf=40)
    result = grade(path, probes=["technical", "black_frames"])
    info = result["metadata"]["clip_info"]
    assert (info["width"], info["height"]) == (3840, 2160)
    assert min(info["analysis_width"], info["analysis_height"]) == 256
    assert result["pass"] is True, result["reason"]


def test_ten_minute_clip_is_bounded_and_says_so(tmp_path: Path) -> None:
    frames = 600 * 2  # 10 minutes at 2 fps, tiny frames: cheap to make, long to play
    tiny = np.zeros((32, 32, 3), np.uint8)
    path = write_clip(tmp_path / "long.mp4", (tiny + (i % 200) for i in range(frames)), fps=2, gop=600)
    result = grade(path, probes=["technical", "black_frames"])
    info = result["metadata"]["clip_info"]
    assert info["declared_duration"] == pytest.approx(600, abs=1)
    assert info["decoded_frames"] < frames and "max_seconds=150" in result["metadata"]["bounded"]
    assert "analysed the first 150 s" in result["metadata"]["breakdown"]["technical"]
    # the tail check found the end, so not truncated
    assert result["metadata"]["probes"]["technical"]["passed"] is True, result["reason"]


def test_expect_fail_never_turns_a_probe_that_did_not_run_into_a_pass(tmp_path: Path) -> None:
    result = grade(tmp_path / "absent.mp4", expect_fail=True)
    assert result["pass"] is False and "file not found" in result["reason"]


def test_expect_fail_passes_only_when_the_fault_is_found(tmp_path: Path) -> None:
    from reeljudge.synth.clips import FIXTURES

    black = make_clip(tmp_path / "black.mp4", FIXTURES["black"].spec)
    clean = make_clip(tmp_path / "clean.mp4", FIXTURES["clean"].spec)
    assert grade(black, probes=["black_frames"], expect_fail=True)["pass"] is True
    missed = grade(clean, probes=["black_frames"], expect_fail=True)
    assert missed["pass"] is False and "a failing verdict was expected" in missed["reason"]


def _decode_threads() -> list:
    import threading

    return [t for t in threading.enumerate() if t.name == "reeljudge-decode"]


def test_decoding_thread_stops_on_caps_truncation_and_analysis_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from reeljudge.probes import ProbeOptions
    from reeljudge.probes import signals as signals_module

    whole = make_clip(tmp_path / "whole.mp4", BASE)
    capped = signals_module.measure(whole, ProbeOptions.of(max_frames=5))
    assert capped.count == 5 and "max_frames=5" in capped.info.capped and not _decode_threads()
    cut = tmp_path / "truncated.mp4"
    cut.write_bytes(whole.read_bytes()[: int(whole.stat().st_size * 0.55)])
    signals_module.measure(cut)
    assert not _decode_threads()

    def broken(self, t: float, packed: object) -> None:
        raise RuntimeError("analysis bug")

    monkeypatch.setattr(signals_module._FrameAnalyser, "add", broken)
    with pytest.raises(RuntimeError, match="analysis bug"):
        signals_module.measure(whole)
    assert not _decode_threads()


def test_only_property_probes_selected_is_not_a_judgement(tmp_path: Path) -> None:
    from reeljudge.synth.clips import FIXTURES

    still = make_clip(tmp_path / "still.mp4", FIXTURES["static"].spec)
    for config in ({"probes": ["dynamic_degree"]}, {"probes": ["dynamic_degree"], "expect_fail": True}):
        result = grade(still, **config)
        assert result["pass"] is False and "nothing was checked" in result["reason"] and "expect_motion" in result["reason"]
    required = grade(still, probes=["dynamic_degree"], expect_motion=True, expect_fail=True)
    assert required["pass"] is True and "no motion" in required["reason"]
