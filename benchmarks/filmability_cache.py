"""Wall time of a promptfoo eval of 100 tests whose assertion hits the judge cache, against the same
eval with a trivial Python assertion, measured in one run (goal: ratio ≤ 1.3): for filmability, and
the same benchmark for Gecko and the A/B judge (``--judges``).

Run: ``.venv/bin/python -m benchmarks.filmability_cache [--judges filmability,gecko,ab_judge]``
from the repository root. The cache is filled first with no key and no internet: filmability's
entries directly, Gecko's and the A/B judge's by judging each test once in this process against the
fake Gemini server (``tests/support/fake_gemini.py``). The evals run in cache mode ``replay`` with no key, so
a miss fails loudly instead of calling anything. ``--entries DIR`` takes the assertion entry files
(and the reeljudge they load) from another checkout, to measure before/after in one run.
``--result-floor`` adds a third kind of eval: a trivial assertion that returns the judge's own cached
result (computed once here), so what promptfoo spends on a large result is told apart from what the
judge's process spends.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
N_TESTS = 100
ROUNDS = 3
TERMS = ["server room", "engineer typing", "sunset over a data center"]
CLEAN = str(ROOT / "datasets" / "clips" / "gen_clean.mp4")
FLICKER = str(ROOT / "datasets" / "clips" / "gen_flicker.mp4")
PROMPT = "Take {i}: a red ball rolls past a textured wall while the camera pans"
TRIVIAL = '''def get_assert(output, context):
    return {"pass": True, "score": 1.0, "reason": "trivial"}
'''
FLOOR = '''import json

with open({path!r}, encoding="utf-8") as fh:
    RESULT = json.load(fh)


def get_assert(output, context):
    return RESULT
'''


def _narrations() -> list[str]:
    rows = yaml.safe_load((ROOT / "datasets" / "narrations.yaml").read_text())
    return [f"{rows[i % len(rows)]['narration']} (take {i})" for i in range(N_TESTS)]


def _fill_filmability(cache_dir: Path) -> list[dict[str, Any]]:
    """One cached Gemini judgement per test, under the exact key the assertion will compute; the tests."""
    from reeljudge.cache import open_cache, request_key
    from reeljudge.filmability.judge_gemini import filmability_request
    from reeljudge.gemini.settings import load_settings

    settings = load_settings({"cache_dir": str(cache_dir)}, env={})
    cache = open_cache(settings.cache_dir, "readwrite")
    value = {"breakdown": {"relevance": 3, "filmability": 3, "variety": 1}, "unfilmableTerms": [],
             "points": 7, "score": 1.0, "reason": "cached"}
    tests = []
    for narration in _narrations():
        key = request_key(filmability_request(narration, TERMS).cache_payload(settings))
        cache.put(key, "filmability", {"model": settings.model, "text": json.dumps(value), "value": value,
                                       "usage": {"prompt": 500, "output": 60, "cost_usd": 0.0}})
        tests.append({"narration": narration, "out": json.dumps(TERMS)})
    return tests


def _judged_once(get_assert: Callable, tests: list[dict[str, Any]], config: dict[str, Any]) -> None:
    """Grade every test once in this process (fills the cache); stops when one does not pass."""
    for vars_ in tests:
        result = get_assert(vars_["out"], {"vars": vars_, "config": config})
        if not result["pass"]:
            raise SystemExit(f"filling the cache failed: {result['reason']}")


def _fill_gecko(fake: Any) -> list[dict[str, Any]]:
    """Each test's three Gecko calls answered once by the fake server; the tests."""
    from reeljudge.assertions.gecko import get_assert
    from support.gecko_scripts import script_prompt

    tests = [{"prompt": PROMPT.format(i=i), "video": CLEAN, "out": CLEAN} for i in range(N_TESTS)]
    for vars_ in tests:
        script_prompt(fake, vars_["prompt"], matched=True)
    _judged_once(get_assert, tests, {})
    return tests


def _fill_ab_judge(fake: Any) -> list[dict[str, Any]]:
    """Each test's two A/B calls (both orders) answered once by the fake server; the tests."""
    from reeljudge.assertions.ab_judge import get_assert
    from reeljudge.media.refs import sha256_file
    from support.ab_judge_scripts import prefer

    prefer(fake, None, sha256_file(CLEAN), sha256_file(FLICKER))
    tests = [{"prompt": PROMPT.format(i=i), "video": CLEAN, "reference": FLICKER, "out": CLEAN} for i in range(N_TESTS)]
    _judged_once(get_assert, tests, {})
    return tests


def fill(judge: str, cache_dir: Path) -> list[dict[str, Any]]:
    """Fill ``cache_dir`` with one entry (or call set) per test of ``judge``; the tests' vars."""
    if judge == "filmability":
        return _fill_filmability(cache_dir)
    from support.fake_gemini import FakeGemini

    saved = dict(os.environ)
    os.environ.update({"REELJUDGE_CACHE_DIR": str(cache_dir), "GEMINI_API_KEY": "bench-key-not-real"})
    try:
        with FakeGemini() as fake:
            os.environ["GOOGLE_GEMINI_BASE_URL"] = fake.url
            return _fill_gecko(fake) if judge == "gecko" else _fill_ab_judge(fake)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _judge_result(judge: str, tests: list[dict[str, Any]], env: dict[str, str]) -> dict[str, Any]:
    """The judge's result for the first test, from the filled cache, in this process (for ``--result-floor``)."""
    import importlib

    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        module = importlib.import_module(f"reeljudge.assertions.{judge}")
        vars_ = tests[0]
        result = module.get_assert(vars_["out"], {"vars": vars_, "config": {"judge": "gemini"} if judge == "filmability" else {}})
    finally:
        os.environ.clear()
        os.environ.update(saved)
    if not (result["pass"] and result["metadata"].get("cache_hit")):
        raise SystemExit(f"{judge}: the result for the floor is not a passing cache hit: {result['reason']}")
    return result


def _config(work: Path, tests: list[dict[str, Any]], assertion: str, judge: str, name: str) -> Path:
    config = {
        "description": f"benchmark {judge}",
        "prompts": ["{{out}}"],
        "providers": ["echo"],
        "defaultTest": {"assert": [{"type": "python", "value": assertion,
                                    "config": {"judge": "gemini"} if judge == "filmability" else {}}]},
        "tests": [{"vars": vars_} for vars_ in tests],
    }
    path = work / f"bench-{judge}-{name}.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def _eval_seconds(config: Path, work: Path, env: dict[str, str]) -> tuple[float, float, dict]:
    """Wall seconds, CPU seconds of promptfoo and every process it started, and the eval's stats."""
    out = work / "out.json"
    before = os.times()
    started = time.perf_counter()
    proc = subprocess.run(
        ["bash", str(ROOT / "scripts" / "promptfoo.sh"), "eval", "-c", str(config), "-o", str(out),
         "--no-progress-bar", "--no-cache", "--no-table"],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )
    elapsed = time.perf_counter() - started
    after = os.times()
    if proc.returncode != 0:
        raise SystemExit(f"eval failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return elapsed, cpu, json.loads(out.read_text())["results"]["stats"]


def measure(judge: str, work: Path, entries: list[Path], rounds: int = ROUNDS, floor: bool = False) -> None:
    """Fill the cache, then alternate the evals ``rounds`` times; print medians and ratios to trivial."""
    tests = fill(judge, work / f"cache-{judge}")
    trivial = work / "trivial_assert.py"
    trivial.write_text(TRIVIAL)
    # as a user runs it: no key, and Python writing its bytecode (the first round compiles; the median drops it)
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE_API"))
              and k != "PYTHONDONTWRITEBYTECODE"},
           "REELJUDGE_CACHE_DIR": str(work / f"cache-{judge}"), "REELJUDGE_CACHE": "replay",
           "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9", "PROMPTFOO_CONFIG_DIR": str(work / "pf")}
    configs = {"trivial": _config(work, tests, f"file://{trivial}", judge, "trivial")}
    if floor:
        result_file, floor_entry = work / f"result-{judge}.json", work / f"floor_{judge}.py"
        result_file.write_text(json.dumps(_judge_result(judge, tests, env)))
        floor_entry.write_text(FLOOR.format(path=str(result_file)))
        configs["floor"] = _config(work, tests, f"file://{floor_entry}", judge, "floor")
    for i, root in enumerate(entries):
        configs[str(root)] = _config(work, tests, f"file://{root / 'assertions' / (judge + '.py')}", judge, f"entries{i}")
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in configs}
    for _ in range(rounds):
        for name, config in configs.items():
            wall, cpu, stats = _eval_seconds(config, work, env)
            if stats["successes"] != N_TESTS:
                raise SystemExit(f"{judge} eval ({name}) did not pass every test: {stats}")
            runs[name].append((wall, cpu))
    plain = statistics.median(w for w, _ in runs["trivial"])
    plain_cpu = statistics.median(c for _, c in runs["trivial"])
    for name, values in runs.items():
        wall, cpu = statistics.median(w for w, _ in values), statistics.median(c for _, c in values)
        label = {"trivial": "trivial python assertion",
                 "floor": f"trivial python assertion returning {judge}'s cached result"}.get(
            name, f"{judge} cache hits, entries from {name}")
        print(f"{label}: {N_TESTS} tests, median wall {wall:.2f} s (runs {[round(w, 2) for w, _ in values]}), "
              f"CPU {cpu:.2f} s; ratio to trivial {wall / plain:.2f}, CPU {cpu / plain_cpu:.2f} (goal ≤ 1.3); "
              f"load average {os.getloadavg()[0]:.1f}")


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments and measure each judge asked for."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judges", default="filmability", help="comma-separated: filmability, gecko, ab_judge")
    parser.add_argument("--entries", action="append", type=Path, default=[],
                        help="another checkout whose assertions/ (and reeljudge) to measure too; repeatable")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"evals of each kind, alternating (default {ROUNDS})")
    parser.add_argument("--result-floor", action="store_true",
                        help="also time a trivial assertion returning the judge's cached result")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        for judge in args.judges.split(","):
            measure(judge.strip(), Path(tmp), [ROOT, *[e.resolve() for e in args.entries]], args.rounds, args.result_floor)


if __name__ == "__main__":
    main()
