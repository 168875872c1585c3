"""A fresh set-up of the Python environment before and after the uv lock, measured in one run.

Each variant starts from a fresh clone of this repository (HEAD) and builds ``.venv`` with the
Python packages of the project and its test extra:
- before: the pre-lock set-up's commands (``python -m venv``; ``pip install --upgrade pip``;
  ``pip install -e ".[test]"``, resolving the ranges in pyproject.toml anew every time);
- after: ``scripts/setup.sh --python-only`` (uv from PyPI into .tools/uv, ``uv lock --check``,
  ``uv sync --locked --extra test``: exactly the locked versions).
Each once with an empty package cache (cold: everything downloaded) and once with the cache the
cold run left (warm: what a developer's second clone or a CI cache hit sees). The npm part of
set-up is the same before and after and is not timed here.

Run: ``.venv/bin/python -m benchmarks setup_install`` (several minutes, needs the registries; not
part of the default benchmark run).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _clone(folder: Path) -> Path:
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(folder)], check=True)
    return folder


def _timed(commands: list[list[str]], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    for command in commands:
        subprocess.run(command, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def _before(cwd: Path, env: dict[str, str]) -> float:
    pip = [".venv/bin/python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    return _timed([[sys.executable, "-m", "venv", ".venv"], [*pip, "--upgrade", "pip"], [*pip, "-e", ".[test]"]], cwd, env)


def _after(cwd: Path, env: dict[str, str]) -> float:
    return _timed([["bash", "scripts/setup.sh", "--python-only"]], cwd, env)


def _packages(cwd: Path) -> int:
    out = subprocess.run([".venv/bin/python", "-m", "pip", "list", "--format=freeze"], cwd=cwd, capture_output=True, text=True)
    if out.returncode != 0:  # a uv-made venv may have no pip
        out = subprocess.run([".tools/uv/bin/uv", "pip", "list", "--python", ".venv/bin/python", "--format=freeze"],
                             cwd=cwd, capture_output=True, text=True)
    return len([line for line in out.stdout.splitlines() if "==" in line or " @ " in line])


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        for name, install, cache_var in (("before (pip, ranges)", _before, "PIP_CACHE_DIR"),
                                         ("after (uv, lock)", _after, "UV_CACHE_DIR")):
            cache = tmp_path / f"cache-{cache_var}"
            env = {**os.environ, cache_var: str(cache), "PYTHON": sys.executable}
            for state in ("cold", "warm"):
                clone = _clone(tmp_path / f"{cache_var}-{state}")
                seconds = install(clone, env)
                rows.append((name, state, seconds, _packages(clone)))
                print(f"{name:22s} {state}: {seconds:6.1f} s ({rows[-1][3]} packages)", flush=True)
                shutil.rmtree(clone)
    times = {(n.split()[0], s): t for n, s, t, _ in rows}
    for state in ("cold", "warm"):
        print(f"{state}: after/before = {times[('after', state)] / times[('before', state)]:.2f}")


if __name__ == "__main__":
    main()
