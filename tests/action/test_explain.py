"""``action/explain.js``: the first error of a failed step in plain words, promptfoo's own messages translated
where the cause is known. Each case is the real output of the pinned promptfoo or of pip and npm,
written by the test from the lines that matter."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from support.paths import ROOT

EXPLAIN = ROOT / "action" / "explain.js"

YAML = """Node.js 20 support in promptfoo ended July 30, 2026 at 00:00 UTC.
file:///p/node_modules/js-yaml/dist/js-yaml.mjs:899
\tthrow new YAMLException(message, mark);
YAMLException: deficient indentation (2:1)

 1 | prompts: [
    at throwErrorAt (file:///p/node_modules/js-yaml/dist/js-yaml.mjs:899:8)
"""
NO_CONFIG = """file:///p/node_modules/promptfoo/dist/src/main.js:2257
\t\tif (globPaths.length === 0) throw new Error(`No configuration file found at ${configPath}. Run "${promptfooCommand("init")}" to create one`);
Error: No configuration file found at promptfooconfig.typo.yaml. Run "promptfoo init" to create one or pass --config path/to/promptfooconfig.yaml.
"""  # noqa: E501 (captured output, kept verbatim)
NO_PYTHON_FILE = """Python worker stderr: ERROR: Failed to load module: [Errno 2] No such file or directory: '{cwd}/providers/gen.py'
Python worker stderr: Traceback (most recent call last):
  ✗ 1 error (100%)
"""  # noqa: E501 (captured output, kept verbatim)
PIP = """ERROR: Could not find a version that satisfies the requirement reeljudge==9.9 (from versions: 0.1.0)
ERROR: No matching distribution found for reeljudge==9.9
"""
NPM = """npm error code ENOTCACHED
npm error request to https://registry.npmjs.org/promptfoo failed: cache mode is 'only-if-cached' but no cached response is available.
"""  # noqa: E501 (captured output, kept verbatim)


def explain(tmp_path: Path, log: str, config: str = "", error: str | None = None) -> str:
    (tmp_path / "step.log").write_text(log.replace("{cwd}", str(tmp_path)))
    args = ["--error", error] if error is not None else []
    proc = subprocess.run(["node", str(EXPLAIN), *args, str(tmp_path / "step.log"), *([config] if config else [])], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


@pytest.mark.parametrize("log, config, said", [
    (YAML, "promptfooconfig.probes.yaml",
     "promptfooconfig.probes.yaml does not parse: YAML deficient indentation at or just before line 2, column 1"),
    (NO_CONFIG, "", "there is no config file promptfooconfig.typo.yaml (a typo in configs:?)"),
    (NO_PYTHON_FILE, "promptfooconfig.yaml", "a Python file promptfooconfig.yaml names does not exist: providers/gen.py "
                                             '(promptfoo only says "Worker failed to become ready within timeout")'),
    (PIP, "", "pip found no release of reeljudge==9.9 (reeljudge-spec, or the package index)"),
    (NPM, "", "npm failed (ENOTCACHED): request to https://registry.npmjs.org/promptfoo failed: cache mode is "
              "'only-if-cached' but no cached response is available."),
])
def test_each_known_cause_is_said_in_plain_words(tmp_path, log, config, said):
    assert explain(tmp_path, log, config) == said


def test_a_tests_own_error_is_kept_unless_it_is_promptfoos_generic_one(tmp_path):
    generic = "Error: Worker failed to become ready within timeout\n    at Timeout._onTimeout (file:///p/providers.js:1:1)"
    said = explain(tmp_path, NO_PYTHON_FILE, "promptfooconfig.yaml", error=generic)
    assert said.startswith("a Python file promptfooconfig.yaml names does not exist: providers/gen.py")
    own = explain(tmp_path, NO_PYTHON_FILE, error="Error: the upstream generator is down")
    assert own == "Error: the upstream generator is down"
    assert explain(tmp_path, "", error="Error: Worker failed to become ready within timeout").startswith(
        'a Python worker did not start (promptfoo: "Worker failed to become ready within timeout")')


def test_an_unknown_failure_gives_its_last_lines_cut_to_one_line(tmp_path):
    said = explain(tmp_path, "building\nsomething odd happened\n" + "x" * 400 + "\n")
    assert said.startswith("building something odd happened xxx") and len(said) <= 300


#: a team's provider imports a package the gate's interpreter lacks (the pinned promptfoo's worker output)
IMPORT = """Python worker stderr: ERROR: Failed to load module: No module named 'slugify'
Python worker stderr: Traceback (most recent call last):
Python worker stderr:   File "/p/node_modules/promptfoo/dist/src/python/persistent_wrapper.py", line 106, in load_user_module
Python worker stderr:     spec.loader.exec_module(module)
Python worker stderr:   File "<frozen importlib._bootstrap>", line 241, in _call_with_frames_removed
Python worker stderr:   File "{cwd}/broll.py", line 1, in <module>
Python worker stderr:     import slugify
Python worker stderr: ModuleNotFoundError: No module named 'slugify'
Python worker crashed (1/3), restarting...
"""  # noqa: E501 (captured output, kept verbatim)


def test_a_providers_missing_import_names_the_file_the_module_and_where_to_add_it(tmp_path, monkeypatch):
    generic = "Error: Worker failed to become ready within timeout\n    at Timeout._onTimeout (file:///p/providers.js:1:1)"
    monkeypatch.delenv("INPUT_PYTHON_DEPENDENCIES", raising=False)
    said = explain(tmp_path, IMPORT, "promptfooconfig.terms.yaml", error=generic)
    assert said.startswith("the provider in broll.py imports slugify, which is not installed: name the project's Python "
                           "packages in the action's python-dependencies input"), said
    monkeypatch.setenv("INPUT_PYTHON_DEPENDENCIES", "requirements.txt")
    assert explain(tmp_path, IMPORT, "promptfooconfig.terms.yaml", error=generic) == (
        "the provider in broll.py imports slugify, which is not installed: add its package to requirements.txt "
        "(the action's python-dependencies input)")
