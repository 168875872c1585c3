"""What a user installs: wheel size, installed size, install time into an empty virtualenv (cold
and warm package cache) and the import time of each judge's entry, for one or more checkouts
measured in one run (each given checkout, e.g. exports of the commits before and after).

For each checkout: ``uv build --wheel``; then ``uv venv`` + ``uv pip install <wheel>`` (core, no
extras) twice, first with an empty uv cache (cold: everything downloaded from PyPI), then with the
cache the cold run left (warm). Installed size is the virtualenv's ``site-packages``. Import time
is the median of 7 fresh interpreters per judge entry (after one run that writes the bytecode),
whole process, wall and CPU; the trivial ``python -c pass`` beside them.

Run: ``.venv/bin/python -m benchmarks.install_weight [CHECKOUT ...]`` (minutes; needs PyPI; not
part of the default benchmark run).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
UV = ROOT / ".tools" / "uv" / "bin" / "uv"
ENTRIES = {
    "filmability": "reeljudge.assertions.filmability",
    "gecko": "reeljudge.assertions.gecko",
    "probes": "reeljudge.assertions.video_probes",
    "ab_judge": "reeljudge.assertions.ab_judge",
    "trivial": None,
}


def _run(command: list[str], env: dict[str, str]) -> float:
    """Run ``command``; its wall seconds (SystemExit with its output if it fails)."""
    started = time.perf_counter()
    proc = subprocess.run(command, env=env, capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"{' '.join(command)} failed:\n{proc.stdout[-1500:]}\n{proc.stderr[-1500:]}")
    return time.perf_counter() - started


def _size(folder: Path) -> int:
    """Bytes of every file under ``folder``."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def _install(wheel: Path, venv: Path, env: dict[str, str]) -> float:
    """Seconds to create ``venv`` and install ``wheel`` (core) into it."""
    python = Path(sys.base_exec_prefix) / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    return _run([str(UV), "venv", "--quiet", "--python", str(python), str(venv)], env) + \
        _run([str(UV), "pip", "install", "--quiet", "--python", str(venv / "bin" / "python"), str(wheel)], env)


def _imports(venv: Path, env: dict[str, str]) -> dict[str, tuple[float, float]]:
    """Per entry: median wall and CPU milliseconds of a whole fresh interpreter importing it
    (CPU from the children's rusage, user + system)."""
    out = {}
    for name, module in ENTRIES.items():
        command = [str(venv / "bin" / "python"), "-c", f"import {module}" if module else "pass"]
        subprocess.run(command, env=env, check=True, capture_output=True)  # writes the bytecode
        walls, cpus = [], []
        for _ in range(7):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            subprocess.run(command, env=env, check=True, capture_output=True)
            walls.append(time.perf_counter() - started)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        out[name] = (1000 * statistics.median(walls), 1000 * statistics.median(cpus))
    return out


def measure(source: Path, work: Path) -> dict[str, Any]:
    """Every figure for the checkout at ``source``."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    env.update({"UV_CACHE_DIR": str(work / "uv-cache"), "UV_PYTHON_DOWNLOADS": "never", "UV_NO_CONFIG": "1"})
    _run([str(UV), "build", "--wheel", "--quiet", "--out-dir", str(work / "dist"), str(source)], env)
    wheel = next((work / "dist").glob("reeljudge-*.whl"))
    cold = _install(wheel, work / "cold", env)
    warm = _install(wheel, work / "warm", env)
    site = next((work / "warm" / "lib").glob("python3*/site-packages"))
    packages = len(list(site.glob("*.dist-info")))
    return {"wheel_kb": wheel.stat().st_size / 1024, "installed_mb": _size(site) / 1e6, "packages": packages,
            "install_cold_s": cold, "install_warm_s": warm, "import_ms": _imports(work / "warm", env)}


def main(argv: list[str] | None = None) -> None:
    """Measure each checkout and print one block per checkout."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkouts", type=Path, nargs="*", default=[ROOT],
                        help="source trees to build and measure (default: this one); e.g. `git archive` exports of two commits")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    results = {}
    for source in args.checkouts:
        with tempfile.TemporaryDirectory() as tmp:
            results[str(source)] = figures = measure(source.resolve(), Path(tmp))
        print(f"== {source}: wheel {figures['wheel_kb']:.0f} kB; installed {figures['installed_mb']:.0f} MB in "
              f"{figures['packages']} packages; install cold {figures['install_cold_s']:.1f} s, warm "
              f"{figures['install_warm_s']:.1f} s")
        for name, (wall, cpu) in figures["import_ms"].items():
            print(f"   import {name:<12} wall {wall:6.0f} ms  CPU {cpu:6.0f} ms")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
