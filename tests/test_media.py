"""The media layer resolves paths, dataset ids and remote URIs, and names the file when it refuses one."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from reeljudge.errors import MediaError
from reeljudge.media.refs import is_remote_ref, media_kind, mime_type, resolve_media, sha256_file

REPO = Path(__file__).resolve().parents[1]


def test_relative_path_resolves_against_base_dir(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "shot.MOV").write_bytes(b"x" * 10)
    ref = resolve_media("a/shot.MOV", base_dir=tmp_path)
    assert ref.path == tmp_path / "a" / "shot.MOV" and ref.kind == "video" and ref.mime_type == "video/quicktime"
    assert not ref.is_remote and ref.name == "shot.MOV"


def test_dataset_id_resolves_to_the_shipped_clip() -> None:
    ref = resolve_media("bbb_excerpt", base_dir=REPO)
    assert ref.dataset_id == "bbb_excerpt" and ref.path == REPO / "datasets/clips/bbb_excerpt.mp4"


@pytest.mark.parametrize("uri", ["gs://bucket/videos/boat.mp4", "https://example.org/a/b.webm?x=1"])
def test_remote_refs_are_recognised_not_fetched(uri: str) -> None:
    ref = resolve_media(uri)
    assert ref.is_remote and ref.uri == uri and ref.path is None and ref.kind == "video"
    assert is_remote_ref(uri)


def test_kinds_and_mime_types() -> None:
    assert media_kind("x.webp") == "image" and mime_type("x.jpeg") == "image/jpeg"
    assert media_kind("x.mkv") == "video" and mime_type("x.avi") == "video/x-msvideo"
    with pytest.raises(MediaError, match="unsupported media type '.gif'"):
        media_kind("x.gif")


def test_images_refused_where_video_is_needed(tmp_path: Path) -> None:
    (tmp_path / "still.png").write_bytes(b"\x89PNG....")
    with pytest.raises(MediaError, match="still.png: is image, expected video"):
        resolve_media(tmp_path / "still.png", kinds=("video",))


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda p: None, "file not found"),
        (lambda p: p.write_bytes(b""), "file is empty"),
        (lambda p: p.mkdir(), "is a directory"),
    ],
)
def test_unusable_files_named(tmp_path: Path, make, message: str) -> None:
    target = tmp_path / "clip.mp4"
    make(target)
    with pytest.raises(MediaError, match=message) as caught:
        resolve_media(target)
    assert "clip.mp4" in str(caught.value)


def test_unknown_dataset_id(tmp_path: Path) -> None:
    with pytest.raises(MediaError, match="no dataset clip with that id"):
        resolve_media("no_such_clip", base_dir=tmp_path)


def test_sha256_streams_whole_file(tmp_path: Path) -> None:
    data = bytes(range(256)) * 9000  # > one read chunk
    (tmp_path / "b.mp4").write_bytes(data)
    assert sha256_file(tmp_path / "b.mp4") == hashlib.sha256(data).hexdigest()
