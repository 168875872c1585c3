"""The clip provider returns promptfoo's video object (media store or data: URL) and clip metadata."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import sys
from pathlib import Path

import pytest

from reeljudge.media.container import remux_to_mp4
from reeljudge.media.refs import portable_path
from reeljudge.providers.clips import call_api
from reeljudge.synth.clips import ClipSpec, make_clip
from support.paths import ROOT as REPO



@pytest.fixture()
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PROMPTFOO_CONFIG_DIR", str(tmp_path / "pf"))
    monkeypatch.delenv("PROMPTFOO_MEDIA_PATH", raising=False)
    return tmp_path / "pf"


def test_stores_clip_in_promptfoo_media_store(config_dir: Path) -> None:
    response = call_api("a bunny", {"config": {"base_dir": str(REPO)}}, {"vars": {"clip": "bbb_excerpt"}})
    video = response["video"]
    key = video["storageRef"]["key"]
    assert re.fullmatch(r"video/[0-9a-f]{12}\.mp4", key) and video["url"] == f"storageRef:{key}"
    stored = config_dir / "media" / key
    source = REPO / "datasets/clips/bbb_excerpt.mp4"
    assert stored.read_bytes() == source.read_bytes()
    sha = hashlib.sha256(source.read_bytes()).hexdigest()
    assert key == f"video/{sha[:12]}.mp4"
    assert json.loads((config_dir / "media/hash-index.json").read_text())[sha] == key
    assert json.loads(stored.with_name(stored.name + ".meta.json").read_text())["contentType"] == "video/mp4"
    assert video["format"] == "mp4" and video["thumbnail"].startswith("storageRef:image/")
    clip = response["metadata"]["clip"]
    assert clip["sha256"] == sha and clip["bytes"] == source.stat().st_size and clip["dataset_id"] == "bbb_excerpt"
    assert (clip["width"], clip["height"], clip["codec"], clip["fps"]) == (480, 270, "h264", 25.0)
    assert clip["duration"] == pytest.approx(5.28, abs=0.05) and clip["has_audio"] is True
    assert response["metadata"]["clip_path"] == portable_path(source) and response["output"] == "bbb_excerpt"
    assert not Path(response["metadata"]["clip_path"]).is_absolute()  # results name no machine path


def test_data_url_delivery(tmp_path: Path, config_dir: Path) -> None:
    clip = make_clip(tmp_path / "small.mp4", ClipSpec(frames=12))
    response = call_api("", {"config": {"delivery": "data"}}, {"vars": {"clip": str(clip)}})
    url = response["video"]["url"]
    assert url.startswith("data:video/mp4;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == clip.read_bytes()
    assert "storageRef" not in response["video"] and not (config_dir / "media").exists()


def test_data_url_refuses_big_clips(tmp_path: Path, config_dir: Path) -> None:
    clip = make_clip(tmp_path / "small.mp4", ClipSpec(frames=12))
    response = call_api("", {"config": {"delivery": "data", "data_url_max_bytes": 100}}, {"vars": {"clip": str(clip)}})
    assert "too large for a data: URL" in response["error"]


def test_non_mp4_container_is_converted_for_the_viewer(tmp_path: Path, config_dir: Path) -> None:
    import av

    source = make_clip(tmp_path / "src.mp4", ClipSpec(frames=24))
    mkv = tmp_path / "clip.mkv"
    with av.open(str(source)) as src, av.open(str(mkv), "w") as dst:
        out = dst.add_stream_from_template(src.streams.video[0])
        for packet in src.demux(src.streams.video[0]):
            if packet.dts is not None:
                packet.stream = out
                dst.mux(packet)
    response = call_api("", {"config": {}}, {"vars": {"clip": str(mkv)}})
    key = response["video"]["storageRef"]["key"]
    assert re.fullmatch(r"video/[0-9a-f]{12}\.mp4", key) and response["metadata"]["clip"]["mime_type"] == "video/x-matroska"
    with av.open(str(config_dir / "media" / key)) as stored:
        assert stored.format.name.startswith("mov,mp4") and sum(1 for _ in stored.decode(video=0)) == 24


def test_remux_copies_packets(tmp_path: Path) -> None:
    import av

    source = make_clip(tmp_path / "src.mp4", ClipSpec(frames=24))
    remux_to_mp4(source, tmp_path / "copy.mp4")
    with av.open(str(tmp_path / "copy.mp4")) as copy:
        assert sum(1 for _ in copy.decode(video=0)) == 24


@pytest.mark.parametrize(
    "vars_, needle",
    [({}, "has no var 'clip'"), ({"clip": "missing.mp4"}, "file not found"), ({"clip": "  "}, "has no var 'clip'")],
)
def test_bad_vars_give_errors_naming_test_and_var(vars_: dict, needle: str, config_dir: Path, tmp_path: Path) -> None:
    response = call_api("", {"config": {"base_dir": str(tmp_path)}}, {"vars": vars_, "test": {"description": "case 7"}})
    assert needle in response["error"] and "case 7" in response["error"] and "clip" in response["error"]


def test_entry_file_delegates() -> None:
    sys.path.insert(0, str(REPO / "providers"))
    try:
        import clips as entry  # type: ignore[import-not-found]
    finally:
        sys.path.pop(0)
    assert entry.call_api is call_api
