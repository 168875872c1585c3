"""Where things are in the clone, for tests, benchmarks and scripts (test support).

One place knows the layout: a test in any folder of ``tests/`` asks here instead of walking up from its
own file, so moving a test between folders changes nothing.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the clone: tests/support/paths.py → the repository root
TESTS = ROOT / "tests"
TEST_DATA = TESTS / "data"  # reference data the tests compare against
SUITES = TESTS / "suites"  # the promptfoo suites the configs at the root name
CLIPS = ROOT / "datasets" / "clips"
GEN_CLEAN = CLIPS / "gen_clean.mp4"  # the generated clean clip most tests judge
