"""The npm package's interpreter: REELJUDGE_PYTHON, else PROMPTFOO_PYTHON, else the first python3 on
PATH; one that cannot run, is too old or lacks reeljudge fails every test, naming it and the fix.

The package is laid out as npm installs it (node_modules/reeljudge/{index.js, reeljudge/warm/client.js},
no Python code beside it), and driven by Node as promptfoo calls it: ``require(...).filmability(output, context)``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support.paths import ROOT


CALL_TWICE = """
const pkg = require(process.argv[1]);
const client = require(process.argv[1] + '/reeljudge/warm/client.js');
if (process.argv[2]) client.settings.minPython = process.argv[2];
(async () => {
  const out = [];
  for (const d of ['first', 'second'])
    out.push(await pkg.videoProbes('x', { vars: { clip: 'nope.mp4' }, test: { description: d } }));
  console.log(JSON.stringify(out));
})();
"""


@pytest.fixture(scope="module")
def package(tmp_path_factory) -> Path:
    """node_modules/reeljudge as npm installs it from the tarball (the package.json "files")."""
    folder = tmp_path_factory.mktemp("npm") / "node_modules" / "reeljudge"
    for name in json.loads((ROOT / "package.json").read_text())["files"] + ["package.json"]:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, folder / name)
    return folder


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory) -> Path:
    """A real Python without reeljudge (a new virtualenv with nothing installed)."""
    folder = tmp_path_factory.mktemp("bare") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    return folder / "bin" / "python"


def node_env(**env: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k not in ("REELJUDGE_PYTHON", "PROMPTFOO_PYTHON", "PYTHONPATH")}
    return {**base, **env}


def call(package: Path, env: dict[str, str], min_python: str = "") -> list[dict]:
    proc = subprocess.run(["node", "-e", CALL_TWICE, str(package), min_python], env=env, capture_output=True,
                          text=True, timeout=120,
                          cwd=package.parent.parent)  # promptfoo's folder: the worker's current folder (never the repository)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def choice(package: Path, env: dict[str, str]) -> dict:
    script = "console.log(JSON.stringify(require(process.argv[1] + '/reeljudge/warm/client.js').pythonChoice()))"
    return json.loads(subprocess.run(["node", "-e", script, str(package)], env=env,
                                     capture_output=True, text=True, check=True).stdout)


def test_the_interpreter_is_reeljudge_python_else_promptfoo_python_else_python3(package):
    assert (choice(package, node_env(REELJUDGE_PYTHON="/a/python", PROMPTFOO_PYTHON="/b/python"))
            == {"command": "/a/python", "source": "REELJUDGE_PYTHON"})
    assert choice(package, node_env(PROMPTFOO_PYTHON="/b/python")) == {"command": "/b/python", "source": "PROMPTFOO_PYTHON"}
    assert choice(package, node_env()) == {"command": "python3", "source": "the first python3 on PATH"}


def assert_every_test_fails(results: list[dict], *needles: str) -> None:
    for result, name in zip(results, ("first", "second")):
        assert result["pass"] is False and result["score"] == 0
        assert result["metadata"] == {"judge": "video_probes", "error_kind": "python_interpreter", "judged": False}
        assert result["reason"].startswith(f"FAIL video_probes did not judge (python_interpreter) in test '{name}': cannot "
                                           "start the warm worker:")
        for needle in needles:
            assert needle in result["reason"], result["reason"]
    assert results[0]["reason"].split(": ", 1)[1] == results[1]["reason"].split(": ", 1)[1]  # the same reason, no retry story


def test_an_interpreter_that_cannot_run_fails_every_test_naming_it(package, tmp_path):
    missing = str(tmp_path / "no-such-python")
    results = call(package, node_env(REELJUDGE_PYTHON=missing))
    assert_every_test_fails(results,
                            f'the Python interpreter "{missing}" (from REELJUDGE_PYTHON) cannot be run (spawn {missing} ENOENT)',
                            "set REELJUDGE_PYTHON (or PROMPTFOO_PYTHON) to the Python of the virtualenv where "
                            "reeljudge is installed")


def test_a_python_without_reeljudge_fails_every_test_saying_how_to_install_it(package, bare_python):
    results = call(package, node_env(PROMPTFOO_PYTHON=str(bare_python)))
    assert_every_test_fails(results, f'the Python interpreter "{bare_python}" (from PROMPTFOO_PYTHON; {bare_python}, Python ',
                            ") cannot import reeljudge (No module named 'reeljudge')",
                            "install reeljudge into it (pip install reeljudge, or the wheel built from the repository")


def test_the_first_python3_on_path_is_used_when_nothing_is_set(package, bare_python, tmp_path):
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python3").symlink_to(bare_python)
    node = shutil.which("node")
    results = call(package, node_env(PATH=f"{tmp_path / 'bin'}{os.pathsep}{Path(node).parent}"))
    assert_every_test_fails(results,
                            'the Python interpreter "python3" (from the first python3 on PATH; '
                            f'{tmp_path / "bin" / "python3"}, Python',
                            "cannot import reeljudge")


def test_a_python_that_is_too_old_fails_every_test_naming_its_version(package):
    version = ".".join(map(str, sys.version_info[:3]))
    results = call(package, node_env(REELJUDGE_PYTHON=sys.executable), min_python="3.99")
    assert_every_test_fails(results,
                            f'the Python interpreter "{sys.executable}" (from REELJUDGE_PYTHON; {sys.executable}) '
                            f'is Python {version};',
                            "reeljudge needs Python 3.99 or newer")


def test_a_python_with_reeljudge_runs_the_installed_judge_module(package):
    results = call(package, node_env(REELJUDGE_PYTHON=sys.executable))  # the project's venv: reeljudge installed (editable)
    for result in results:
        assert result["pass"] is False and result["metadata"]["judged"] is False
        assert ("did not judge (media_error)" in result["reason"]
                and "nope.mp4: file not found" in result["reason"]), result["reason"]


def test_a_python_with_another_release_of_reeljudge_fails_every_test_naming_both(package, tmp_path):
    import reeljudge

    other = tmp_path / "node_modules" / "reeljudge"
    shutil.copytree(package, other)
    manifest = json.loads((other / "package.json").read_text())
    (other / "package.json").write_text(json.dumps({**manifest, "version": "9.9.9"}))
    results = call(other, node_env(REELJUDGE_PYTHON=sys.executable))
    assert_every_test_fails(results,
                            f'the Python interpreter "{sys.executable}" (from REELJUDGE_PYTHON; {sys.executable}, Python ',
                            f"has reeljudge {reeljudge.__version__} installed, but this npm package is reeljudge 9.9.9",
                            'pip install "reeljudge==9.9.9"')
