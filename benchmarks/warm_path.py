"""The warm path, measured: a promptfoo eval of N filmability tests (offline judge, judge cache cold
and warm) and of N Gemini-judge tests that hit the judge cache, each through the plain Python
assertion (a new Python process per test) and through the warm path (assertions/filmability.js →
one long-lived worker), in one run; beside them, the floor: promptfoo's own in-process JavaScript
assertion over the same N tests, plus the judging itself (the same get_assert calls in one
Python process, timed there).

Usage: ``.venv/bin/python -m benchmarks.warm_path [--tests 1000] [--concurrency 4]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
TERMS = ["server room", "engineer typing", "sunset over a data center"]
JUDGED = {"breakdown": {"relevance": 3, "filmability": 3, "variety": 1}, "unfilmableTerms": [], "points": 7,
          "score": 1.0, "reason": "cached"}


def narrations(n: int) -> list[str]:
    rows = yaml.safe_load((ROOT / "datasets" / "narrations.yaml").read_text())
    return [f"{rows[i % len(rows)]['narration']} (take {i})" for i in range(n)]


def fill_gemini_cache(cache_dir: Path, texts: list[str]) -> None:
    """One recorded Gemini judgement per test, under the key the assertion computes (no API, no key)."""
    from reeljudge.cache import open_cache, request_key
    from reeljudge.filmability.judge_gemini import filmability_request
    from reeljudge.gemini.settings import load_settings

    settings = load_settings({"cache_dir": str(cache_dir)}, env={})
    cache = open_cache(settings.cache_dir, "readwrite")
    for text in texts:
        key = request_key(filmability_request(text, TERMS).cache_payload(settings))
        cache.put(key, "filmability", {"model": settings.model, "text": json.dumps(JUDGED), "value": JUDGED,
                                       "usage": {"prompt": 500, "output": 60, "cost_usd": 0.0}}, sync=False)


def config(work: Path, name: str, texts: list[str], assertion: dict) -> Path:
    tests = [{"vars": {"narration": t, "terms": json.dumps(TERMS)}} for t in texts]
    path = work / f"{name}.yaml"
    path.write_text(yaml.safe_dump({"description": name, "prompts": ["{{terms}}"], "providers": ["echo"],
                                    "defaultTest": {"assert": [assertion]}, "tests": tests}, sort_keys=False))
    return path


def judge(kind: str, path: str, judge_name: str) -> dict:
    value = f"file://{ROOT / 'assertions' / path}"
    return {"type": kind, "value": value, "config": {"judge": judge_name, "threshold": 0.8}}


def run_eval(path: Path, work: Path, cache_dir: Path, concurrency: int, extra_env: dict | None = None) -> tuple[float, dict]:
    """Wall time of one ``promptfoo eval`` and its stats (successes, failures, errors)."""
    out = work / f"{path.stem}-{time.monotonic_ns()}.json"
    env = {**os.environ, "PROMPTFOO_CONFIG_DIR": str(work / "promptfoo"), "REELJUDGE_CACHE_DIR": str(cache_dir),
           **(extra_env or {})}
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"):
        env.pop(name, None)
    started = time.perf_counter()
    proc = subprocess.run(["bash", "scripts/promptfoo.sh", "eval", "-c", str(path), "-o", str(out), "--no-progress-bar",
                           "--no-cache", "-j", str(concurrency)], cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if proc.returncode not in (0, 100) or not out.exists():
        raise RuntimeError(f"promptfoo eval failed ({proc.returncode}):\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return wall, json.loads(out.read_text())["results"]["stats"]


def in_process(texts: list[str], cache_dir: Path, judge_name: str, mode: str) -> float:
    """Seconds for the same get_assert calls in one fresh Python process (the judging itself)."""
    code = (
        "import json, sys, time\n"
        "from reeljudge.assertions.filmability import get_assert\n"
        "texts, terms, name = json.loads(sys.stdin.read())\n"
        "t = time.perf_counter()\n"
        "for n in texts:\n"
        "    get_assert(json.dumps(terms), {'vars': {'narration': n}, 'config': {'judge': name, 'threshold': 0.8}})\n"
        "print(time.perf_counter() - t)\n"
    )
    env = {**os.environ, "REELJUDGE_CACHE_DIR": str(cache_dir), "REELJUDGE_CACHE": mode}
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, input=json.dumps([texts, TERMS, judge_name]),
                          capture_output=True, text=True, check=True)
    return float(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=1000, help="tests per eval (default 1000)")
    parser.add_argument("--concurrency", type=int, default=4, help="promptfoo -j (default 4)")
    args = parser.parse_args(argv if argv is not None else sys.argv[1:])
    n, j = args.tests, args.concurrency
    texts = narrations(n)
    rows: list[tuple[str, float, float, float]] = []
    with tempfile.TemporaryDirectory(prefix="warm-bench-") as tmp:
        work = Path(tmp)
        floor_cfg = config(work, "js-floor", texts, {"type": "javascript", "value": "output.length > 0"})
        floor, _ = run_eval(floor_cfg, work, work / "unused", j)
        for label, judge_name, mode in (("offline judge, cache cold", "local", "readwrite"),
                                        ("offline judge, cache warm", "local", "readwrite"),
                                        ("Gemini judge, cache hits (replay)", "gemini", "replay")):
            times = {}
            for path_kind, (kind, entry) in (("python", ("python", "filmability.py")),
                                             ("warm", ("javascript", "filmability.js"))):
                cache = work / f"cache-{judge_name}-{path_kind}"
                if judge_name == "gemini" and not cache.exists():
                    fill_gemini_cache(cache, texts)
                if label.endswith("cache warm") and not (work / f"warmed-{path_kind}").exists():
                    run_eval(config(work, f"prime-{path_kind}", texts, judge(kind, entry, judge_name)), work, cache, j)
                    (work / f"warmed-{path_kind}").touch()
                if label.endswith("cache cold"):
                    cache = work / f"cold-{path_kind}"
                cfg = config(work, f"{path_kind}-{judge_name}", texts, judge(kind, entry, judge_name))
                times[path_kind], stats = run_eval(cfg, work, cache, j, {"REELJUDGE_CACHE": mode})
                if stats.get("errors"):
                    raise RuntimeError(f"{label} ({path_kind}): {stats['errors']} errors")
            judging_cache = work / f"judging-{judge_name}-{label[-4:]}"
            if judge_name == "gemini":
                fill_gemini_cache(judging_cache, texts)
            elif label.endswith("cache warm"):
                in_process(texts, judging_cache, judge_name, mode)
            judging = in_process(texts, judging_cache, judge_name, mode)
            rows.append((label, times["python"], times["warm"], judging))
    lines = [f"promptfoo eval of {n} tests (-j {j}), echo provider; wall seconds",
             f"floor: promptfoo's own in-process JavaScript assertion: {floor:.1f} s ({floor / n * 1000:.1f} ms/test)", "",
             f"{'suite':36} {'python':>9} {'warm':>9} {'speed-up':>9} {'floor+judging':>14} {'warm/goal':>10}"]
    for label, python, warm, judging in rows:
        goal = floor + judging
        lines.append(f"{label:36} {python:9.1f} {warm:9.1f} {python / warm:8.1f}x {goal:14.1f} {warm / goal:9.2f}x")
    lines += ["", "judging = the same get_assert calls in one Python process (model loaded once), timed there; "
                  "goal = floor + judging (serial: the warm worker overlaps calls only as far as the GIL allows)"]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
