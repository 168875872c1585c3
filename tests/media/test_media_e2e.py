"""End to end: clips and images stored by promptfoo's own blob and media stores (through its own
storeBlob / storeMedia, see tests/providers/promptfoo_stores.mjs), in suites whose vars do not name
the clip, are read by every judge; ``ab import`` takes them into a study that people rate."""

from __future__ import annotations

import hashlib
import json
import sqlite3

import httpx
import pytest

from support.ab_study import invite, running_server, submit
from support.promptfoo_run import judged, promptfoo_view, rows, run_promptfoo_eval
from reeljudge.media.refs import sha256_file
from support.ab_judge_scripts import prefer
from support.gecko_scripts import script_prompt
from support.paths import ROOT

CLIPS = ROOT / "datasets" / "clips"
VIDEO_SUITE = "tests/suites/promptfoo_media/video.yaml"
IMAGE_SUITE = "tests/suites/promptfoo_media/images.yaml"
PROMPT = "A red ball rolls past a textured wall, one continuous shot"
CARRIERS = {"veo-like": ("promptfoo-blob", "gen_clean.mp4"), "sora-like": ("media-store", "bbb_excerpt.mp4")}


def script_video_suite(fake) -> None:
    """Gecko replies for the suite's prompt, and an A/B judge that prefers each provider's clip to the reference."""
    script_prompt(fake, PROMPT, matched=True)
    reference = sha256_file(CLIPS / "gen_flicker.mp4")
    for _, clip in CARRIERS.values():
        prefer(fake, PROMPT, sha256_file(CLIPS / clip), reference, tag="flicker")


@pytest.fixture(scope="module")
def video_run(tmp_path_factory):
    """The video suite run once through promptfoo against a fake Gemini server: (results, output, work folder)."""
    from support.fake_gemini import FakeGemini

    work = tmp_path_factory.mktemp("media-e2e")
    with FakeGemini() as fake:
        script_video_suite(fake)
        env = {"GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url,
               "REELJUDGE_CACHE_DIR": str(work / "cache")}
        code, results, output = run_promptfoo_eval(VIDEO_SUITE, work, env=env)
    return code, results, output, work


@pytest.mark.e2e
def test_every_clip_judge_reads_clips_from_promptfoos_blob_and_media_stores(video_run):
    code, results, output, work = video_run
    assert code == 0, output[-3000:]
    cells = {c["provider"]["label"]: c for c in rows(results)}
    assert set(cells) == set(CARRIERS) and all(c["success"] for c in cells.values()), output[-3000:]
    for label, (carrier, clip) in CARRIERS.items():
        cell, sha = cells[label], sha256_file(CLIPS / clip)
        assert "clip" not in cell["vars"] and "video" not in cell["vars"]  # only the response leads to the clip
        for judge, mode in (("video_probes", None), ("gecko", None), ("ab_judge", "gemini"), ("ab_judge", "probes")):
            meta = judged(cell, judge, mode)["metadata"]
            media = meta["media"]["new"] if judge == "ab_judge" else meta["media"]
            assert media["carrier"] == carrier and media["sha256"] == sha, (label, judge, media)
            assert "the provider response's video." in media["found_in"]
        assert judged(cell, "ab_judge", "gemini")["metadata"]["winner"] == "new"
    veo, sora = cells["veo-like"]["response"], cells["sora-like"]["response"]
    digest = sha256_file(CLIPS / "gen_clean.mp4")
    # Veo's shape, kept as promptfoo made it (the viewer plays it): our results never replace the video object
    assert veo["output"].endswith(f"(promptfoo://blob/{digest})") and veo["video"]["blobRef"]["hash"] == digest
    assert veo["video"]["url"] == f"promptfoo://blob/{digest}"
    assert (sora["video"]["storageRef"]["key"].startswith("video/")
            and sora["output"].endswith(f"(storageRef:{sora['video']['storageRef']['key']})"))
    # promptfoo's own storeBlob wrote the file, its metadata and its database row
    blob = work / "promptfoo" / "blobs" / digest[:2] / digest[2:4] / digest
    assert blob.is_file() and blob.with_name(digest + ".meta.json").is_file()
    with sqlite3.connect(work / "promptfoo" / "promptfoo.db") as db:
        assert db.execute("SELECT mime_type FROM blob_assets WHERE hash = ?", (digest,)).fetchone() == ("video/mp4",)
    assert str(ROOT) not in json.dumps(rows(results)) and str(work) not in json.dumps(rows(results))


@pytest.mark.e2e
def test_ab_import_takes_clips_from_both_stores_and_people_rate_them(video_run, tmp_path):
    from reeljudge.ab.study.workspace import Workspace
    from reeljudge.cli import main

    code, _, output, work = video_run
    assert code == 0, output[-3000:]
    study = tmp_path / "study"
    # the stores are found through --promptfoo-dir, not the environment
    assert (main(["ab", "import", str(work / "results.json"), "--data", str(study),
                  "--promptfoo-dir", str(work / "promptfoo")]) == 0)
    ws = Workspace(study)
    [sample] = ws.store.samples()
    assert {sample.system_a, sample.system_b} == set(CARRIERS)
    from reeljudge.media.anonymise import strip_names

    # the import blinds each clip (its names stripped): the stored hash is the blinded file's
    stripped = {sha256_file(strip_names(CLIPS / clip, tmp_path / f"stripped-{i}.mp4")) for i,
                (_, clip) in enumerate(CARRIERS.values())}
    assert {sample.clip_a, sample.clip_b} == stripped
    token = invite(ws, "ann")
    with running_server(ws) as url, httpx.Client() as client:
        task = client.get(f"{url}/api/r/{token}/task").json()["task"]
        clip = client.get(url + task["clips"]["A"]["url"]) if "clips" in task else None
        response = submit(client, url, token, winner="A")
    assert response.status_code == 200, response.text
    [record] = ws.store.judgements()
    assert record["sample_id"] == sample.sample_id and record["rater"]["id"] == "ann"
    if clip is not None:
        assert clip.status_code in (200, 206) and len(clip.content) > 1000


@pytest.mark.e2e
def test_gecko_reads_images_from_markdown_and_data_uris_and_refuses_two_links(fake, tmp_path):
    script_prompt(fake, "A red disc on a white background", matched=True)
    env = {"GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url,
           "REELJUDGE_CACHE_DIR": str(tmp_path / "cache")}
    code, results, output = run_promptfoo_eval(IMAGE_SUITE, tmp_path, env=env)
    cells = {c["provider"]["label"]: c for c in rows(results)}
    assert set(cells) == {"image-markdown", "image-data", "two-links"}, output[-3000:]
    for label, carrier in (("image-markdown", "media-store"), ("image-data", "data-uri")):
        assert cells[label]["success"], cells[label]["gradingResult"]["reason"]
        media = judged(cells[label], "gecko")["metadata"]["media"]
        assert media["carrier"] == carrier and media["kind"] == "image" and media["mime_type"] == "image/png"
    assert judged(cells["image-markdown"], "gecko")["metadata"]["media"]["found_in"] == "a markdown link in the provider output"
    assert judged(cells["image-data"], "gecko")["metadata"]["media"]["file"].startswith("sha256:")
    refused = cells["two-links"]
    assert refused["success"] is False and code != 0
    reason = refused["gradingResult"]["reason"]
    assert "gecko did not judge (media_error) in test 'stores: a red disc on white'" in reason
    assert "2 different media links" in reason and "ambiguous" in reason and "`var`" in reason
    # a data: URI is never copied into results
    assert "base64," not in json.dumps(judged(cells["image-data"], "gecko")["metadata"])


@pytest.mark.e2e
def test_the_viewer_still_serves_both_clips_after_our_judges_ran(video_run):
    """promptfoo's web viewer plays what the response's video object names: the blob (its /api/blobs route
    checks promptfoo's database reference that storeBlob wrote) and the media-store key."""
    code, results, output, work = video_run
    assert code == 0, output[-3000:]
    cells = {c["provider"]["label"]: c for c in rows(results)}
    digest = cells["veo-like"]["response"]["video"]["blobRef"]["hash"]
    key = cells["sora-like"]["response"]["video"]["storageRef"]["key"]
    with promptfoo_view(work / "promptfoo") as base:
        blob = httpx.get(f"{base}/api/blobs/{digest}", timeout=30)
        media = httpx.get(f"{base}/api/media/{key}", timeout=30)
    assert blob.status_code == 200 and blob.headers["content-type"].startswith("video/mp4")
    assert hashlib.sha256(blob.content).hexdigest() == digest
    assert media.status_code == 200 and media.content == (CLIPS / "bbb_excerpt.mp4").read_bytes()
