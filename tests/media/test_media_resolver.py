"""The one media resolver: the documented order, every carrier, and each refusal ending in a failing,
explained result ("did not judge (media_error)" naming the test, the carrier and the problem)."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
from pathlib import Path

import pytest

from support.clip_server import ClipServer
from reeljudge.errors import BadInputError, MediaError
from reeljudge.promptfoo.clips import find_reference, locate_media, markdown_reference
from reeljudge.promptfoo.context import TestContext
from reeljudge.assertions.video_probes import get_assert as probes
from support.paths import ROOT

CLIPS = ROOT / "datasets" / "clips"
CLEAN = CLIPS / "gen_clean.mp4"
TEST = "resolver"


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def pf_dir(tmp_path, monkeypatch) -> Path:
    """promptfoo's config folder for this test (its blob and media stores live under it)."""
    folder = tmp_path / "promptfoo"
    monkeypatch.setenv("PROMPTFOO_CONFIG_DIR", str(folder))
    monkeypatch.delenv("PROMPTFOO_MEDIA_PATH", raising=False)
    return folder


def put_blob(pf_dir: Path, source: Path, mime: str = "video/mp4") -> str:
    """A blob laid out as promptfoo's filesystem blob store keeps it; its hash."""
    digest = sha(source)
    target = pf_dir / "blobs" / digest[:2] / digest[2:4] / digest
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    target.with_name(digest + ".meta.json").write_text(json.dumps({"mimeType": mime, "sizeBytes": source.stat().st_size}))
    return digest


def put_media(pf_dir: Path, source: Path, key: str) -> str:
    """A file in promptfoo's media store under ``key``."""
    target = pf_dir / "media" / key
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    return key


def veo_response(digest: str) -> dict:
    uri = f"promptfoo://blob/{digest}"
    return {"output": f"[Video: a red ball]({uri})",
            "video": {"blobRef": {"uri": uri, "hash": digest, "mimeType": "video/mp4"}, "url": uri}}


def ctx(response: dict | None = None, **vars_) -> dict:
    return {"vars": {"prompt": "a red ball", **vars_}, "providerResponse": response or {},
            "test": {"description": TEST}, "config": {}}


def refused(result: dict, *parts: str) -> None:
    """The result fails as not judged, naming the test, and says every one of ``parts``."""
    assert result["pass"] is False and result["metadata"]["judged"] is False, result
    assert result["reason"].startswith(f"FAIL video_probes did not judge (media_error) in test {TEST!r}: "), result["reason"]
    for part in parts:
        assert part in result["reason"], (part, result["reason"])


# --- the order -----------------------------------------------------------------------------------

def test_the_assertions_var_comes_first(pf_dir):
    digest = put_blob(pf_dir, CLEAN)
    found = find_reference(TestContext.of(ctx(veo_response(digest), take="gen_frozen")),
                           veo_response(digest)["output"], var="take")
    assert (found.ref, found.origin) == ("gen_frozen", "var 'take'")


def test_the_response_video_object_comes_before_markdown_and_default_vars(pf_dir):
    digest = put_blob(pf_dir, CLEAN)
    response = veo_response(digest)
    found = find_reference(TestContext.of(ctx(response, video="gen_frozen")), response["output"], var=None)
    assert found.ref == f"promptfoo://blob/{digest}" and found.origin == "the provider response's video.blobRef"
    sora = {"video": {"storageRef": {"key": "video/abc.mp4"}, "url": "storageRef:video/abc.mp4"}}
    assert find_reference(TestContext.of(ctx(sora)), "", var=None).ref == "storageRef:video/abc.mp4"
    assert (find_reference(TestContext.of(ctx({"video": {"url": "https://x.test/a.mp4"}})), "", var=None).origin
            == "the provider response's video.url")


def test_our_providers_clip_path_is_the_original_of_their_viewer_copy():
    response = {"metadata": {"clip_path": "datasets/clips/gen_clean.mp4"},
                "video": {"storageRef": {"key": "video/0123456789ab.mp4"}}}
    found = find_reference(TestContext.of(ctx(response)), "gen_clean", var=None)
    assert found.ref == "datasets/clips/gen_clean.mp4" and "clip_path" in found.origin


def test_markdown_comes_before_default_vars_which_come_before_a_one_line_output():
    md = "Here it is: ![a ball](clips/ball.png)"
    assert find_reference(TestContext.of(ctx(video="gen_frozen")), md, var=None).ref == "clips/ball.png"
    assert find_reference(TestContext.of(ctx(video="gen_frozen")), "gen_clean", var=None).ref == "gen_frozen"
    assert find_reference(TestContext.of(ctx()), "gen_clean", var=None).origin == "the provider output"
    with pytest.raises(BadInputError, match="names no clip or image"):
        find_reference(TestContext.of(ctx()), "two\nlines", var=None)


def test_markdown_links_to_pages_are_not_media_but_images_always_are():
    assert markdown_reference("see [the docs](https://example.org/guide) for more") is None
    assert markdown_reference("![](https://cdn.example.org/render?id=7)").ref == "https://cdn.example.org/render?id=7"
    same = "[Video: a](promptfoo://blob/" + "a" * 64 + ") and again [Video: a](promptfoo://blob/" + "a" * 64 + ")"
    assert markdown_reference(same).ref == "promptfoo://blob/" + "a" * 64  # the same link twice is one clip


def test_an_images_list_gives_its_one_image_and_refuses_several():
    png = "data:image/png;base64,iVBORw0KGgo="
    one = {"output": "![x](https://cdn.example.org/x.png)", "images": [{"data": png, "mimeType": "image/png"}]}
    found = find_reference(TestContext.of(ctx(one)), one["output"], var=None)
    assert (found.ref, found.origin, found.mime_hint) == (png, "the provider response's images[0]", "image/png")
    several = {"images": [{"data": png}, {"data": "https://cdn.example.org/2.png"}]}
    with pytest.raises(MediaError, match="has 2 different images: which one is ambiguous"):
        find_reference(TestContext.of(ctx(several)), "", var=None)
    assert find_reference(TestContext.of(ctx(several, video="gen_clean")), "", var=None, kinds=("video",)).ref == "gen_clean"


# --- carriers that work ----------------------------------------------------------------------------

def test_a_blob_is_read_verified_and_recorded_by_hash(pf_dir):
    digest = put_blob(pf_dir, CLEAN)
    response = veo_response(digest)
    result = probes(response["output"], ctx(response))
    assert result["pass"] is True, result["reason"]
    media = result["metadata"]["media"]
    assert media == {"carrier": "promptfoo-blob", "found_in": "the provider response's video.blobRef",
                     "file": f"promptfoo://blob/{digest}", "sha256": digest, "kind": "video", "mime_type": "video/mp4"}
    assert str(pf_dir) not in json.dumps(result)


def test_a_media_store_key_and_a_data_uri_and_a_file_uri(pf_dir, tmp_path):
    key = put_media(pf_dir, CLEAN, "video/0123456789ab.mp4")
    located = locate_media(TestContext.of(ctx()), f"[Video: x](storageRef:{key})", var=None, kinds=("video",))
    assert located.opened.carrier == "media-store" and located.media.sha256 == sha(CLEAN)
    uri = "data:video/mp4;base64," + base64.b64encode(CLEAN.read_bytes()).decode()
    located = locate_media(TestContext.of(ctx(clip=uri)), "", var=None, kinds=("video",))
    assert located.opened.carrier == "data-uri" and located.media.sha256 == sha(CLEAN)
    assert located.metadata()["file"] == f"sha256:{sha(CLEAN)}" and "base64" not in located.label
    located = locate_media(TestContext.of(ctx(clip="file://datasets/clips/gen_clean.mp4")), "", var=None,
                           kinds=("video",), base_dir=ROOT)
    assert (located.opened.carrier == "file"
            and located.metadata()["file"] in ("datasets/clips/gen_clean.mp4", f"sha256:{sha(CLEAN)}"))


def test_data_uris_and_urls_land_in_the_library_download_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("REELJUDGE_CACHE_DIR", str(tmp_path / "cache"))
    uri = "data:video/mp4;base64," + base64.b64encode(CLEAN.read_bytes()).decode()
    located = locate_media(TestContext.of(ctx(clip=uri)), "", var=None, kinds=("video",))
    assert located.media.ref.path == tmp_path / "cache" / "downloads" / "blobs" / f"{sha(CLEAN)}.mp4"
    with ClipServer(CLIPS) as server:
        url = f"{server.url}/clips/gen_clean.mp4"
        first = locate_media(TestContext.of(ctx(clip=url)), "", var=None, kinds=("video",))
        second = locate_media(TestContext.of(ctx(clip=url)), "", var=None, kinds=("video",))
    assert first.media.ref.path == located.media.ref.path == second.media.ref.path  # one cache, content-addressed
    assert server.requests == ["/clips/gen_clean.mp4"] and first.metadata()["file"] == url


def test_the_ab_judges_reference_may_be_any_carrier(pf_dir):
    from reeljudge.assertions.ab_judge import get_assert as ab_judge

    digest = put_blob(pf_dir, CLIPS / "gen_flicker.mp4")
    key = put_media(pf_dir, CLEAN, "video/0123456789ab.mp4")
    response = {"output": f"[Video: x](storageRef:{key})", "video": {"storageRef": {"key": key}}}
    context = {**ctx(response, reference=f"promptfoo://blob/{digest}"),
               "config": {"judge": "probes", "reference_var": "reference"}}
    result = ab_judge(response["output"], context)
    assert result["pass"] is True, result["reason"]
    assert result["metadata"]["media"]["new"]["carrier"] == "media-store"
    assert result["metadata"]["media"]["reference"] == {
        "carrier": "promptfoo-blob", "found_in": "the reference clip (var 'reference')", "file": f"promptfoo://blob/{digest}",
        "sha256": digest, "kind": "video", "mime_type": "video/mp4"}


def loaded(written: str, path: Path, image: bool = False) -> dict:
    """A test context as promptfoo hands it over for a var the test wrote as ``file://…``: the test keeps the
    reference, the rendered var holds the file (a video as raw base64, an image as a data: URI)."""
    data = base64.b64encode(path.read_bytes()).decode()
    context = ctx(video=f"data:image/png;base64,{data}" if image else data)
    context["test"] = {"description": TEST, "vars": {"prompt": "a red ball", "video": written}}
    return context


def test_a_file_var_promptfoo_loaded_is_judged_from_its_bytes_under_the_tests_own_name(tmp_path):
    """promptfoo reads a ``file://`` var from its config folder and passes the contents (was: OSError, file name too long)."""
    clip = tmp_path / "café clip (1).mp4"
    shutil.copyfile(CLIPS / "gen_flicker.mp4", clip)
    written = "file://clips/café clip (1).mp4"  # relative to a config folder this process does not know
    located = locate_media(TestContext.of(loaded(written, clip)), "", var="video", kinds=("video",))
    assert located.media.sha256 == sha(clip) and located.opened.carrier == "data-uri" and located.label == written
    assert located.metadata()["written"] == written and "loaded by promptfoo" in located.origin
    result = probes("", {**loaded(written, clip), "config": {"var": "video"}})
    assert result["pass"] is False and result["reason"].startswith(f"FAIL video probes on {written}: 1 of"), result["reason"]
    assert "FAIL flicker" in result["reason"] and result["metadata"]["media"]["sha256"] == sha(clip)
    found = find_reference(TestContext.of(loaded(written, clip)), "", var=None)  # the default var list too
    assert found.written == written and found.ref.startswith("data:video/mp4;base64,")


def test_a_loaded_image_var_keeps_promptfoos_data_uri_and_a_computed_var_is_used_as_rendered(tmp_path):
    import cv2
    import numpy as np

    image = tmp_path / "still.png"
    cv2.imwrite(str(image), np.full((16, 16, 3), 200, np.uint8))
    located = locate_media(TestContext.of(loaded("file://still.png", image, image=True)), "", var="video", kinds=("image",))
    assert located.media.sha256 == sha(image) and located.label == "file://still.png"
    # a var promptfoo computed from a file that is not media (a script's output, a text file's contents) is used
    # as rendered, as before: here a path
    context = ctx(video="datasets/clips/gen_clean.mp4")
    context["test"] = {"description": TEST, "vars": {"video": "file://pick_clip.py"}}
    located = locate_media(TestContext.of(context), "", var="video", kinds=("video",), base_dir=ROOT)
    assert located.opened.carrier == "file" and located.written == "" and located.media.sha256 == sha(CLEAN)


def test_base64_where_a_path_belongs_is_a_media_error_that_does_not_print_it(tmp_path):
    data = base64.b64encode(CLEAN.read_bytes()).decode()
    result = probes("", {**ctx(video=data), "config": {"var": "video"}})
    refused(result, "not a usable file path (File name too long)", f"({len(data):,} characters)")
    assert len(result["reason"]) < 600, result["reason"]


# --- refusals, each a failing, explained result --------------------------------------------------

def test_refused_a_blob_missing_from_the_store(pf_dir):
    digest = sha(CLEAN)
    (pf_dir / "blobs").mkdir(parents=True)
    response = veo_response(digest)
    refused(probes(response["output"], ctx(response)), "the provider response's video.blobRef (promptfoo-blob promptfoo://blob/",
            f"blob {digest[:12]}… is missing from promptfoo's blob store")


def test_refused_a_blob_whose_bytes_do_not_match_its_hash(pf_dir):
    digest = put_blob(pf_dir, CLEAN)
    blob = pf_dir / "blobs" / digest[:2] / digest[2:4] / digest
    blob.write_bytes((CLIPS / "gen_frozen.mp4").read_bytes())
    response = veo_response(digest)
    refused(probes(response["output"], ctx(response)), "promptfoo-blob", "hash mismatch", sha(CLIPS / "gen_frozen.mp4")[:12])


@pytest.mark.parametrize("key", ["../../outside.mp4", "/etc/passwd", "video/../../../x.mp4"])
def test_refused_a_storage_key_escaping_the_media_store(pf_dir, key):
    (pf_dir / "media").mkdir(parents=True)
    shutil.copyfile(CLEAN, pf_dir / "outside.mp4")
    response = {"output": "x", "video": {"storageRef": {"key": key}}}
    refused(probes("x", ctx(response)), "media-store", f"storage key {key!r} escapes promptfoo's media store", "refused")


def test_refused_a_missing_media_store_key(pf_dir):
    refused(probes("x", ctx({"video": {"storageRef": {"key": "video/ffffffffffff.mp4"}}})), "media-store",
            "is missing from promptfoo's media store")


@pytest.mark.parametrize("uri, problem", [
    ("data:text/plain;base64,aGVsbG8=", "text/plain is not a video or image we can judge"),
    ("data:video/mp4;base64,@@@not-base64@@@", "the base64 data does not decode"),
    ("data:image/png;base64,iVBORw0KGgo=", "is image (image/png), expected video"),
])
def test_refused_a_data_uri_that_is_not_a_usable_video(uri, problem):
    result = probes("", ctx(clip=uri))
    refused(result, "var 'clip' (data-uri data:", problem)
    assert "aGVsbG8" not in result["reason"] and "iVBOR" not in result["reason"]  # the payload is never echoed


def test_refused_a_url_that_answers_404(tmp_path):
    with ClipServer(CLIPS) as server:
        refused(probes("", ctx(clip=f"{server.url}/missing/gen_clean.mp4")), "var 'clip' (url http://127.0.0.1", "HTTP 404")


def test_refused_a_url_too_large_before_its_body_is_read(monkeypatch):
    monkeypatch.setenv("REELJUDGE_MAX_DOWNLOAD_BYTES", "1000")
    with ClipServer(CLIPS) as server:
        refused(probes("", ctx(clip=f"{server.url}/clips/gen_clean.mp4")), "(url ", "too large",
                f"announces {CLEAN.stat().st_size} bytes, over the 1000-byte limit")


def test_refused_a_url_that_times_out(monkeypatch):
    monkeypatch.setenv("REELJUDGE_DOWNLOAD_TIMEOUT_S", "0.3")
    monkeypatch.setenv("REELJUDGE_DOWNLOAD_DEADLINE_S", "1")
    with ClipServer(CLIPS) as server:
        refused(probes("", ctx(clip=f"{server.url}/stall/gen_clean.mp4")), "(url ", "timed out")


def test_refused_markdown_with_two_different_media_links(pf_dir):
    digest = put_blob(pf_dir, CLEAN)
    output = f"take 1: [Video: a](promptfoo://blob/{digest}) take 2: [Video: b](storageRef:video/0123456789ab.mp4)"
    refused(probes(output, ctx()), "2 different media links", "ambiguous", "`var`")
    named = probes(output, {**ctx(take="gen_clean"), "config": {"var": "take"}})  # naming the var settles it
    assert named["pass"] is True and named["metadata"]["media"]["found_in"] == "var 'take'"


def test_a_bad_download_setting_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("REELJUDGE_MAX_DOWNLOAD_BYTES", "lots")
    with pytest.raises(BadInputError,
                       match="environment variable REELJUDGE_MAX_DOWNLOAD_BYTES must be a whole number, got 'lots'"):
        locate_media(TestContext.of(ctx(clip="https://127.0.0.1:9/a.mp4")), "", var=None, kinds=("video",))
    monkeypatch.setenv("REELJUDGE_MAX_DOWNLOAD_BYTES", "1000")
    monkeypatch.setenv("REELJUDGE_DOWNLOAD_TIMEOUT_S", "0")
    with pytest.raises(BadInputError, match="environment variable REELJUDGE_DOWNLOAD_TIMEOUT_S must be at least 0.001, got '0'"):
        locate_media(TestContext.of(ctx(clip="https://127.0.0.1:9/a.mp4")), "", var=None, kinds=("video",))


def test_media_errors_are_media_errors():
    with pytest.raises(MediaError, match="not a blob reference"):
        locate_media(TestContext.of(ctx(clip="promptfoo://blob/xyz")), "", var=None, kinds=("video",))


# --- ab import and import weight ------------------------------------------------------------------

def results_file(tmp_path: Path, responses: dict[str, dict]) -> Path:
    """A promptfoo results file with one test and one cell per provider label."""
    cells = [{"testIdx": 0, "vars": {"prompt": "a red ball"}, "provider": {"id": "x", "label": label}, "response": response,
              "testCase": {"description": "one"}, "success": True} for label, response in responses.items()]
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"results": {"results": cells}}))
    return path


def test_ab_import_refuses_a_missing_blob_naming_the_test_and_provider(pf_dir, tmp_path):
    from reeljudge.ab.store.imports import ImportRefused, build_samples, read_promptfoo
    from reeljudge.ab.study.workspace import Workspace

    put_media(pf_dir, CLEAN, "video/0123456789ab.mp4")
    missing = sha(CLIPS / "gen_frozen.mp4")
    path = results_file(tmp_path,
                        {"veo": veo_response(missing), "sora": {"video": {"storageRef": {"key": "video/0123456789ab.mp4"}}}})
    ws = Workspace(tmp_path / "study")
    with pytest.raises(ImportRefused, match=rf"results.json test 0 \(one\): clip_a: blob {missing[:12]}… is missing"):
        build_samples(read_promptfoo(path), ws.fix_protocol(), ws.clips)
    assert ws.store.samples() == []


def test_ab_import_refuses_an_output_with_two_media_links(tmp_path):
    from reeljudge.ab.store.imports import ImportRefused, read_promptfoo

    two = {"output": "[a](promptfoo://blob/" + "a" * 64 + ") [b](storageRef:video/0123456789ab.mp4)"}
    path = results_file(tmp_path, {"one": two, "two": {"output": "gen_clean"}})
    with pytest.raises(ImportRefused, match="provider 'one': the provider output has 2 different media links"):
        read_promptfoo(path)


def test_locating_a_blob_imports_nothing_heavy(pf_dir):
    import subprocess
    import sys

    digest = put_blob(pf_dir, CLEAN)
    code = (
        "import sys, json; from reeljudge.promptfoo.clips import locate_media; from reeljudge.promptfoo.context "
        "import TestContext; "
        f"r = locate_media(TestContext.of({{'providerResponse': {veo_response(digest)!r}}}), '', var=None, kinds=('video',)); "
        "print(json.dumps([r.media.sha256, sorted({m.split('.')[0] for m in sys.modules} & {'numpy', 'av', 'httpx', 'tenacity', "
        "'google', 'cv2'})]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert json.loads(out) == [digest, []]
