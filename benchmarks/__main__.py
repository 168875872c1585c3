"""Run every benchmark in one go: ``.venv/bin/python -m benchmarks`` (or ``npm run bench``)."""

from __future__ import annotations

import importlib
import sys

BENCHMARKS = ("filmability_cache", "gecko_calls", "probes", "probes_corpus", "ab_load", "term_accuracy", "relevance",
              "library_probes", "filmability_bulk", "compare_speed", "ab_judge_calls", "batch", "warm_path", "media_resolver")


def main(names: list[str]) -> None:
    """Run the named benchmarks (all by default), each printing its own figures."""
    for name in names or BENCHMARKS:
        try:
            module = importlib.import_module(f"benchmarks.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"benchmarks.{name}":
                print(f"== {name}: not present, skipped")
                continue
            raise
        print(f"== {name}", flush=True)
        sys.argv = [f"benchmarks.{name}"]  # each benchmark parses its own (empty) command line
        module.main()


if __name__ == "__main__":
    main(sys.argv[1:])
