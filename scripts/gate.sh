#!/usr/bin/env bash
# The pull-request gate, one step per subcommand; .github/workflows/reeljudge-gate.yml runs them in
# this order (and tests/test_workflow_steps.py runs the workflow's steps locally):
#   gate.sh suites    every suite into results/: with a Gemini key in cache mode readwrite; without
#                     one (fork pull requests) in replay mode from the restored judge cache, where a
#                     miss fails its test as "did not judge"; with neither, the offline suites only
#   gate.sh baseline  the base results into baseline/: the results artifact of the last successful
#                     run on the base branch (needs GH_TOKEN and gh), else the committed baselines/
#   gate.sh compare   reeljudge compare baseline/ results/ -> gate/comment.md (the one PR comment),
#                     gate/report.json, the job summary; exits 0 pass, 1 regression, 2 cannot compare
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
  mkdir -p gate && echo "$mode" > gate/cache-mode
  rm -rf results
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

baseline() {
  rm -rf baseline && mkdir -p baseline
  local workflow="${GATE_WORKFLOW:-reeljudge-gate.yml}" branch="${BASE_BRANCH:-main}" run_id=""
  if [ -n "${GH_TOKEN:-}" ] && command -v gh >/dev/null 2>&1; then
    run_id=$(gh run list --repo "$GITHUB_REPOSITORY" --workflow "$workflow" --branch "$branch" --event push \
      --status success --limit 1 --json databaseId --jq '.[0].databaseId // empty' || true)
    if [ -n "$run_id" ] && gh run download "$run_id" --repo "$GITHUB_REPOSITORY" --name reeljudge-results --dir baseline; then
      echo "the results of run $run_id on $branch (${GITHUB_SERVER_URL:-https://github.com}/$GITHUB_REPOSITORY/actions/runs/$run_id)" > baseline/.source
    fi
  fi
  if ! ls baseline/*.json >/dev/null 2>&1 && ls baselines/*.json >/dev/null 2>&1; then
    cp baselines/*.json baseline/
    echo "the committed baselines/ folder" > baseline/.source
  fi
  if ls baseline/*.json >/dev/null 2>&1; then
    echo "== gate: baseline: $(cat baseline/.source)"
  else
    echo "no successful run on $branch with a reeljudge-results artifact, and no baselines/ folder" > baseline/.missing
    echo "== gate: no baseline found ($(cat baseline/.missing))"
  fi
}

compare() {
  mkdir -p gate
  local code=0
  .venv/bin/reeljudge compare baseline results --markdown gate/comment.md --json gate/report.json -q || code=$?
  {
    echo
    if [ -f baseline/.missing ]; then echo "Baseline: none ($(cat baseline/.missing))."
    else echo "Baseline: $(cat baseline/.source 2>/dev/null || echo 'baseline/')."; fi
    if [ -n "${HEAD_SHA:-}" ]; then echo "Candidate: ${HEAD_SHA}."; fi
    if [ -f gate/cache-mode ]; then echo "Judge cache mode: $(cat gate/cache-mode)."; fi
  } >> gate/comment.md
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat gate/comment.md >> "$GITHUB_STEP_SUMMARY"; fi
  echo "${PR_NUMBER:-}" > gate/pr-number
  echo "${HEAD_SHA:-}" > gate/head-sha
  cat gate/comment.md
  return $code
}

case "${1:-}" in
  suites|baseline|compare) "$1" ;;
  *) echo "usage: scripts/gate.sh suites|baseline|compare" >&2; exit 2 ;;
esac
