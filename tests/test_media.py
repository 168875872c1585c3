"""The media layer resolves paths, dataset ids and remote URIs, and names the file when it refuses one."""

from __future__ import annotations

import hashlib
import json
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


#: files a test watches being opened (an audit hook cannot be removed: it records only these)
_WATCHED: dict[str, int] = {}
_HOOKED: list = []


def _count_opens(event: str, args: tuple) -> None:
    if event == "open" and isinstance(args[0], str) and args[0] in _WATCHED:
        _WATCHED[args[0]] += 1


@pytest.fixture
def large_clip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A 1.5 MB file (random bytes: the memo sees files, not video) whose opens are counted, settled 0.2 s."""
    import os
    import sys
    import time

    if not _HOOKED:
        sys.addaudithook(_count_opens)
        _HOOKED.append(_count_opens)
    monkeypatch.setenv("REELJUDGE_CACHE", "readwrite")
    path = tmp_path / "large.mp4"
    path.write_bytes(os.urandom(1_500_000))
    _WATCHED.clear()
    _WATCHED[str(path)] = 0
    time.sleep(0.2)
    return path


def _memo_records() -> list[dict]:
    import os

    from reeljudge.cache import JudgeCache

    return JudgeCache(os.environ["REELJUDGE_CACHE_DIR"]).entries("media.sha256")


def test_a_large_clips_hash_is_remembered_by_its_identity_and_not_read_again(large_clip: Path) -> None:
    from reeljudge.media.refs import content_ref, remembered_sha256

    truth = hashlib.sha256(large_clip.read_bytes()).hexdigest()
    _WATCHED[str(large_clip)] = 0
    assert remembered_sha256(large_clip, settle_s=0.1) == truth and _WATCHED[str(large_clip)] == 1
    records = _memo_records()
    assert [r["sha256"] for r in records] == [truth] and str(large_clip.parent) not in json.dumps(records)  # no path stored
    assert content_ref(resolve_media(large_clip)).sha256 == truth
    assert _WATCHED[str(large_clip)] == 1  # the second hash came from the cache


def test_a_rewrite_that_keeps_size_and_mtime_is_hashed_again(large_clip: Path) -> None:
    import os

    from reeljudge.media.refs import remembered_sha256

    first = remembered_sha256(large_clip, settle_s=0.1)
    stat = large_clip.stat()
    data = bytearray(large_clip.read_bytes())
    data[1000] ^= 0xFF
    large_clip.write_bytes(bytes(data))
    os.utime(large_clip, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # as cp -p or rsync -t would: same size and mtime
    assert large_clip.stat().st_size == stat.st_size and large_clip.stat().st_mtime_ns == stat.st_mtime_ns
    again = remembered_sha256(large_clip, settle_s=0.1)
    assert again == hashlib.sha256(bytes(data)).hexdigest() != first  # the change time moved: a new identity


def test_a_hash_is_not_remembered_for_a_file_too_fresh_or_small_or_with_the_cache_off(
        large_clip: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from reeljudge.media.refs import MEMO_MIN_BYTES, content_ref, remembered_sha256

    remembered_sha256(large_clip, settle_s=60)  # changed within the last minute: a write in its clock tick could hide
    small = tmp_path / "small.mp4"
    small.write_bytes(b"x" * (MEMO_MIN_BYTES - 1))
    content_ref(resolve_media(small))
    for mode in ("off", "replay"):
        monkeypatch.setenv("REELJUDGE_CACHE", mode)
        assert remembered_sha256(large_clip, settle_s=0.1) == hashlib.sha256(large_clip.read_bytes()).hexdigest()
    assert _memo_records() == []
