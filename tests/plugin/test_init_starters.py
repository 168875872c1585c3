"""``reeljudge init`` in an empty folder gives four starter configs that pass as written, run the way
a user runs them: the built wheel in a virtualenv of its own, the npm tarball and promptfoo in the project's
package.json, ``./node_modules/.bin/promptfoo eval -c promptfooconfig.<judge>.yaml`` in the project, telemetry off. The Gecko
starter needs a Gemini judge: the wire-level fake answers it. Then the clip provider entry ``init`` writes
(``reeljudge_entries/clips.py``, the README's clip examples) serves the example clip to the probes."""

from __future__ import annotations

import subprocess

import pytest
import yaml

from support.fake_gemini import FakeGemini
from support.gecko_scripts import script_prompt
from support.user_project import artifacts, promptfoo_project, run_eval, user_env, user_python  # noqa: F401

pytestmark = pytest.mark.e2e

STARTER_PROMPT = "A red ball rolls past a textured wall"  # the starters' example prompt
STARTERS = ("filmability", "probes", "gecko", "ab")


@pytest.fixture(scope="module")
def started(promptfoo_project, user_python):  # noqa: F811
    """The project after ``reeljudge init`` (the installed console script): (project, node folder, init's output)."""
    project, node = promptfoo_project
    proc = subprocess.run([str(user_python.parent / "reeljudge"), "init", str(project)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return project, node, proc.stdout


@pytest.mark.parametrize("starter", STARTERS)
def test_each_starter_passes_as_written(started, user_python, starter):  # noqa: F811
    project, node, said = started
    config = f"promptfooconfig.{starter}.yaml"
    assert f"./node_modules/.bin/promptfoo eval -c {config}" in said
    with FakeGemini() as fake:
        script_prompt(fake, STARTER_PROMPT, matched=True)
        keys = {"GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url} if starter == "gecko" else {}
        env = user_env(project, user_python, node=node, REELJUDGE_CACHE_DIR=str(project / f".cache-{starter}"), **keys)
        code, results, output = run_eval(project, config, env)
    rows = results["results"]["results"] if results else []
    assert code == 0 and rows and all(r["success"] for r in rows), (output[-3000:], [r.get("gradingResult") for r in rows])
    assert "file not found" not in output


def test_the_clip_provider_entry_serves_the_example_clip(started, user_python):  # noqa: F811
    project, node, _ = started
    probes = yaml.safe_load((project / "promptfooconfig.probes.yaml").read_text())["defaultTest"]["assert"][0]
    probes["config"]["var"] = None  # the provider's clip, as the starter's comment says
    config = {"prompts": ["{{prompt}}"], "providers": [{"id": "file://reeljudge_entries/clips.py", "config": {"var": "video"}}],
              "tests": [{"vars": {"prompt": STARTER_PROMPT, "video": "clips/example.mp4"}, "assert": [probes]}]}
    (project / "clips-provider.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    code, results, output = run_eval(project, "clips-provider.yaml", user_env(project, user_python, node=node))
    [row] = results["results"]["results"]
    assert code == 0 and row["success"], output[-3000:]
    assert row["response"]["video"]["format"] == "mp4" and row["response"]["metadata"]["clip"]["sha256"]
