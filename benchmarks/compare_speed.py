"""``reeljudge compare`` on two 10,000-test results files (10 metrics each), measured in one run.

Reports the wall time of a whole compare (read, match, 2,000-resample intervals for every
metric, Markdown and JSON) against the time it takes just to ``json.load`` the two files, and the
joint column bootstrap against one ``scipy.stats.bootstrap`` per metric on the same differences.
Goal: a compare costs at most 4x reading the JSON it compares.

Run: ``.venv/bin/python -m benchmarks.compare_speed [--tests N]`` from the repository root.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from typing import Any, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # test support: support.*

N_TESTS = 10_000
METRICS = tuple(f"metric_{i}" for i in range(8))


def _timed(func: Callable[[], object]) -> float:
    start = time.perf_counter()
    func()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    """Measure and print."""
    import numpy as np

    from reeljudge.gates.gatefile import GateSettings
    from reeljudge.gates.markdown import render
    from reeljudge.gates.run import compare_paths, comparison_json
    from reeljudge.stats.bootstrap import bootstrap_column_means, bootstrap_mean
    from support.results_fixtures import RunSpec, write_results

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=N_TESTS, help=f"tests in each results file (default {N_TESTS:,})")
    n_tests = parser.parse_args(argv).tests
    with tempfile.TemporaryDirectory() as tmp:
        base = write_results(Path(tmp) / "base.json", RunSpec(n_tests=n_tests, metrics=METRICS, seed=1))
        cand = write_results(Path(tmp) / "cand.json",
                             RunSpec(n_tests=n_tests, metrics=METRICS, seed=2, effects={"metric_3": -0.05}))
        size = (base.stat().st_size + cand.stat().st_size) / 1e6
        t_json = min(_timed(lambda: (json.loads(base.read_text()), json.loads(cand.read_text()))) for _ in range(2))
        result: dict[str, Any] = {}

        def run() -> None:
            comparison = compare_paths(base, cand, GateSettings())
            result["text"], result["json"] = render(comparison), json.dumps(comparison_json(comparison))
            result["exit"] = comparison.exit_code

        t_compare = min(_timed(run) for _ in range(2))
    diffs = np.random.default_rng(0).normal(0, 0.07, (n_tests, len(METRICS) + 2))
    t_joint = _timed(lambda: bootstrap_column_means(diffs))
    t_each = _timed(lambda: [bootstrap_mean(diffs[:, j]) for j in range(diffs.shape[1])])
    print(f"two results files of {n_tests} tests x {len(METRICS) + 2} metrics: {size:.0f} MB of JSON")
    print(f"json.load of both files: {t_json:.2f} s")
    print(f"reeljudge compare (read, match, intervals, Markdown, JSON): {t_compare:.2f} s, exit {result['exit']}")
    print(f"  ratio compare / json.load: {t_compare / t_json:.1f}x (goal <= 4x)")
    print(f"intervals for {diffs.shape[1]} metrics, 2000 resamples: joint column bootstrap {t_joint:.2f} s, "
          f"scipy.stats.bootstrap per metric {t_each:.2f} s ({t_each / t_joint:.1f}x slower)")


if __name__ == "__main__":
    main()
