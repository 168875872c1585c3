#!/usr/bin/env bash
# Every test: unit tests, fake-Gemini tests and end-to-end promptfoo runs (all offline), then the
# end-to-end tests once more on the newest promptfoo release under Node 24 (REELJUDGE_PROMPTFOO=latest).
# Both passes run in parallel processes (pytest-xdist, one per core; REELJUDGE_TEST_WORKERS=N to
# choose, 0 for none), a module's tests in one process (--dist loadscope: its fixtures are built once; the
# modules that wait in real time start first, on half the processes: tests/support/runner_order.py);
# the wheel, npm tarball and user project are built once for both passes (REELJUDGE_TEST_RUN_DIR).
# Runs both passes even when the first fails; exits non-zero when either failed.
#
# --fast: the fast lane a developer runs after each change (npm run test:fast): every unit and
# fake-server test, one pass, no promptfoo process (marker e2e), no browser (marker browser) and
# nothing that runs set-up, builds packages, clones, runs the workflow harness, builds a corpus or
# starts a cluster (marker slow), two processes per core (REELJUDGE_TEST_WORKERS=N to choose).
# npm test runs every test: its first pass selects no marker (tests/house/test_lanes.py holds both).
set -uo pipefail
cd "$(dirname "$0")/.."
FAST_LANE="not e2e and not browser and not slow"
export PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1
# Bytecode is kept, in one folder inside .venv (never beside the sources): a machine that sets
# PYTHONDONTWRITEBYTECODE would otherwise have every one of a run's Python processes (workers,
# promptfoo's Python calls, the CLIs the tests start) compile each module again, and pytest rewrite
# every test file again (a fast-lane worker's collection: 11 s CPU without, 3 s with; docs/decisions.md)
export PYTHONPYCACHEPREFIX="${PYTHONPYCACHEPREFIX:-$PWD/.venv/pycache}"
unset PYTHONDONTWRITEBYTECODE
run_dir=$(mktemp -d "${TMPDIR:-/tmp}/reeljudge-test.XXXXXX") || exit 1
trap 'rm -rf "$run_dir"' EXIT
export REELJUDGE_TEST_RUN_DIR="$run_dir"
# what only its inputs decide (the offline judge's norms and embedded background bank) is kept between runs,
# keyed by a digest of those inputs (tests/support/run_once.py: once_per_checkout)
export REELJUDGE_TEST_KEEP_DIR="${REELJUDGE_TEST_KEEP_DIR:-$PWD/.venv/test-keep}"
workers="${REELJUDGE_TEST_WORKERS:-auto}"
parallel=(-n "$workers" --dist loadscope)
[ "$workers" = 0 ] && parallel=(-p no:xdist)

# pytest's exit code 5 (nothing collected): a failure, except in the second pass when the caller
# narrowed the selection (npm test -- tests/house holds no end-to-end test)
verdict() {
  local status=$1 what=$2 narrowed=$3
  if [ "$status" -eq 5 ] && [ "$narrowed" -eq 1 ]; then echo "(no $what among the selected tests)"; return 0; fi
  [ "$status" -eq 5 ] && echo "reeljudge tests: no $what collected" >&2
  return "$status"
}

if [ "${1:-}" = --fast ]; then
  shift
  # the lane waits more than it computes (a rater must watch both clips before a submit, server
  # deadlines, worker kills): two processes per core by default keep both cores busy (docs/decisions.md)
  fast_workers="${REELJUDGE_TEST_WORKERS:-$(.venv/bin/python -c 'import os; print(2 * (os.cpu_count() or 1))')}"
  lane=(-n "$fast_workers" --dist loadscope)
  [ "$fast_workers" = 0 ] && lane=(-p no:xdist)
  .venv/bin/python -m pytest -q -p no:cacheprovider "${lane[@]}" -m "$FAST_LANE" "$@"
  verdict $? "unit or fake-server test" $(( $# > 0 )); exit
fi

narrowed=$(( $# > 0 ))
.venv/bin/python -m pytest -q -p no:cacheprovider "${parallel[@]}" "$@"
verdict $? "test" 0; first=$?
echo "== the end-to-end tests again, on promptfoo $(REELJUDGE_PROMPTFOO=latest bash scripts/promptfoo.sh --version 2>/dev/null | tail -n 1) (newest release)"
# (tests marked pinned_promptfoo run a fixed release whatever the pass selects, e.g. the user project's own pinned one: once is enough)
REELJUDGE_PROMPTFOO=latest .venv/bin/python -m pytest -q -p no:cacheprovider "${parallel[@]}" -m "e2e and not pinned_promptfoo" "$@"
verdict $? "end-to-end test" "$narrowed"; second=$?
echo "== pinned promptfoo pass: exit $first; newest promptfoo pass: exit $second" >&2
[ "$first" -eq 0 ] && [ "$second" -eq 0 ]
