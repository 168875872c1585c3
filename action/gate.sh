#!/usr/bin/env bash
# The steps of reeljudge's GitHub Action (action.yml), one subcommand each; run in the user's
# working directory with the action's inputs as INPUT_* variables (docs/gates.md):
#   install   reeljudge (pip: this action's copy, a requirement, a wheel or folder; or preinstalled)
#             and, when there are configs to evaluate, promptfoo (npm, a pinned version) or a command
#   evaluate  each config into <results-dir>/<suite>.json; promptfoo's exit 100 (tests under their
#             threshold) is a finished eval; any other exit after a complete, fresh results file is
#             read as a finished eval too (0.121.20's shutdown crash after >= 150 tests), and said
#   baseline  the base results into reeljudge-baseline/: the results artifact of the last successful
#             push run of this workflow on the baseline branch (gh, read-only token), else the folder
#   compare   reeljudge compare -> reeljudge-gate/{comment.md,report.json,pr-number,head-sha}, the job
#             summary, the step outputs verdict and exit-code; always exits 0 (verdict exits)
#   verdict   exits with the comparison's exit code (after the report was kept as an artifact)
set -euo pipefail

state="${RUNNER_TEMP:-/tmp}/reeljudge-action"
mkdir -p "$state"

log() { echo "== reeljudge gate: $*"; }

install() {
  local spec="${INPUT_REELJUDGE_SPEC:-}"
  if [ "$spec" = preinstalled ]; then
    local command="${INPUT_REELJUDGE_COMMAND:-reeljudge}"
    if ! command -v "$command" >/dev/null 2>&1; then
      echo "reeljudge-spec is preinstalled but reeljudge-command '$command' is not an executable" >&2
      return 1
    fi
    command -v "$command" > "$state/reeljudge"
  else
    local -a target=("$spec")
    # the action's own copy: installed in place (editable), so its rubrics/ and protocols/ folders are found
    if [ -z "$spec" ]; then target=(--editable "$GITHUB_ACTION_PATH"); fi
    log "installing reeljudge from ${target[*]}"
    python3 -m venv "$state/venv"
    "$state/venv/bin/python" -m pip install --quiet --disable-pip-version-check "${target[@]}"
    echo "$state/venv/bin/reeljudge" > "$state/reeljudge"
  fi
  log "reeljudge: $(cat "$state/reeljudge")"
  [ -n "${INPUT_CONFIGS:-}" ] || return 0
  if [ -n "${INPUT_PROMPTFOO_COMMAND:-}" ]; then
    echo "$INPUT_PROMPTFOO_COMMAND" > "$state/promptfoo"
  else
    log "installing promptfoo@${INPUT_PROMPTFOO_VERSION}"
    npm install --prefix "$state/promptfoo" --no-audit --no-fund --loglevel=error "promptfoo@${INPUT_PROMPTFOO_VERSION}"
    echo "$state/promptfoo/node_modules/.bin/promptfoo" > "$state/promptfoo"
  fi
}

python_of_reeljudge() {
  # The interpreter reeljudge is installed in: promptfoo runs reeljudge's Python assertions with it.
  local exe
  exe="$(cat "$state/reeljudge")"
  if [ -x "$(dirname "$exe")/python" ]; then echo "$(dirname "$exe")/python"; else command -v python3; fi
}

complete_results() {
  # A results file written by this run ($2 is older) that holds every test promptfoo counted.
  local file=$1 since=$2
  [ -f "$file" ] && [ "$file" -nt "$since" ] || return 1
  node -e '
    const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const r = d.results || {}, s = r.stats || {}, n = (r.results || []).length;
    process.exit(n > 0 && n === (s.successes || 0) + (s.failures || 0) + (s.errors || 0) ? 0 : 1);
  ' "$file" 2>/dev/null
}

evaluate() {
  local results="${INPUT_RESULTS_DIR:-reeljudge-results}" status=0 line name config out rc
  local -a promptfoo
  read -ra promptfoo < "$state/promptfoo"
  mkdir -p "$results"
  export PROMPTFOO_PYTHON="${PROMPTFOO_PYTHON:-$(python_of_reeljudge)}"
  export PROMPTFOO_DISABLE_DEBUG_LOG="${PROMPTFOO_DISABLE_DEBUG_LOG:-1}" PROMPTFOO_DISABLE_TELEMETRY=1
  export PROMPTFOO_DISABLE_UPDATE=1 PROMPTFOO_DISABLE_SHARING=1
  while IFS= read -r line; do
    line="$(echo "$line" | xargs)"
    [ -n "$line" ] || continue
    if [[ "$line" == *=* ]]; then name="${line%%=*}"; config="${line#*=}"
    else config="$line"; name="$(basename "$line")"; name="${name%.yaml}"; name="${name%.yml}"; name="${name#promptfooconfig.}"; fi
    out="$results/$name.json"
    rm -f "$out"
    touch "$state/started"
    sleep 1  # file times have one-second resolution on some file systems
    log "$name: promptfoo eval -c $config"
    rc=0
    "${promptfoo[@]}" eval -c "$config" -o "$out" --no-progress-bar || rc=$?
    if [ $rc -eq 0 ] || [ $rc -eq 100 ]; then
      log "$name: finished (promptfoo exit $rc; 100: some tests under their threshold, the comparison decides)"
    elif complete_results "$out" "$state/started"; then
      log "$name: promptfoo exited $rc after writing a complete results file: read as a finished eval"
    else
      echo "== reeljudge gate: $name: promptfoo exited $rc without a complete results file" >&2
      status=1
    fi
  done <<< "$INPUT_CONFIGS"
  return $status
}

workflow_file() {
  # This workflow's file name, from GITHUB_WORKFLOW_REF (owner/repo/.github/workflows/<file>@ref).
  local ref="${GITHUB_WORKFLOW_REF:-}"
  ref="${ref%@*}"
  echo "${ref##*/}"
}

baseline() {
  rm -rf reeljudge-baseline && mkdir -p reeljudge-baseline
  local branch="${INPUT_BASELINE_BRANCH:-main}" folder="${INPUT_BASELINE_FOLDER:-baselines}" run_id="" workflow
  workflow="$(workflow_file)"
  if [ "${INPUT_BASELINE:-artifact}" = artifact ] && [ -n "${GH_TOKEN:-}" ] && [ -n "$workflow" ] && command -v gh >/dev/null 2>&1; then
    run_id=$(gh run list --repo "$GITHUB_REPOSITORY" --workflow "$workflow" --branch "$branch" --event push \
      --status success --limit 1 --json databaseId --jq '.[0].databaseId // empty' || true)
    if [ -n "$run_id" ] && gh run download "$run_id" --repo "$GITHUB_REPOSITORY" --name "${INPUT_ARTIFACT_NAME:-reeljudge-results}" --dir reeljudge-baseline; then
      echo "the results of run $run_id on $branch (${GITHUB_SERVER_URL:-https://github.com}/$GITHUB_REPOSITORY/actions/runs/$run_id)" > "$state/baseline-source"
    fi
  fi
  if ! ls reeljudge-baseline/*.json >/dev/null 2>&1 && ls "$folder"/*.json >/dev/null 2>&1; then
    cp "$folder"/*.json reeljudge-baseline/
    echo "the committed $folder/ folder" > "$state/baseline-source"
  fi
  if ls reeljudge-baseline/*.json >/dev/null 2>&1; then
    log "baseline: $(cat "$state/baseline-source")"
  else
    echo "no successful push run on $branch with a ${INPUT_ARTIFACT_NAME:-reeljudge-results} artifact, and no $folder/ folder" > "$state/baseline-missing"
    log "no baseline found ($(cat "$state/baseline-missing"))"
  fi
}

compare() {
  rm -rf reeljudge-gate && mkdir -p reeljudge-gate
  local code=0 reeljudge gate=() url="${GITHUB_SERVER_URL:-https://github.com}/${GITHUB_REPOSITORY:-}/actions/runs/${GITHUB_RUN_ID:-}"
  reeljudge="$(cat "$state/reeljudge")"
  if [ -f "${INPUT_GATE_FILE:-reeljudge.gate.yaml}" ]; then gate=(--gate "${INPUT_GATE_FILE:-reeljudge.gate.yaml}"); fi
  "$reeljudge" compare reeljudge-baseline "${INPUT_RESULTS_DIR:-reeljudge-results}" "${gate[@]}" --markdown reeljudge-gate/comment.md \
    --json reeljudge-gate/report.json --report-url "$url (artifact reeljudge-gate-report)" -q || code=$?
  {
    echo
    if [ -f "$state/baseline-missing" ]; then echo "Baseline: none ($(cat "$state/baseline-missing"))."
    else echo "Baseline: $(cat "$state/baseline-source" 2>/dev/null || echo 'reeljudge-baseline/')."; fi
    if [ -n "${HEAD_SHA:-}" ]; then echo "Candidate: ${HEAD_SHA}."; fi
    if [ -f "${INPUT_RESULTS_DIR:-reeljudge-results}/.gate-notes" ]; then cat "${INPUT_RESULTS_DIR:-reeljudge-results}/.gate-notes"; fi
  } >> reeljudge-gate/comment.md
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat reeljudge-gate/comment.md >> "$GITHUB_STEP_SUMMARY"; fi
  echo "${PR_NUMBER:-}" > reeljudge-gate/pr-number
  echo "${HEAD_SHA:-}" > reeljudge-gate/head-sha
  if [ "${INPUT_COMMENT:-true}" != true ]; then touch reeljudge-gate/no-comment; fi
  local verdict
  verdict=$(node -e 'try { console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).verdict) } catch (e) { console.log("could not compare") }' reeljudge-gate/report.json)
  echo "$code" > "$state/exit-code"
  echo "$verdict" > "$state/verdict"
  if [ -n "${GITHUB_OUTPUT:-}" ]; then printf 'verdict=%s\nexit-code=%s\n' "$verdict" "$code" >> "$GITHUB_OUTPUT"; fi
  cat reeljudge-gate/comment.md
  log "$verdict (exit $code)"
}

verdict() {
  local code
  code="$(cat "$state/exit-code" 2>/dev/null || echo 2)"
  log "$(cat "$state/verdict" 2>/dev/null || echo 'could not compare') (exit $code$([ "$code" = 0 ] || echo ': the job fails'))"
  exit "$code"
}

case "${1:-}" in
  install|evaluate|baseline|compare|verdict) "$1" ;;
  *) echo "usage: action/gate.sh install|evaluate|baseline|compare|verdict" >&2; exit 2 ;;
esac
