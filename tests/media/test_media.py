"""The media layer resolves paths, dataset ids and remote URIs, and names the file when it refuses one."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from reeljudge.errors import MediaError
from reeljudge.media.refs import is_remote_ref, media_kind, mime_type, resolve_media, sha256_file
from support.paths import ROOT as REPO



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


def _memo_records(folder: Path | None = None) -> list[dict]:
    """The memo records in ``folder`` (None: the default cache folder the environment names)."""
    from reeljudge.cache import JudgeCache

    return JudgeCache(folder or _default_folder()).entries("media.sha256")


def _default_folder() -> Path:
    """The default judge cache folder (conftest points REELJUDGE_CACHE_DIR at a fresh temporary folder per test)."""
    import os

    return Path(os.environ["REELJUDGE_CACHE_DIR"])


def _files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes (empty when the folder does not exist)."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


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

    remembered_sha256(large_clip, settle_s=10**9)  # changed within the settle time (a write in its clock tick could hide)
    small = tmp_path / "small.mp4"
    small.write_bytes(b"x" * (MEMO_MIN_BYTES - 1))
    content_ref(resolve_media(small))
    for mode in ("off", "replay"):
        monkeypatch.setenv("REELJUDGE_CACHE", mode)
        assert remembered_sha256(large_clip, settle_s=0.1) == hashlib.sha256(large_clip.read_bytes()).hexdigest()
    assert _memo_records() == []


# The memo follows the caller's cache: its folder and mode (a judge's cache_dir / cache), else the environment's.

def _padded(name: str, out: Path) -> Path:
    """A dataset clip made larger than MEMO_MIN_BYTES by a trailing ISO BMFF ``free`` box: still a valid, decodable MP4."""
    import struct

    from reeljudge.media.refs import MEMO_MIN_BYTES

    data = (REPO / "datasets" / "clips" / f"{name}.mp4").read_bytes()
    out.write_bytes(data + struct.pack(">I", MEMO_MIN_BYTES + 8) + b"free" + bytes(MEMO_MIN_BYTES))
    return out


@pytest.fixture(scope="module")
def settled_clips(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two large real clips (gen_clean and gen_flicker, padded), older than SETTLE_S: a judge call may remember them."""
    import time

    from reeljudge.media.refs import SETTLE_S

    folder = tmp_path_factory.mktemp("settled")
    clips = (_padded("gen_clean", folder / "clean.mp4"), _padded("gen_flicker", folder / "flicker.mp4"))
    time.sleep(SETTLE_S + 0.2)
    return clips


def _watch(*paths: Path) -> dict[str, str]:
    """Count from now on how often each of ``paths`` is opened; returns their true hashes (read before counting)."""
    import sys

    truths = {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}
    if not _HOOKED:
        sys.addaudithook(_count_opens)
        _HOOKED.append(_count_opens)
    _WATCHED.update({str(p): 0 for p in paths})
    return truths


def test_the_memo_lives_in_the_cache_the_caller_hands_in_and_nowhere_else(settled_clips, tmp_path: Path) -> None:
    from reeljudge.cache import JudgeCache
    from reeljudge.media.carriers import Where, open_reference
    from reeljudge.media.refs import content_ref

    clip = settled_clips[0]
    custom = tmp_path / "project-cache"
    truth = _watch(clip)[str(clip)]
    first = open_reference(str(clip), ("video",), Where(memo=JudgeCache(custom)))
    again = open_reference(str(clip), ("video",), Where(memo=JudgeCache(custom)))
    assert first.media.sha256 == again.media.sha256 == truth and _WATCHED[str(clip)] == 1  # the second from the memo
    assert [r["sha256"] for r in _memo_records(custom)] == [truth]
    assert _files(_default_folder()) == {}  # nothing in the default folder
    # no cache handed in (CLI paths, library runs): the environment's folder, as before
    assert content_ref(resolve_media(clip)).sha256 == truth and _WATCHED[str(clip)] == 2
    assert [r["sha256"] for r in _memo_records()] == [truth]
    assert content_ref(resolve_media(clip)).sha256 == truth and _WATCHED[str(clip)] == 2


def test_cache_off_hashes_every_time_and_writes_no_memo_anywhere(settled_clips, tmp_path: Path) -> None:
    from reeljudge.cache import JudgeCache
    from reeljudge.media.carriers import Where, open_reference

    clip = settled_clips[0]
    custom = tmp_path / "off-cache"
    truth = _watch(clip)[str(clip)]
    for _ in range(2):
        assert open_reference(str(clip), ("video",), Where(memo=JudgeCache(custom, "off"))).media.sha256 == truth
    assert _WATCHED[str(clip)] == 2
    assert _files(custom) == {} and _files(_default_folder()) == {}


def test_a_read_only_cache_reads_a_memo_and_writes_none(settled_clips, tmp_path: Path) -> None:
    from reeljudge.cache import JudgeCache
    from reeljudge.media.refs import content_ref, remembered_sha256

    clean, flicker = settled_clips
    ci_cache = tmp_path / "ci-cache"
    remembered_sha256(clean, JudgeCache(ci_cache))  # recorded by an earlier readwrite run
    recorded = _files(ci_cache)
    truths = _watch(clean, flicker)
    replay = JudgeCache(ci_cache, "replay")
    assert content_ref(resolve_media(clean), replay).sha256 == truths[str(clean)] and _WATCHED[str(clean)] == 0  # read
    assert content_ref(resolve_media(flicker), replay).sha256 == truths[str(flicker)] and _WATCHED[str(flicker)] == 1
    assert _files(ci_cache) == recorded and _files(_default_folder()) == {}  # nothing written, not even the new clip's


def _ab_probes(new: Path, reference: Path, **config) -> dict:
    """The A/B assertion, offline (judge: probes), on two clips with ``config``."""
    from reeljudge.assertions.ab_judge import get_assert

    return get_assert(str(new), {"vars": {"prompt": "A red ball rolls past a textured wall", "reference": str(reference)},
                                 "config": {"judge": "probes", **config}, "test": {"description": "memo"},
                                 "providerResponse": {"metadata": {"clip_path": str(new)}}})


def test_an_ab_judge_call_remembers_in_its_cache_dir_and_with_cache_off_nowhere(settled_clips, tmp_path: Path) -> None:
    clean, flicker = settled_clips
    truths = _watch(clean, flicker)
    custom = tmp_path / "per-test-cache"
    result = _ab_probes(clean, flicker, cache_dir=str(custom))
    assert result["pass"] is True and result["metadata"]["judged"] is True, result["reason"]
    assert sorted(r["sha256"] for r in _memo_records(custom)) == sorted(truths.values())
    assert _files(_default_folder()) == {}
    recorded = _files(custom)
    off = _ab_probes(clean, flicker, cache="off")
    assert off["pass"] is True and off["metadata"]["judged"] is True, off["reason"]
    assert _files(_default_folder()) == {} and _files(custom) == recorded


def test_gecko_keeps_the_memo_beside_its_replies_and_a_replay_reads_it_without_writing(
        settled_clips, tmp_path: Path, gemini_env) -> None:
    from support.fake_gemini import text_reply
    from reeljudge.assertions.gecko import get_assert
    from reeljudge.gecko.questions import Question
    from support.gecko_scripts import verdict_text

    questions = [Question("Is there a disc?", ["a) yes", "b) no"], "a", tag="object")]
    gemini_env.on("Answer every question", text_reply(verdict_text(questions, True)))
    qas = [{"question": q.question, "choices": q.choices, "answer": q.answer, "tag": q.tag} for q in questions]
    clip = settled_clips[0]
    custom = tmp_path / "gecko-cache"

    def grade(**config) -> dict:
        context = {"vars": {"prompt": "A disc over a texture", "video": str(clip), "qas": qas}, "config": config,
                   "test": {"description": "memo"}}
        return get_assert(str(clip), context)

    truth = _watch(clip)[str(clip)]
    first = grade(cache_dir=str(custom))
    assert first["pass"] is True and first["metadata"]["media"]["sha256"] == truth, first["reason"]
    assert [r["sha256"] for r in _memo_records(custom)] == [truth] and _files(_default_folder()) == {}
    recorded, calls = _files(custom), len(gemini_env.calls())
    _watch(clip)
    replayed = grade(cache="replay", cache_dir=str(custom))
    assert replayed["pass"] is True and replayed["metadata"]["cache_hit"] is True, replayed["reason"]
    assert _WATCHED[str(clip)] == 0 and len(gemini_env.calls()) == calls  # the hash from the memo: the clip not read
    assert _files(custom) == recorded and _files(_default_folder()) == {}


def test_a_data_uri_clip_is_decoded_into_the_callers_cache_folder(tmp_path: Path) -> None:
    """A ``data:`` clip of a judge with its own cache folder lands in that folder's downloads, not the default's."""
    import base64

    from reeljudge.cache import JudgeCache
    from reeljudge.media.carriers import Where, open_reference

    data = _padded("gen_clean", tmp_path / "clean.mp4").read_bytes()
    uri = "data:video/mp4;base64," + base64.b64encode(data).decode("ascii")
    custom = tmp_path / "project-cache"
    opened = open_reference(uri, ("video",), Where(memo=JudgeCache(custom, "readwrite")))
    assert opened.media.sha256 == hashlib.sha256(data).hexdigest()
    assert opened.media.ref.path is not None and opened.media.ref.path.is_relative_to(custom / "downloads")
    assert _files(_default_folder()) == {}
    # without a cache of the caller's, the environment's folder as before
    again = open_reference(uri, ("video",), Where())
    assert again.media.ref.path is not None and again.media.ref.path.is_relative_to(_default_folder() / "downloads")
