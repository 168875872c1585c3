"""The Veo provider against the fake server: start, poll, download, cache, and every failure named."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from support.clock import FakeClock
from support.entries import load_entry
from support.fake_gemini import FakeGemini, error_reply, tiny_mp4
from reeljudge.providers.veo.provider import DEFAULT_MODEL, call_api
from reeljudge.gemini.pricing import estimate_video_cost
from support.paths import ROOT as REPO

PROMPT = "A slow dolly shot along a row of blinking server racks in a dim data center"
CONFIG = {
    "poll_interval_s": 0.01,
    "deadline_s": 20,
    "duration_seconds": 4,
    "aspect_ratio": "16:9",
    "seed": 7,
    "negative_prompt": "text overlays",
}


@pytest.fixture
def project(gemini_env: FakeGemini, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder as the working directory, with promptfoo's media store under the test's tmp."""
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(root)
    monkeypatch.setenv("PROMPTFOO_CONFIG_DIR", str(tmp_path / "pf"))
    monkeypatch.delenv("PROMPTFOO_MEDIA_PATH", raising=False)
    return root


def run(prompt: str = PROMPT, **overrides: Any) -> dict[str, Any]:
    return call_api(prompt, {"config": {**CONFIG, **overrides}}, {"vars": {}})


def clips(root: Path) -> list[Path]:
    folder = root / ".reeljudge" / "videos"
    return sorted(folder.iterdir()) if folder.exists() else []


def traffic(fake: FakeGemini) -> dict[str, int]:
    return {kind: len(requests) for kind, requests in fake.operation_requests().items()}


# ---- the happy path and the cache -----------------------------------------------------------------


def test_generates_polls_downloads_and_returns_a_playable_video(project: Path, gemini_env: FakeGemini) -> None:
    gemini_env.operation_polls_before_done = 2
    response = run()
    assert "error" not in response, response.get("error")
    expected = tiny_mp4()
    sha = hashlib.sha256(expected).hexdigest()

    assert response["output"] == f".reeljudge/videos/{sha[:16]}.mp4"
    assert (project / response["output"]).read_bytes() == expected
    assert clips(project) == [project / response["output"]]  # no partial download left behind

    video = response["video"]
    assert video["storageRef"]["key"] == f"video/{sha[:12]}.mp4" and video["url"] == f"storageRef:{video['storageRef']['key']}"
    assert (project.parent / "pf" / "media" / video["storageRef"]["key"]).read_bytes() == expected
    assert video["model"] == DEFAULT_MODEL and video["resolution"] == "128x72"

    meta = response["metadata"]
    assert meta["cache_hit"] is False and response["cached"] is False
    assert meta["operation"].startswith(f"models/{DEFAULT_MODEL}/operations/")
    assert meta["polls"] == 3 and meta["backend"] == "developer" and meta["sha256"] == sha
    assert meta["billed_seconds"] == 4 and meta["cost_usd_estimate"] == pytest.approx(0.60)
    assert response["cost"] == pytest.approx(0.60)
    assert meta["clip_path"] == response["output"]  # relative to the project: no machine path
    assert meta["clip"]["sha256"] == sha and meta["clip"]["width"] == 128

    ops = gemini_env.operation_requests()
    assert [len(ops["start"]), len(ops["poll"]), len(ops["download"])] == [1, 3, 1]
    start = ops["start"][0]
    assert start.path == f"/v1beta/models/{DEFAULT_MODEL}:predictLongRunning"
    assert start.body == {
        "instances": [{"prompt": PROMPT}],
        "parameters": {"sampleCount": 1, "aspectRatio": "16:9", "durationSeconds": 4,
                       "negativePrompt": "text overlays", "seed": 7},
    }
    assert start.headers.get("x-goog-api-key") == "test-key-not-real"
    assert ops["poll"][0].path == "/" + "v1beta/" + meta["operation"]
    assert ops["download"][0].path.endswith(":download") and ops["download"][0].body == {"query": "alt=media"}


def test_rerun_is_a_cache_hit_with_no_request(project: Path, gemini_env: FakeGemini) -> None:
    first = run()
    before = len(gemini_env.requests)
    again = run(poll_interval_s=0.5, deadline_s=99)  # waiting settings are not part of the key
    assert len(gemini_env.requests) == before
    assert again["metadata"]["cache_hit"] is True and again["cached"] is True
    assert again["output"] == first["output"] and again["video"]["storageRef"] == first["video"]["storageRef"]
    assert again["metadata"]["operation"] == first["metadata"]["operation"]
    assert again["metadata"]["cost_usd_estimate"] == 0.0 and again["metadata"]["polls"] == 0


def test_other_settings_or_prompt_generate_anew(project: Path, gemini_env: FakeGemini) -> None:
    run()
    run(seed=8)
    run("A different prompt")
    assert traffic(gemini_env)["start"] == 3


def test_cache_hit_needs_no_credentials_and_imports_no_google_genai(project: Path, gemini_env: FakeGemini) -> None:
    first = run()
    env = {k: v for k, v in os.environ.items() if k not in ("GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    script = (
        "import json, sys\n"
        "from reeljudge.providers.veo.provider import call_api\n"
        f"r = call_api({PROMPT!r}, {{'config': {CONFIG!r}}}, {{}})\n"
        "print(json.dumps({'error': r.get('error'), 'hit': r.get('metadata', {}).get('cache_hit'),"
        " 'output': r.get('output'), 'genai': 'google.genai' in sys.modules}))\n"
    )
    before = len(gemini_env.requests)
    proc = subprocess.run([sys.executable, "-c", script], cwd=project, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result == {"error": None, "hit": True, "output": first["output"], "genai": False}
    assert len(gemini_env.requests) == before


def test_cache_hit_whose_file_was_deleted_regenerates(project: Path, gemini_env: FakeGemini) -> None:
    first = run()
    (project / first["output"]).unlink()
    again = run()
    assert "error" not in again, again.get("error")
    assert again["metadata"]["cache_hit"] is False and traffic(gemini_env)["start"] == 2
    assert "is missing" in again["metadata"]["regenerated"] and first["output"] in again["metadata"]["regenerated"]
    assert (project / again["output"]).read_bytes() == tiny_mp4()
    assert run()["metadata"]["cache_hit"] is True


def test_cache_hit_whose_file_changed_regenerates(project: Path, gemini_env: FakeGemini) -> None:
    first = run()
    path = project / first["output"]
    path.write_bytes(path.read_bytes()[:-10])
    again = run()
    assert again["metadata"]["cache_hit"] is False and "has changed" in again["metadata"]["regenerated"]
    assert path.read_bytes() == tiny_mp4()


def test_replay_mode_never_calls_the_api(project: Path, gemini_env: FakeGemini) -> None:
    response = run(cache="replay")
    assert "cache mode is 'replay'" in response["error"] and gemini_env.requests == []


# ---- failures: each one says what happened, none returns a video ------------------------------------


def assert_failed(response: dict[str, Any], *fragments: str) -> None:
    assert set(response) == {"error"}, response
    assert response["error"].startswith("veo provider: ")
    for fragment in fragments:
        assert fragment in response["error"], response["error"]


def test_no_credentials_is_a_clear_error_without_any_request(project: Path, gemini_env: FakeGemini,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEMINI_API_KEY")
    assert_failed(run(), "no Gemini credentials for generating a Veo clip on the developer backend", "GEMINI_API_KEY")
    assert gemini_env.requests == [] and clips(project) == []


def test_rejected_start_is_an_api_error(project: Path, gemini_env: FakeGemini) -> None:
    gemini_env.script_operation(start_error=error_reply(400, "aspectRatio 4:3 is not supported"))
    assert_failed(run(), "Veo rejected the request: HTTP 400 INVALID_ARGUMENT: aspectRatio 4:3 is not supported")
    assert traffic(gemini_env) == {"start": 1, "poll": 0, "download": 0} and clips(project) == []


def test_quota_error_on_start_is_retried(project: Path, gemini_env: FakeGemini) -> None:
    gemini_env.script_operation(start_error=error_reply(429, "quota"))
    response = run()
    assert "error" not in response and traffic(gemini_env)["start"] == 2


def test_operation_error(project: Path, gemini_env: FakeGemini) -> None:
    gemini_env.script_operation("error", error={"code": 13, "message": "internal render failure"})
    response = run()
    assert_failed(response, "Veo operation models/", "failed (code 13): internal render failure")
    assert clips(project) == []
    assert "error" not in run() and traffic(gemini_env)["start"] == 2  # a finished failure is not resumed


def test_filtered_operation_names_the_reason(project: Path, gemini_env: FakeGemini) -> None:
    gemini_env.script_operation("filtered", filtered_reasons=["The prompt contains a celebrity likeness."])
    assert_failed(run(), "finished without a video: 1 filtered by the responsible-AI filter", "celebrity likeness")
    assert clips(project) == []


def test_operation_done_without_video(project: Path, gemini_env: FakeGemini) -> None:
    gemini_env.script_operation("empty")
    assert_failed(run(), "finished with no video and no filter reason")


def test_deadline_while_polling_then_rerun_resumes_the_same_operation(project: Path, gemini_env: FakeGemini,
                                                                     fake_clock: FakeClock) -> None:
    gemini_env.script_operation(polls_before_done=10**6)
    # seconds on the tests' clock: 7 waits of 40 s fit in 300 s on any machine, in no real time, and each
    # poll still gets 20 s or more of the deadline as its (real) per-attempt timeout
    response = run(deadline_s=300, poll_interval_s=40)
    assert_failed(response, "deadline of 300 s passed while polling Veo operation models/", "(7 polls, not done)",
                  "re-run to resume")
    assert traffic(gemini_env)["poll"] == 7 and fake_clock.sleeps == [40] * 7
    (op_id,) = gemini_env.operations
    gemini_env.operations[op_id]["polls_before_done"] = 0  # the server finished it meanwhile
    again = run()
    assert "error" not in again, again.get("error")
    assert again["metadata"]["resumed_operation"] is True and again["metadata"]["operation"].endswith(op_id)
    assert traffic(gemini_env)["start"] == 1


def test_transient_poll_error_is_retried(project: Path, gemini_env: FakeGemini) -> None:
    gemini_env.script_operation(poll_errors=[error_reply(503, "backend busy")])
    response = run()
    assert "error" not in response and response["metadata"]["polls"] == 3


def test_persistent_poll_errors_fail_and_the_rerun_resumes(project: Path, gemini_env: FakeGemini) -> None:
    gemini_env.script_operation(poll_errors=[error_reply(503, "backend busy")] * 5)
    assert_failed(run(), "polling Veo operation models/", "failed (4 time(s) in a row): HTTP 503 UNAVAILABLE: backend busy")
    again = run()
    assert "error" not in again and again["metadata"]["resumed_operation"] is True
    assert traffic(gemini_env)["start"] == 1


def test_download_failure(project: Path, gemini_env: FakeGemini) -> None:
    script = gemini_env.script_operation(download_error=error_reply(404, "file expired"))
    assert_failed(run(), "downloading the video of operation models/", "failed: HTTP 404 NOT_FOUND: file expired")
    assert clips(project) == []
    script.download_error = None  # the file is back: the re-run resumes the finished operation
    again = run()
    assert "error" not in again and again["metadata"]["resumed_operation"] is True
    assert traffic(gemini_env) == {"start": 1, "poll": 3, "download": 2}


def test_cache_hit_finds_the_clip_in_a_moved_output_folder(project: Path, gemini_env: FakeGemini) -> None:
    first = run()
    moved = project / "elsewhere"
    (project / ".reeljudge" / "videos").rename(moved)
    again = run(output_dir="elsewhere")
    assert again["metadata"]["cache_hit"] is True and traffic(gemini_env)["start"] == 1
    assert again["output"] == "elsewhere/" + Path(first["output"]).name


def test_download_that_is_not_a_video_is_not_returned(project: Path, gemini_env: FakeGemini) -> None:
    gemini_env.video_bytes = b"<html>not a video</html>"
    assert_failed(run(), "returned a file that is not a playable video")
    assert clips(project) == []


@pytest.mark.parametrize(
    ("config", "fragment"),
    [
        ({"durations": 4}, "unknown option 'durations' for veo provider; did you mean 'duration_seconds'?"),
        ({"number_of_videos": 2}, "option 'number_of_videos' must be at most 1, got 2"),
        ({"seed": "abc"}, "option 'seed' must be a whole number, got 'abc'"),
        ({"delivery": "ftp"}, "option 'delivery' must be one of store, data; got 'ftp'"),
        ({"generate_audio": "maybe"}, "option 'generate_audio' must be true or false"),
        ({"duration": 4, "duration_seconds": 4}, "'duration' and 'duration_seconds' are the same option"),
    ],
)
def test_bad_settings_are_named_before_any_request(project: Path, gemini_env: FakeGemini, config: dict, fragment: str) -> None:
    assert_failed(run(**config), fragment)
    assert gemini_env.requests == []


def test_empty_prompt(project: Path, gemini_env: FakeGemini) -> None:
    assert_failed(run("   "), "the prompt is empty")
    assert gemini_env.requests == []


# ---- Vertex: the backend google-genai 3.4's generate_videos supports -----------------------------


@pytest.fixture
def vertex(project: Path, vertex_env: FakeGemini) -> FakeGemini:
    """Vertex settings pointed at the fake (see conftest's ``vertex_env``)."""
    return vertex_env


def test_vertex_generates_with_inline_video_bytes(vertex: FakeGemini, project: Path) -> None:
    response = run()
    assert "error" not in response, response.get("error")
    assert (project / response["output"]).read_bytes() == tiny_mp4()
    assert response["metadata"]["backend"] == "vertex"
    ops = vertex.operation_requests()
    assert [len(ops["start"]), len(ops["download"])] == [1, 0] and len(ops["poll"]) >= 1
    resource = f"projects/proj/locations/us-central1/publishers/google/models/{DEFAULT_MODEL}"
    assert ops["start"][0].path == f"/v1/{resource}:predictLongRunning"
    assert ops["start"][0].body["parameters"]["seed"] == 7 and ops["start"][0].body["instances"] == [{"prompt": PROMPT}]
    assert ops["poll"][0].path == f"/v1/{resource}:fetchPredictOperation"
    assert ops["poll"][0].body == {"operationName": response["metadata"]["operation"]}
    assert ops["start"][0].headers.get("Authorization") == "Bearer fake-token"


def test_vertex_filtered(vertex: FakeGemini, project: Path) -> None:
    vertex.script_operation("filtered")
    assert_failed(run(), "filtered by the responsible-AI filter", "usage guidelines")


def test_vertex_without_project_is_a_credentials_error(vertex: FakeGemini, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GOOGLE_CLOUD_PROJECT")
    assert_failed(run(), "no Gemini credentials for generating a Veo clip on the vertex backend", "GOOGLE_CLOUD_PROJECT")
    assert vertex.requests == []


# ---- entry file and pricing ----------------------------------------------------------------------


def test_provider_entry_file_delegates() -> None:
    assert load_entry(REPO / "providers" / "veo.py").call_api is call_api


def test_video_cost_estimates() -> None:
    assert estimate_video_cost("veo-3.0-fast-generate-001", 8) == pytest.approx(1.20)
    assert estimate_video_cost("veo-3.1-generate-preview", 8) == pytest.approx(3.20)
    assert estimate_video_cost("models/veo-3.1-fast-generate-preview", 4, "1080p") == pytest.approx(0.60)
    assert estimate_video_cost("veo-3.1-generate-001", 8, "4k") is None
    assert estimate_video_cost("some-other-video-model", 8) is None
