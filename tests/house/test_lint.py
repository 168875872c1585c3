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
