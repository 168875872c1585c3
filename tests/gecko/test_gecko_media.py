"""Media for the Gecko judge: uploads once per content hash (reused across tests and runs), PROCESSING /
FAILED / expired files, inline small files, images, remote URIs, and media faults that name the file."""

from __future__ import annotations

import base64
import shutil
from pathlib import Path

import pytest

from support.fake_gemini import text_reply
from reeljudge.assertions.gecko import get_assert
from support.gecko_scripts import verdict_text
from reeljudge.gecko.questions import Question
from support.paths import ROOT

CLIPS = ROOT / "datasets" / "clips"
CLIP = str(CLIPS / "gen_clean.mp4")
QS = [Question("Is there a disc?", ["a) yes", "b) no"], "a", tag="object"),
      Question("Does the camera pan?", ["a) yes", "b) no"], "a", tag="action")]
DECLARED = [{"question": q.question, "choices": q.choices, "answer": q.answer, "tag": q.tag} for q in QS]


def ctx(media, prompt="A disc over a texture", qas=DECLARED, **config):
    return {"vars": {"prompt": prompt, "video": media, "qas": qas}, "config": config, "test": {"description": "media"}}


OTHER_RUBRIC = DECLARED[:1]  # a different question set on the same clip: a new VQA request, same media


def field(mapping, camel):
    """A key as google-genai sent it: camelCase, or snake_case inside dict parts."""
    snake = "".join("_" + c.lower() if c.isupper() else c for c in camel)
    return mapping[camel] if camel in mapping else mapping[snake]


@pytest.fixture
def answers(gemini_env):
    gemini_env.on("Answer every question", text_reply(verdict_text(QS, True)))
    return gemini_env


def test_large_file_uploads_once_and_is_reused_by_other_tests_and_runs(answers):
    first = get_assert(CLIP, ctx(CLIP, inline_max_bytes=0))
    assert first["pass"] is True, first["reason"]
    assert len(answers.uploads()) == 1
    body = answers.calls()[0].body
    part = body["contents"][0]["parts"][0]
    assert field(part["fileData"], "fileUri").endswith(answers.uploads()[0].path.rsplit("/", 1)[-1])
    # another question set on the same clip (a new VQA request): the recorded upload is looked up and reused
    other = get_assert(CLIP, ctx(CLIP, qas=OTHER_RUBRIC, inline_max_bytes=0))
    assert other["pass"] is True and len(answers.uploads()) == 1
    assert any(r.method == "GET" and "/files/" in r.path for r in answers.requests)
    # a re-run of the first test: VQA reply cached, no upload, no lookup, no call
    before = len(answers.requests)
    again = get_assert(CLIP, ctx(CLIP, inline_max_bytes=0))
    assert again["metadata"]["cache_hit"] is True and len(answers.requests) == before


def test_upload_waits_for_active_through_processing(answers):
    answers.file_states = ["PROCESSING", "PROCESSING", "ACTIVE"]
    result = get_assert(CLIP, ctx(CLIP, inline_max_bytes=0))
    assert result["pass"] is True
    gets = [r for r in answers.requests if r.method == "GET" and "/files/" in r.path]
    assert len(gets) == 2


def test_failed_processing_fails_the_test_naming_the_file(answers):
    answers.file_states = ["PROCESSING", "FAILED"]
    result = get_assert(CLIP, ctx(CLIP, inline_max_bytes=0))
    assert result["pass"] is False and "gen_clean.mp4" in result["reason"] and "FAILED" in result["reason"]
    assert result["metadata"]["error_kind"] == "media_error" and not answers.calls()


def test_expired_or_deleted_upload_is_uploaded_again(answers):
    get_assert(CLIP, ctx(CLIP, inline_max_bytes=0))
    answers.expire_file(answers.uploads()[0].path.rsplit("/", 1)[-1])
    result = get_assert(CLIP, ctx(CLIP, qas=OTHER_RUBRIC, inline_max_bytes=0))
    assert result["pass"] is True and len(answers.uploads()) == 2


def test_record_past_its_expiry_time_is_not_looked_up_but_replaced(answers):
    answers.file_expiration = "2000-01-01T00:00:00Z"
    get_assert(CLIP, ctx(CLIP, inline_max_bytes=0))
    first_id = answers.uploads()[0].path.rsplit("/", 1)[-1]
    lookups = lambda: sum(1 for r in answers.requests if r.method == "GET" and r.path.endswith("/files/" + first_id))
    before = lookups()
    answers.file_expiration = "2099-01-01T00:00:00Z"
    get_assert(CLIP, ctx(CLIP, qas=OTHER_RUBRIC, inline_max_bytes=0))
    assert len(answers.uploads()) == 2 and lookups() == before


def test_small_file_goes_inline_with_video_settings(answers):
    result = get_assert(CLIP, ctx(CLIP, fps=2, start_offset_s=0.5, end_offset_s=2, media_resolution="low"))
    assert result["pass"] is True and not answers.uploads()
    body = answers.calls()[0].body
    part = body["contents"][0]["parts"][0]
    assert base64.urlsafe_b64decode(part["inlineData"]["data"]) == Path(CLIP).read_bytes()
    meta = part["videoMetadata"]
    assert (field(meta, "fps"), field(meta, "startOffset"), field(meta, "endOffset")) == (2, "0.5s", "2s")
    assert body["generationConfig"]["mediaResolution"] == "MEDIA_RESOLUTION_LOW"


def test_images_are_judged_with_the_image_prompt(answers, tmp_path):
    import cv2
    import numpy as np

    image = np.full((32, 32, 3), 255, np.uint8)
    cv2.circle(image, (16, 16), 10, (0, 0, 255), -1)
    path = tmp_path / "red_dot.png"
    cv2.imwrite(str(path), image)
    result = get_assert(str(path), ctx(str(path)))
    assert result["pass"] is True and result["metadata"]["media"]["kind"] == "image"
    body = answers.calls()[0].body
    assert field(body["contents"][0]["parts"][0]["inlineData"], "mimeType") == "image/png"
    assert "image" in body["systemInstruction"]["parts"][0]["text"].split(".")[0]


def test_http_url_is_downloaded_once_into_the_cache_and_judged(answers):
    from support.clip_server import ClipServer

    with ClipServer(CLIPS) as server:
        url = f"{server.url}/clips/gen_clean.mp4"
        result = get_assert(url, ctx(url))
        again = get_assert(url, ctx(url, qas=OTHER_RUBRIC))
    assert result["pass"] is True, result["reason"]
    media = result["metadata"]["media"]
    assert media["carrier"] == "url" and media["file"] == url and media["sha256"] == again["metadata"]["media"]["sha256"]
    assert server.requests == ["/clips/gen_clean.mp4"]  # downloaded once, the second test read the cache
    import hashlib

    assert media["sha256"] == hashlib.sha256((CLIPS / "gen_clean.mp4").read_bytes()).hexdigest()
    assert ("inlineData" in answers.calls()[0].body["contents"][0]["parts"][0]
            or "inline_data" in answers.calls()[0].body["contents"][0]["parts"][0])


def test_gs_uri_on_the_developer_api_fails_with_a_reason(answers):
    uri = "gs://cloud-samples-data/generative-ai/evaluation/videos/boat.mp4"
    result = get_assert(uri, ctx(uri))
    assert result["pass"] is False and "boat.mp4" in result["reason"] and "Vertex" in result["reason"]


def test_gs_uri_on_vertex_is_sent_as_is():
    from reeljudge.gemini.files import deliver_media
    from reeljudge.media.refs import content_ref
    from reeljudge.gemini.client import JudgeClient
    from reeljudge.media.refs import resolve_media
    from reeljudge.gemini.settings import load_settings

    uri = "gs://cloud-samples-data/generative-ai/evaluation/videos/boat.mp4"
    client = JudgeClient(load_settings({"backend": "vertex"}))
    media = deliver_media(content_ref(resolve_media(uri)), client, fps=1)
    assert media.file_uri == uri and media.data is None and media.mime_type == "video/mp4" and media.fps == 1


@pytest.mark.parametrize("case", ["missing", "empty", "unsupported", "directory"])
def test_media_faults_fail_the_test_naming_the_file(answers, tmp_path, case):
    if case == "missing":
        ref = str(tmp_path / "nowhere.mp4")
    elif case == "empty":
        ref = str(tmp_path / "empty.mp4")
        Path(ref).write_bytes(b"")
    elif case == "unsupported":
        ref = str(tmp_path / "clip.gif")
        Path(ref).write_bytes(b"GIF89a")
    else:
        ref = str(tmp_path / "folder.mp4")
        Path(ref).mkdir()
    result = get_assert(ref, ctx(ref))
    assert result["pass"] is False and Path(ref).name in result["reason"]
    assert result["metadata"]["error_kind"] == "media_error" and not answers.calls()


def test_unreadable_file_fails_naming_it(answers, tmp_path):
    import os

    if os.geteuid() == 0:  # root reads anything: make the path unreadable another way
        ref = tmp_path / "loop.mp4"
        ref.symlink_to(ref)
    else:
        ref = tmp_path / "locked.mp4"
        shutil.copy(CLIP, ref)
        ref.chmod(0)
    result = get_assert(str(ref), ctx(str(ref)))
    assert result["pass"] is False and ref.name in result["reason"]


def test_media_from_the_clip_provider_when_the_var_is_absent(answers):
    context = {"vars": {"prompt": "p", "qas": DECLARED}, "config": {}, "providerResponse": {"metadata": {"clip_path": CLIP}}}
    result = get_assert("gen_clean", context)
    assert result["pass"] is True and result["metadata"]["media"]["name"] == "gen_clean.mp4"


def test_no_credentials_never_passes(fake, monkeypatch):
    result = get_assert(CLIP, ctx(CLIP))
    assert result["pass"] is False and "no_credentials" in result["reason"]
