"""The steps a team's own project adds to the gate (action/team.sh, action/dependencies.py, action/calls.js), run as
action.yml runs them (``bash action/gate.sh <step>`` with the INPUT_* variables), without promptfoo: the secrets a suite
needs, a needs line that names no suite, the requirement lines of each form of python-dependencies, and the count of
calls. The whole flow, through action.yml: tests/action/test_action_team.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.paths import ROOT

GATE = ROOT / "action" / "gate.sh"


def _gate(tmp_path: Path, step: str, reeljudge: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    """``gate.sh step`` in ``tmp_path`` as the action runs it, after an install of ``reeljudge`` (default: this one)."""
    state = tmp_path / "runner-temp" / "reeljudge-action"
    state.mkdir(parents=True, exist_ok=True)
    (state / "promptfoo-command").write_text("false\n")  # a promptfoo that fails if it is ever run
    (state / "reeljudge").write_text(f"{reeljudge or Path(sys.executable).parent / 'reeljudge'}\n")
    base = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_", "TERMS_"))
            and k not in ("REELJUDGE_CACHE_DIR", "PROMPTFOO_CACHE_PATH")}
    return subprocess.run(["bash", str(GATE), step], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**base, "RUNNER_TEMP": str(tmp_path / "runner-temp"), **env})


def test_a_suite_whose_secret_is_not_set_is_not_run_and_said_so_neutrally(tmp_path):
    (tmp_path / "promptfooconfig.terms.yaml").write_text("prompts: []\n")
    done = _gate(tmp_path, "evaluate", INPUT_CONFIGS="promptfooconfig.terms.yaml",
                 INPUT_NEEDS="terms: TERMS_API_KEY OTHER_KEY  # the generator's\n", OTHER_KEY="set")
    assert done.returncode == 0, done.stdout + done.stderr  # promptfoo (`false`) was never started
    state = tmp_path / "runner-temp" / "reeljudge-action"
    assert (state / "not-run").read_text() == "terms\n"
    assert (state / "notes").read_text() == ("- ⚪ `terms`: not run: needs TERMS_API_KEY (not set for this run, as in a pull "
                                              "request from a fork); not gated\n")


def test_a_needs_line_that_names_no_suite_fails_the_step_naming_it(tmp_path):
    (tmp_path / "promptfooconfig.terms.yaml").write_text("prompts: []\n")
    done = _gate(tmp_path, "evaluate", INPUT_CONFIGS="promptfooconfig.terms.yaml", INPUT_NEEDS="term: TERMS_API_KEY\n")
    assert done.returncode == 1
    failures = (tmp_path / "runner-temp" / "reeljudge-action" / "failures").read_text()
    assert "needs: 'term: TERMS_API_KEY' does not name a suite of configs or key-configs" in failures and " terms" in failures
    done = _gate(tmp_path, "evaluate", INPUT_CONFIGS="promptfooconfig.terms.yaml", INPUT_NEEDS="terms: TERMS-KEY\n")
    assert done.returncode == 1
    failures = (tmp_path / "runner-temp" / "reeljudge-action" / "failures").read_text()
    assert "needs: 'TERMS-KEY' (suite terms) is not an environment variable's name" in failures


PYPROJECT = """[project]
name = "reels"
version = "1"
dependencies = ["pydantic>=2"]

[project.optional-dependencies]
video = ["av"]

[dependency-groups]
llm = ["google-genai", {include-group = "base"}]
base = ["httpx"]
"""


@pytest.mark.parametrize("given, lines", [
    ("pyproject.toml", ["pydantic>=2"]),
    ("pyproject.toml:llm", ["pydantic>=2", "google-genai", "httpx"]),
    ("pyproject.toml:video", ["pydantic>=2", "av"]),
    ("requirements.txt", ["-r more.txt", "iniconfig==2.0"]),
])
def test_each_form_of_python_dependencies_gives_its_requirement_lines(tmp_path, given, lines):
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "requirements.txt").write_text("-r more.txt\niniconfig==2.0\n")
    done = subprocess.run([sys.executable, str(ROOT / "action" / "dependencies.py"), given], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.splitlines() == lines, done.stderr


@pytest.mark.parametrize("given, said", [
    ("pyproject.toml:gpu", "python-dependencies: pyproject.toml has no dependency group or optional extra 'gpu' "
                           "(its groups and extras: base, llm, video)"),
    ("requirements.txt:llm", "python-dependencies: requirements.txt:llm: only pyproject.toml takes a :group"),
    ("reqs.txt", "python-dependencies: there is no file reqs.txt"),
])
def test_a_python_dependencies_input_that_cannot_be_read_is_said_in_one_sentence(tmp_path, given, said):
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "requirements.txt").write_text("iniconfig\n")
    done = subprocess.run([sys.executable, str(ROOT / "action" / "dependencies.py"), given], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.strip() == said


def test_the_calls_are_counted_from_the_results_generators_and_llm_judges_apart(tmp_path):
    gemini = {"judge": "filmability", "engine": "gemini", "model": "gemini-2.5-flash"}
    rows = [  # a replayed generator and judge, a fresh pair, echo and an offline judge (no call), a promptfoo cache hit
        {"provider": {"id": "python:terms.py:default"}, "response": {"metadata": {"cache_hit": True}}, "cost": 0,
         "gradingResult": {"componentResults": [{"metadata": {"judge_identity": {**gemini, "deterministic": True}}}]}},
        {"provider": {"id": "python:terms.py:default"}, "response": {"metadata": {"cache_hit": False}}, "cost": 0.0125,
         "gradingResult": {"componentResults": [{"metadata": {"judge_identity": {**gemini, "deterministic": False}}}]}},
        {"provider": {"id": "echo"}, "response": {},
         "gradingResult": {"metadata": {"judge_identity": {"engine": "local", "deterministic": True}}}},
        {"provider": {"id": "openai:gpt-4o-mini"}, "response": {"cached": True}, "gradingResult": None},
    ]
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "terms.json").write_text(json.dumps({"results": {"results": rows}}))
    (folder / "notes.txt").write_text("not a results file")
    done = subprocess.run(["node", str(ROOT / "action" / "calls.js"), str(folder)], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ("Calls: generators 1 made, 2 replayed; LLM judges 1 made, 1 replayed (from the caches "
                                   "this run restored; cost $0.0125 as promptfoo reports it).")


def test_the_call_cache_keys_one_entry_a_run_and_a_fresh_run_restores_nothing(tmp_path):
    outputs = tmp_path / "outputs"
    done = _gate(tmp_path, "calls-cache", GITHUB_OUTPUT=str(outputs), GITHUB_ENV=str(tmp_path / "env"))
    assert outputs.read_text() == "enabled=false\n" and not (tmp_path / "env").exists()  # no configs: the job's own
    outputs.unlink()
    configs = {"INPUT_CONFIGS": "promptfooconfig.terms.yaml"}
    done = _gate(tmp_path, "calls-cache", GITHUB_OUTPUT=str(outputs), GITHUB_ENV=str(tmp_path / "env"), GITHUB_RUN_ID="42",
                 GITHUB_RUN_ATTEMPT="2", **configs)
    assert done.returncode == 0, done.stderr
    said = outputs.read_text()
    assert "enabled=true\nkey=reeljudge-calls-v1-Linux-42-2\nrestore-prefix=reeljudge-calls-v1-Linux-\n" in said
    assert f"{tmp_path}/.reeljudge/cache\n{tmp_path}/.reeljudge/promptfoo-cache\n" in said
    assert (tmp_path / "env").read_text() == (f"REELJUDGE_CACHE_DIR={tmp_path}/.reeljudge/cache\n"
                                              f"PROMPTFOO_CACHE_PATH={tmp_path}/.reeljudge/promptfoo-cache\n")
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"labels": [{"name": "reeljudge-fresh"}]}}))
    outputs.unlink()
    done = _gate(tmp_path, "calls-cache", GITHUB_OUTPUT=str(outputs), GITHUB_RUN_ID="43", GITHUB_EVENT_PATH=str(event),
                 **configs)
    assert "restore-prefix=reeljudge-calls-v1-Linux-fresh-43\n" in outputs.read_text() and "label reeljudge-fresh" in done.stdout
    outputs.unlink()
    _gate(tmp_path, "calls-cache", GITHUB_OUTPUT=str(outputs), GITHUB_RUN_ID="44", INPUT_CALL_CACHE="fresh", **configs)
    assert "restore-prefix=reeljudge-calls-v1-Linux-fresh-44\n" in outputs.read_text()


@pytest.mark.slow  # a virtualenv and pip
def test_a_uv_lock_is_exported_with_uv_and_installed_and_a_second_run_with_the_same_key_installs_nothing(tmp_path):
    """python-dependencies: uv.lock, as the step runs it: `uv export --frozen` (uv from PATH), pip into the
    interpreter of reeljudge, a stamp for the install cache's key; offline (iniconfig from uv's cache)."""
    from support.package_index import UV, _cached_wheel, _repack, _uv_wheels, pip_env

    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "reels"\nversion = "1"\nrequires-python = ">=3.11"\n'
                                            'dependencies = ["iniconfig"]\n')
    subprocess.run([str(UV), "lock", "--offline", "--quiet"], cwd=project, check=True, timeout=120)
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _repack(*_cached_wheel(_uv_wheels(), "iniconfig", None), wheels)
    venv = tmp_path / "runner-temp" / "reeljudge-action" / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    subprocess.run([str(venv / "bin" / "python"), "-m", "ensurepip", "--default-pip"], check=True, capture_output=True,
                   timeout=300)
    env = {**pip_env(wheels), "INPUT_PYTHON_DEPENDENCIES": "project/uv.lock", "INPUT_CACHE_KEY": "reeljudge-install-v1-x",
           "PATH": f"{UV.parent}:{os.environ['PATH']}"}
    first = _gate(tmp_path, "dependencies", venv / "bin" / "reeljudge", **env)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "installing the project's Python dependencies (project/uv.lock)" in first.stdout
    subprocess.run([str(venv / "bin" / "python"), "-c", "import iniconfig"], check=True)
    again = _gate(tmp_path, "dependencies", venv / "bin" / "reeljudge", **env)
    assert "the cached virtualenv has project/uv.lock's packages (reeljudge-install-v1-x); not reinstalled" in again.stdout
