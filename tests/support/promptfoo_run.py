"""Running the project's pinned promptfoo from tests, the way the README's scripts run it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from support.paths import ROOT

#: preloaded into ``promptfoo view``, which binds every interface: it listens on 127.0.0.1 only
LOOPBACK_ONLY = ROOT / "loopback.cjs"  # the npm package's own preload (the README's viewer command)


#: the markers of the test pytest is running (set by the root conftest; None outside pytest)
RUNNING_MARKERS: set[str] | None = None


def require_e2e(what: str) -> None:
    """Refuse to start promptfoo for a test not marked ``e2e``: the fast lane (``-m "not e2e"``) runs none."""
    if RUNNING_MARKERS is not None and "e2e" not in RUNNING_MARKERS:
        raise AssertionError(f"{what} starts a promptfoo process: mark the test e2e (the fast lane runs no promptfoo)")


#: result fields that hold timings: the only thing that may differ between two runs of one suite
TIMINGS = {"latency_ms", "elapsed_ms", "seconds", "decode_s", "wall_s"}


def run_promptfoo_eval(
    config: str, tmp_path: Path, *args: str, env: dict[str, str] | None = None, timeout: int = 600
) -> tuple[int, dict[str, Any], str]:
    """Run ``promptfoo eval -c config`` from the project root; (exit code, results JSON, output)."""
    require_e2e(f"promptfoo eval -c {config}")
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


def judged(cell: dict[str, Any], judge: str, mode: str | None = None) -> dict[str, Any]:
    """Our component result of ``judge`` (and A/B ``mode``) in a promptfoo result cell."""
    return next(c for c in cell["gradingResult"]["componentResults"]
                if (c.get("metadata") or {}).get("judge") == judge and (mode is None or c["metadata"].get("mode") == mode))


def comparable(value: Any) -> Any:
    """A result without timings (the only thing that may differ between two runs)."""
    if isinstance(value, dict):
        return {k: comparable(v) for k, v in value.items() if k not in TIMINGS and k != "assertion"}
    if isinstance(value, list):
        return [comparable(v) for v in value]
    return value


@contextmanager
def promptfoo_view(config_dir: Path, *, cwd: Path = ROOT, timeout: float = 120) -> Iterator[str]:
    """``promptfoo view`` of the database in ``config_dir`` (PROMPTFOO_CONFIG_DIR), on a free port of
    127.0.0.1 only; yields its base URL once it answers, stops it after."""
    import httpx

    from support.ab_study import free_port

    require_e2e("promptfoo view")
    port = free_port()
    env = {**os.environ, "PROMPTFOO_CONFIG_DIR": str(config_dir), "NODE_OPTIONS": f"--require {LOOPBACK_ONLY}"}
    view = subprocess.Popen(["bash", str(ROOT / "scripts" / "promptfoo.sh"), "view", "-p", str(port), "-n"], cwd=cwd, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        base, deadline = f"http://127.0.0.1:{port}", time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if httpx.get(base + "/health", timeout=2).status_code < 500:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        yield base
    finally:
        os.killpg(view.pid, signal.SIGTERM)
        view.wait(20)
