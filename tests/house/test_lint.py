"""Static checks that find bugs before a test does: undefined names, unused imports, syntax errors (ruff)."""

import subprocess
import sys

from support.paths import ROOT


def test_pyflakes_checks_pass_on_all_python_code():
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise",
         "reeljudge", "assertions", "providers", "benchmarks", "scripts", "tests"],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_no_file_is_exempt_from_a_check():
    import tomllib

    lint = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["ruff"]["lint"]
    assert lint.get("per-file-ignores", {}) == {}, "files exempt from ruff's checks: fix them instead"
