"""The fixture generator's encoder settings reach the encoder (PyAV 18 shares one options dict)."""

from __future__ import annotations

from pathlib import Path

from reeljudge.synth.clips import BASE, make_clip


def _keyframes_and_reorder(path: Path) -> tuple[list[int], bool]:
    import av

    with av.open(str(path)) as container:
        frames = list(container.decode(video=0))
    keys = [i for i, f in enumerate(frames) if f.key_frame]
    with av.open(str(path)) as container:
        packets = [p for p in container.demux(video=0) if p.size]
    reordered = any(p.pts != p.dts for p in packets[1:])  # B-frames reorder: pts run ahead of dts
    return keys, reordered


def test_crf_gop_and_bframe_settings_are_applied(tmp_path: Path) -> None:
    fine = make_clip(tmp_path / "fine.mp4", BASE, crf=12, gop=24)
    coarse = make_clip(tmp_path / "coarse.mp4", BASE, crf=40, gop=24)
    assert fine.stat().st_size > 3 * coarse.stat().st_size  # crf reached x264
    keys, reordered = _keyframes_and_reorder(fine)
    assert keys == [0, 24, 48]  # gop reached x264 (its default would be 250)
    assert not reordered  # bf=0 reached x264 (its default is 3 B-frames)
