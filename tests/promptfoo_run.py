"""Running the project's pinned promptfoo from tests, the way the README's scripts run it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def run_promptfoo_eval(
    config: str, tmp_path: Path, *args: str, env: dict[str, str] | None = None, timeout: int = 600
) -> tuple[int, dict[str, Any], str]:
    """Run ``promptfoo eval -c config`` from the project root; (exit code, results JSON, output)."""
    out = tmp_path / "results.json"
    full_env = {
        **os.environ,
        "PROMPTFOO_CONFIG_DIR": str(tmp_path / "promptfoo"),
        "PROMPTFOO_CACHE_PATH": str(tmp_path / "promptfoo-cache"),
        **(env or {}),
    }
    proc = subprocess.run(
        ["bash", "scripts/promptfoo.sh", "eval", "-c", config, "-o", str(out), "--no-progress-bar", "--no-cache", *args],
        cwd=ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    output = proc.stdout + proc.stderr
    results = json.loads(out.read_text()) if out.exists() else {}
    return proc.returncode, results, output


def rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The per-cell results of a promptfoo results JSON."""
    return results["results"]["results"]
