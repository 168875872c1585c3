"""The README's Veo example, run unchanged in a user's project with promptfoo's own Veo provider, offline.

The YAML block of README.md's section "Clips and images from promptfoo's own providers" is read from
README.md by this test (so README and test cannot drift) and written, byte for byte, into a user's
project made from the built wheel and npm tarball (``user_project.py``), then run with the
project's own ``promptfoo eval``. promptfoo's ``google:video:veo-*`` provider calls the hard-coded
``https://generativelanguage.googleapis.com/v1beta``; it reaches the fake Gemini server through
``tests/support/google_proxy.py``, a TLS-terminating CONNECT proxy on 127.0.0.1 whose throw-away CA
promptfoo trusts via ``PROMPTFOO_CA_CERT_PATH`` (with verification on: ``PROMPTFOO_INSECURE_SSL=false``).
The Gecko judge's own calls go straight to the same fake (``NO_PROXY``). The clip promptfoo downloads
is made by the clip generator at test time. One run where it all works, and two where the Veo API
fails (an operation error, a 404 video): promptfoo's provider error is the test's result, no judge passes.
Runs on the promptfoo under test (REELJUDGE_PROMPTFOO: pinned or latest; scripts/test.sh runs both).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any, Callable

import pytest
import yaml

from support.fake_gemini import FakeGemini, error_reply
from support.google_proxy import GOOGLE_HOST, GoogleProxy, make_tls
from support.promptfoo_run import judged
from support.user_project import ROOT, artifacts, promptfoo_project, run_eval, user_env, user_python  # noqa: F401
from reeljudge.synth.clips import FIXTURES, make_clip
from support.gecko_scripts import script_prompt

pytestmark = pytest.mark.e2e

SECTION = "### Clips and images from promptfoo's own providers"
KEY = "fake"  # the (fake) Gemini key both promptfoo's Veo provider and the Gecko judge send
PROXY_VARS = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")
# promptfoo posts a "telemetry disabled" event to this host even with PROMPTFOO_DISABLE_TELEMETRY=1
# (telemetry's recordTelemetryDisabled, fire and forget, 0.121.20 and 0.123.1): the proxy refuses it
TELEMETRY = "r.promptfoo.app:443"


def readme_block() -> str:
    """The first YAML block of the README section on promptfoo's own providers, as written there."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = text.find("\n### ", start + len(SECTION))
    match = re.search(r"```yaml\n(.*?)```", text[start:end if end != -1 else len(text)], re.S)
    assert match, f"README.md's section {SECTION!r} has no ```yaml block"
    return match.group(1)


BLOCK = readme_block()
PARSED = yaml.safe_load(BLOCK)
MODEL = PARSED["providers"][0]["id"].removeprefix("google:video:")
PROMPT = PARSED["tests"][0]["vars"]["prompt"]


def clean_clip(folder: Path) -> bytes:
    """The bytes of a clean generated clip (the probes' ``clean`` fixture), rendered now."""
    return make_clip(folder / "veo.mp4", FIXTURES["clean"].spec).read_bytes()


def veo_env(project: Path, python: Path, node: Path | None, work: Path, fake: FakeGemini,
            proxy: GoogleProxy, ca: Path) -> dict[str, str]:
    """A user's environment with a (fake) key: HTTPS through the proxy, which promptfoo trusts; 127.0.0.1 direct."""
    env = user_env(project, python, node=node, GEMINI_API_KEY=KEY, GOOGLE_GEMINI_BASE_URL=fake.url,
                   PROMPTFOO_CONFIG_DIR=str(work / "promptfoo"), REELJUDGE_CACHE_DIR=str(work / "cache"),
                   REELJUDGE_MAX_ATTEMPTS="1")
    env = {k: v for k, v in env.items() if k.lower() not in PROXY_VARS and not k.lower().startswith("npm_config_")}
    env.update({"HTTPS_PROXY": proxy.url, "NO_PROXY": "127.0.0.1,localhost", "PROMPTFOO_CA_CERT_PATH": str(ca),
                "PROMPTFOO_INSECURE_SSL": "false"})
    return env


def run_readme_block(setup: tuple[Path, Path | None, Path], work: Path, name: str,
                     script: Callable[[FakeGemini], None] = lambda fake: None, *, trust_proxy: bool = True) -> dict[str, Any]:
    """Write the README block into the project as ``<name>.yaml`` and eval it; what the run left behind.

    ``trust_proxy=False``: promptfoo is given another throw-away CA than the one that signed the proxy's certificate.
    """
    project, node, python = setup
    work.mkdir(parents=True, exist_ok=True)
    clip = clean_clip(work)
    (project / f"{name}.yaml").write_text(BLOCK, encoding="utf-8")
    tls = make_tls(work / "tls", GOOGLE_HOST)
    trusted = tls.ca if trust_proxy else make_tls(work / "other-tls", GOOGLE_HOST).ca
    with FakeGemini() as fake:
        fake.video_bytes, fake.operation_polls_before_done = clip, 0  # done at the first poll: no 10 s wait
        script_prompt(fake, PROMPT, matched=True)
        script(fake)
        with GoogleProxy(tls, upstream=fake.url) as proxy:
            code, results, output = run_eval(project, f"{name}.yaml", veo_env(project, python, node, work, fake, proxy, trusted))
    rows = results.get("results", {}).get("results", [])
    return {"code": code, "rows": rows, "output": output, "proxy": proxy, "fake": fake, "clip": clip, "store": work / "promptfoo"}


@pytest.fixture(scope="module")
def setup(promptfoo_project, user_python):  # noqa: F811 - fixtures from user_project
    """(the user's project, the Node to run its promptfoo with, the Python with the wheel)."""
    project, node = promptfoo_project
    return project, node, user_python


@pytest.fixture(scope="module")
def veo_run(setup, tmp_path_factory):
    """The README block, evaluated once with everything answering."""
    return run_readme_block(setup, tmp_path_factory.mktemp("veo-readme"), "readme-veo")


def veo_paths(operation: str = "op1") -> list[tuple[str, str]]:
    """The requests promptfoo's Veo provider makes for one clip: start, one poll, the download."""
    return [("POST", f"/v1beta/models/{MODEL}:predictLongRunning"),
            ("GET", f"/v1beta/models/{MODEL}/operations/{operation}"),
            ("GET", f"/v1beta/files/vid{operation}:download?alt=media")]


def test_the_readme_block_is_promptfoos_own_veo_provider_with_our_judges():
    assert PARSED["providers"][0]["id"].startswith("google:video:veo-")
    assert [a["value"] for a in PARSED["defaultTest"]["assert"]] == ["package:reeljudge:videoProbes", "package:reeljudge:gecko"]
    # the README says where it is tested
    assert "tests/plugin/test_readme_veo.py" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_veo_example_runs_and_both_judges_pass_on_the_clip(veo_run):
    assert veo_run["code"] == 0, veo_run["output"][-4000:]
    (row,) = veo_run["rows"]
    sha = hashlib.sha256(veo_run["clip"]).hexdigest()
    assert row["success"] and row["provider"]["id"] == f"google:video:{MODEL}", row.get("gradingResult")
    assert row["response"]["video"]["blobRef"]["hash"] == sha and row["response"]["output"].endswith(f"(promptfoo://blob/{sha})")
    for judge in ("video_probes", "gecko"):
        result = judged(row, judge)
        assert result["pass"] is True, result["reason"]
        media = result["metadata"]["media"]
        assert (media["carrier"], media["sha256"], media["file"]) == ("promptfoo-blob", sha, f"promptfoo://blob/{sha}"), media
        assert "the provider response's video." in media["found_in"], media
    # every question right
    assert row["namedScores"]["gecko"] == 1 and row["namedScores"]["gecko_coverage"] == 1, row["namedScores"]


def test_promptfoos_blob_store_holds_the_served_clip(veo_run):
    sha = hashlib.sha256(veo_run["clip"]).hexdigest()
    blob = veo_run["store"] / "blobs" / sha[:2] / sha[2:4] / sha
    assert blob.read_bytes() == veo_run["clip"]


def test_only_the_google_host_was_asked_for_and_with_the_key(veo_run):
    proxy, fake = veo_run["proxy"], veo_run["fake"]
    assert set(proxy.refused) <= {TELEMETRY} and set(proxy.connects) - {TELEMETRY} == {f"{GOOGLE_HOST}:443"}, proxy.connects
    assert [(r.method, r.path) for r in proxy.requests] == veo_paths()
    assert all(r.headers.get("x-goog-api-key") == KEY for r in proxy.requests)
    start = fake.operation_requests()["start"][0]
    assert start.body["instances"] == [{"prompt": PROMPT}]
    assert start.body["parameters"] == {"aspectRatio": "16:9", "durationSeconds": 6, "resolution": "720p"}
    judge_calls = fake.calls("generateContent")
    assert len(judge_calls) >= 3 and all(c.headers.get("x-goog-api-key") == KEY for c in judge_calls)  # direct, not proxied


FAILURES = {
    "operation-error": (lambda fake: fake.script_operation("error", error={"code": 13, "message": "internal render failure"}),
                        "Video generation failed: internal render failure", 2),
    "video-404": (lambda fake: fake.script_operation(download_error=error_reply(404, "file expired")),
                  "Download error: Not Found", 3),
}


@pytest.mark.parametrize("case", sorted(FAILURES))
def test_a_failing_veo_api_is_the_tests_error_and_no_judge_passes(setup, tmp_path, case):
    script, message, requests = FAILURES[case]
    run = run_readme_block(setup, tmp_path / "work", f"readme-veo-{case}", script)
    assert run["code"] != 0, run["output"][-3000:]
    (row,) = run["rows"]
    assert row["success"] is False and message in (row.get("error") or ""), row
    components = (row.get("gradingResult") or {}).get("componentResults") or []
    assert not any(c.get("pass") for c in components), components  # (promptfoo runs no assertion on a provider error)
    assert ([(r.method, r.path) for r in run["proxy"].requests] == veo_paths()[:requests]
            and set(run["proxy"].refused) <= {TELEMETRY})
    assert not [p for p in (run["store"] / "blobs").rglob("*") if p.is_file()]  # promptfoo stored nothing
    assert run["fake"].calls("generateContent") == []  # no judge was asked about a clip that does not exist



def test_promptfoo_verifies_the_proxys_certificate(setup, tmp_path):
    run = run_readme_block(setup, tmp_path / "work", "readme-veo-untrusted", trust_proxy=False)
    (row,) = run["rows"]
    assert run["code"] != 0 and row["success"] is False, run["output"][-3000:]
    assert (row.get("error") or "").startswith("Failed to create video job: "), row.get("error")
    assert run["proxy"].requests == [] and f"{GOOGLE_HOST}:443" in run["proxy"].connects  # the handshake failed: nothing was sent
    assert run["fake"].requests == []
