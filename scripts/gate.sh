#!/usr/bin/env bash
# This project's own suites for its pull-request gate (.github/workflows/reeljudge-gate.yml runs this,
# then the reusable action, action.yml, which fetches the baseline, compares and leaves the comment):
#   gate.sh suites    every suite into results/: with a Gemini key in cache mode readwrite; without
#                     one (fork pull requests) in replay mode from the restored judge cache, where a
#                     miss fails its test as "did not judge"; with neither, the offline suites only.
#                     The cache mode goes into results/.gate-notes, which the action adds to the comment
set -euo pipefail
cd "$(dirname "$0")/.."

suites() {
  local mode
  if [ -n "${GEMINI_API_KEY:-}${GOOGLE_API_KEY:-}" ]; then
    export REELJUDGE_CACHE=readwrite
    mode="readwrite (Gemini key present)"
  elif [ -n "$(ls -A "${REELJUDGE_CACHE_DIR:-.reeljudge/cache}" 2>/dev/null)" ]; then
    export REELJUDGE_CACHE=replay
    mode="replay (no Gemini key: answers come from the restored judge cache; a miss fails its test as not judged)"
  else
    mode="offline suites only (no Gemini key and no recorded judge cache)"
  fi
  echo "== gate: judge cache mode: $mode"
  rm -rf results
  mkdir -p results && echo "Judge cache mode: $mode." > results/.gate-notes
  local code=0
  bash scripts/eval.sh || code=$?
  if [ $code -ne 0 ]; then  # e.g. the Gecko pair check on tests that did not judge: compare reports them
    echo "== gate: scripts/eval.sh exited $code; the comparison decides (a suite without results cannot be compared)"
  fi
  if ! ls results/*.json >/dev/null 2>&1; then
    echo "== gate: no suite wrote results" >&2
    return 1
  fi
}

case "${1:-}" in
  suites) "$1" ;;
  *) echo "usage: scripts/gate.sh suites" >&2; exit 2 ;;
esac
