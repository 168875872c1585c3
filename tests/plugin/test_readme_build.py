"""The README's build lines, run as written in a fresh clone (uv is not on PATH there: set-up puts it in .tools/uv/bin).

The block after ``<!-- build-steps -->`` in README.md is read here (README and test cannot drift).
Its first line, ``bash scripts/setup.sh``, is the project's set-up (minutes: a virtualenv and
promptfoo's npm tree); the test plays it by linking set-up's uv folder into the clone, checks the
line is there, and runs every other line unchanged with bash, offline (``UV_OFFLINE``: uv builds
from its cache) and with no ``uv`` on ``PATH``. The files must land where the lines' comments say.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from support.paths import ROOT

pytestmark = pytest.mark.slow  # clones the repository and builds in the clone

SETUP = "bash scripts/setup.sh"


def build_block() -> list[str]:
    """The README's build lines (comments stripped), in order."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"<!-- build-steps -->\n```bash\n(.*?)```", text, re.DOTALL)
    assert match, "README.md has no build-steps block"
    return [line for line in match.group(1).splitlines() if line.strip()]


def test_the_readme_build_lines_work_in_a_fresh_clone(tmp_path):
    lines = build_block()
    assert lines[0].split("#")[0].strip() == SETUP
    promised = [m for line in lines for m in re.findall(r"→ (\S+)", line)]
    assert len(promised) == 2 and promised[0].endswith(".whl") and promised[1].endswith(".tgz"), promised
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    (clone / ".tools").mkdir()
    (clone / ".tools" / "uv").symlink_to(ROOT / ".tools" / "uv")  # what set-up installed
    path = [p for p in os.environ["PATH"].split(os.pathsep) if p and not Path(p).resolve().is_relative_to(ROOT)]
    env = {**os.environ, "PATH": os.pathsep.join(path), "UV_OFFLINE": "1", "npm_config_offline": "true"}
    assert shutil.which("uv", path=env["PATH"]) is None  # the README must not rely on uv being on PATH
    for line in lines[1:]:
        proc = subprocess.run(["bash", "-euo", "pipefail", "-c", line], cwd=clone, env=env,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, (line, proc.stdout[-2000:], proc.stderr[-2000:])
    for path in promised:
        assert (clone / path).is_file(), (path, sorted(p.name for p in (clone / "dist").iterdir()))
