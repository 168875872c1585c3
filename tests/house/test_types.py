"""The type checker: mypy, configured in pyproject.toml ([tool.mypy]), finds no error in the package, the benchmarks
and the tests' shared support (``tests/support``, imported as ``support``).

It runs in both lanes (``npm run test:fast`` and ``npm test``) as this test; a type error fails it with
mypy's own report. mypy keeps its incremental cache in ``.mypy_cache`` at the top of the clone, so a
second run checks only what changed (docs/decisions.md, "Type checker"). No module is exempt: the offline
filmability judge's identity is what its code means, not its bytes (``local_version.code_meaning``), so its
type fixes keep it.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib

from support.paths import ROOT

def mypy_settings() -> dict:
    """The [tool.mypy] table of pyproject.toml."""
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]


def test_the_checker_covers_the_package_benchmarks_and_test_support_and_silences_no_module() -> None:
    settings = mypy_settings()
    assert settings["packages"] == ["reeljudge", "benchmarks", "support"]
    assert settings["mypy_path"] == "tests"  # where ``support`` is found, as the tests and the benchmarks import it
    silenced = sorted(m for o in settings.get("overrides", []) if o.get("ignore_errors") for m in o["module"])
    assert silenced == [], f"errors silenced in {silenced}"


def test_mypy_finds_no_type_error_in_the_package_the_benchmarks_or_the_test_support() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-color-output", "--no-pretty"],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
