"""Wall time of a promptfoo eval of 100 tests whose filmability assertion hits the judge cache,
against the same eval with a trivial Python assertion, measured in one run (goal: ratio ≤ 1.5).

Run: ``.venv/bin/python -m benchmarks.filmability_cache`` from the repository root.
The cache is filled directly (no API, no key); the eval runs in cache mode ``replay``, so a miss
would fail loudly instead of calling anything.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import yaml

from reeljudge.cache import open_cache, request_key
from reeljudge.filmability.judge_gemini import filmability_request
from reeljudge.gemini.settings import load_settings

ROOT = Path(__file__).resolve().parents[1]
N_TESTS = 100
ROUNDS = 3
TERMS = ["server room", "engineer typing", "sunset over a data center"]
TRIVIAL = '''def get_assert(output, context):
    return {"pass": True, "score": 1.0, "reason": "trivial"}
'''


def _narrations() -> list[str]:
    rows = yaml.safe_load((ROOT / "datasets" / "narrations.yaml").read_text())
    return [f"{rows[i % len(rows)]['narration']} (take {i})" for i in range(N_TESTS)]


def _fill_cache(cache_dir: Path, narrations: list[str]) -> None:
    """One cached Gemini judgement per test, under the exact key the assertion will compute."""
    settings = load_settings({"cache_dir": str(cache_dir)}, env={})
    cache = open_cache(settings.cache_dir, "readwrite")
    value = {
        "breakdown": {"relevance": 3, "filmability": 3, "variety": 1},
        "unfilmableTerms": [],
        "points": 7,
        "score": 1.0,
        "reason": "cached",
    }
    for narration in narrations:
        request = filmability_request(narration, TERMS)
        key = request_key(request.cache_payload(settings))
        cache.put(key, "filmability", {"model": settings.model, "text": json.dumps(value), "value": value,
                                       "usage": {"prompt": 500, "output": 60, "cost_usd": 0.0}})


def _config(work: Path, narrations: list[str], assertion: str) -> Path:
    config = {
        "description": "benchmark",
        "prompts": ["{{terms}}"],
        "providers": ["echo"],
        "defaultTest": {"assert": [{"type": "python", "value": assertion, "config": {"judge": "gemini"}}]},
        "tests": [{"vars": {"narration": n, "terms": json.dumps(TERMS)}} for n in narrations],
    }
    path = work / f"bench-{Path(assertion).stem}.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def _eval_seconds(config: Path, work: Path, env: dict[str, str]) -> tuple[float, dict]:
    out = work / "out.json"
    started = time.perf_counter()
    proc = subprocess.run(
        ["bash", str(ROOT / "scripts" / "promptfoo.sh"), "eval", "-c", str(config), "-o", str(out),
         "--no-progress-bar", "--no-cache", "--no-table"],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"eval failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return elapsed, json.loads(out.read_text())["results"]["stats"]


def main() -> None:
    """Run both evals ROUNDS times, alternating, and print medians and their ratio."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        narrations = _narrations()
        _fill_cache(work / "cache", narrations)
        trivial = work / "trivial_assert.py"
        trivial.write_text(TRIVIAL)
        judged_cfg = _config(work, narrations, f"file://{ROOT / 'assertions' / 'filmability.py'}")
        trivial_cfg = _config(work, narrations, f"file://{trivial}")
        env = {**{k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE_API"))},
               "REELJUDGE_CACHE_DIR": str(work / "cache"), "REELJUDGE_CACHE": "replay",
               "PROMPTFOO_CONFIG_DIR": str(work / "pf")}
        judged, plain = [], []
        for _ in range(ROUNDS):
            seconds, stats = _eval_seconds(judged_cfg, work, env)
            if stats["successes"] != N_TESTS:
                raise SystemExit(f"cache-hit eval did not pass every test: {stats}")
            judged.append(seconds)
            plain.append(_eval_seconds(trivial_cfg, work, env)[0])
        j, p = statistics.median(judged), statistics.median(plain)
        print(f"filmability assertion, {N_TESTS} tests, all cache hits (replay): median {j:.2f} s  runs {[round(x, 2) for x in judged]}")
        print(f"trivial python assertion, {N_TESTS} tests:                      median {p:.2f} s  runs {[round(x, 2) for x in plain]}")
        print(f"ratio cache-hit / trivial: {j / p:.2f}  (goal ≤ 1.5)")


if __name__ == "__main__":
    main()
