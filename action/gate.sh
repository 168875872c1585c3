#!/usr/bin/env bash
# The steps of reeljudge's GitHub Action (action.yml), one subcommand each; run in the user's
# working directory with the action's inputs as INPUT_* variables (docs/gates.md):
#   cache-key what the install keeps between runs (actions/cache): the reeljudge virtualenv, the project's
#             node_modules, the promptfoo prefix; keyed by the OS, Python, Node, the reeljudge spec (the action's
#             own pyproject.toml and uv.lock, a wheel's content), the project's package-lock.json and promptfoo's
#             version; restore-keys only for the same interpreter (version, real path) and Node; a restored install
#             that still matches its key is used as it is, one that does not run here is rebuilt (docs/gates.md)
#   install   reeljudge (pip: this action's copy, a requirement, a wheel or folder; or preinstalled);
#             when there are configs to evaluate, the project's own npm packages (its package.json:
#             `npm install --no-save`, the locked versions) and promptfoo (the project's own, or npm
#             installs a pinned version, or a command)
#   evaluate  each config into <results-dir>/<suite>.json; promptfoo's exit 100 (tests under their
#             threshold) is a finished eval; any other exit after a complete, fresh results file is
#             read as a finished eval too (0.121.20's shutdown crash after >= 150 tests), and said;
#             a suite whose tests errored is said so (every test errored: the step fails); key-configs
#             run only with a Gemini key, else are "not run: no key" (noted, left out of the comparison)
#   baseline  the base results into reeljudge-baseline/: the results artifact of the last successful
#             push run of this workflow on the baseline branch (gh, read-only token), else the folder; only an
#             empty answer is "no baseline yet": gh missing, no token, an error, an artifact gone or empty is
#             "could not compare: <what gh said>" (compare: exit 2)
#   compare   reeljudge compare -> reeljudge-gate/{comment.md,report.json,pr-number,head-sha}, the job
#             summary, the step outputs verdict and exit-code; always exits 0 (verdict exits)
#   verdict   exits with the comparison's exit code (after the report was kept as an artifact)
#   explain   after any failed step (action.yml: if: failure()): which step failed, which suite, and the
#             first error in plain words (action/explain.js translates promptfoo's own), as the comment
#             text in reeljudge-gate/ and the job summary; every step notes its failures in $state/failures
# configs and key-configs: one config per word, words separated by spaces or new lines (a path
# cannot hold a space); `name=path` names the suite.
set -euo pipefail

state="${RUNNER_TEMP:-/tmp}/reeljudge-action"
action_path="${GITHUB_ACTION_PATH:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
DEFAULT_PROMPTFOO=0.121.20  # the newest promptfoo that runs on Node 20
mkdir -p "$state"

log() { echo "== reeljudge gate: $*"; }
# shellcheck source=action/failures.sh
source "$action_path/action/failures.sh"
# shellcheck source=action/team.sh
source "$action_path/action/team.sh"

install() {
  local spec="${INPUT_REELJUDGE_SPEC:-}"
  if [ "$spec" = preinstalled ]; then
    local command="${INPUT_REELJUDGE_COMMAND:-reeljudge}"
    if ! command -v "$command" >/dev/null 2>&1; then
      note_failure install "" "reeljudge-spec is preinstalled but reeljudge-command '$command' is not an executable"
      return 1
    fi
    command -v "$command" > "$state/reeljudge"
  else
    local -a target=("$spec")
    # the action's own copy: installed in place (editable), so its rubrics/ and protocols/ folders are found
    if [ -z "$spec" ]; then target=(--editable "$GITHUB_ACTION_PATH"); fi
    local why
    if cached "$state/venv" && runs_here "$state/venv" && "$state/venv/bin/reeljudge" --version >/dev/null 2>&1; then
      log "reeljudge: the cached virtualenv matches (${INPUT_CACHE_KEY}); not reinstalled"
    else
      if [ -e "$state/venv" ] && ! why=$(runs_here "$state/venv"); then  # a restored install that does not run: rebuilt
        log "the restored virtualenv does not run here ($why): rebuilt in a fresh folder"
        rm -rf "$state/venv"
      fi
      log "installing reeljudge from ${target[*]}"
      [ -x "$state/venv/bin/python" ] || logged "python3 -m venv" python3 -m venv "$state/venv"
      logged "pip install ${target[*]}" "$state/venv/bin/python" -m pip install --quiet --disable-pip-version-check "${target[@]}"
      stamp "$state/venv"
    fi
    echo "$state/venv/bin/reeljudge" > "$state/reeljudge"
  fi
  log "reeljudge: $(cat "$state/reeljudge") ($("$(cat "$state/reeljudge")" --version 2>&1 | head -1))"
  [ -n "$(suites "${INPUT_CONFIGS:-} ${INPUT_KEY_CONFIGS:-}")" ] || return 0
  if [ -f package.json ]; then
    # the project's own packages (the reeljudge npm package that `package:reeljudge:*` names, its
    # generators' dependencies): the locked versions. Not `npm ci`: npm 10-11 write locks that npm ci
    # refuses for promptfoo's platform-specific optional dependencies (docs/decisions.md)
    if cached node_modules; then
      log "the project's npm packages: the cached node_modules matches package.json and package-lock.json; not reinstalled"
    else
      log "installing the project's npm packages (npm install --no-save)"
      logged "npm install (the project's package.json)" npm install --no-save --no-audit --no-fund --loglevel=error
      stamp node_modules
    fi
  fi
  if [ -n "${INPUT_PROMPTFOO_COMMAND:-}" ]; then
    echo "$INPUT_PROMPTFOO_COMMAND" > "$state/promptfoo-command"
  elif [ -z "${INPUT_PROMPTFOO_VERSION:-}" ] && [ -x node_modules/.bin/promptfoo ]; then
    echo "$PWD/node_modules/.bin/promptfoo" > "$state/promptfoo-command"
  else
    local version="${INPUT_PROMPTFOO_VERSION:-$DEFAULT_PROMPTFOO}"
    if cached "$state/promptfoo-npm" && [ -x "$state/promptfoo-npm/node_modules/.bin/promptfoo" ]; then
      log "promptfoo@$version: the cached install matches; not reinstalled"
    else
      log "installing promptfoo@$version"
      logged "npm install promptfoo@$version" npm install --prefix "$state/promptfoo-npm" --no-save --no-audit --no-fund --loglevel=error "promptfoo@$version"
      stamp "$state/promptfoo-npm"
    fi
    echo "$state/promptfoo-npm/node_modules/.bin/promptfoo" > "$state/promptfoo-command"
  fi
  log "promptfoo: $(cat "$state/promptfoo-command")"
}

interpreter() {
  # The python3 on PATH, as found and as its real path (a venv links to the one as found).
  local found
  found=$(command -v python3 2>/dev/null || true)
  echo "${found:-none} $(readlink -f "${found:-/nonexistent}" 2>/dev/null || echo none)"
}

runs_here() {
  # Whether virtualenv $1 runs on this runner's python3 (the same real interpreter); else why not, on stdout.
  local base here
  if ! base=$("$1/bin/python" -c 'import os, sys; print(os.path.realpath(sys._base_executable))' 2>/dev/null); then
    echo "its bin/python does not start: $(readlink "$1/bin/python" 2>/dev/null || echo 'missing') (a moved interpreter, a half-restored folder)"
    return 1
  fi
  here=$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))' 2>/dev/null || echo none)
  if [ "$base" != "$here" ]; then echo "it was made with $base, this runner's python3 is $here"; return 1; fi
}

cached() {
  # Whether folder $1 was restored from the install cache under this run's own key (its stamp says so).
  [ -n "${INPUT_CACHE_KEY:-}" ] && [ "$(cat "$1/.reeljudge-install-key" 2>/dev/null)" = "$INPUT_CACHE_KEY" ]
}

stamp() {
  # Mark folder $1 as installed for this run's cache key (a later run restoring it under the same key uses it as is).
  if [ -n "${INPUT_CACHE_KEY:-}" ]; then echo "$INPUT_CACHE_KEY" > "$1/.reeljudge-install-key"; fi
}

cache_key() {
  # The install cache's key and paths, as step outputs for actions/cache (the key's parts: see the header).
  local spec="${INPUT_REELJUDGE_SPEC:-}" evaluates="" paths=() prefix
  [ -z "$(suites "${INPUT_CONFIGS:-} ${INPUT_KEY_CONFIGS:-}")" ] || evaluates=yes
  {
    echo "python $(interpreter) $(python3 -c 'import sys; print(sys.version)' 2>/dev/null) node $(node --version 2>/dev/null)"
    echo "spec ${spec:-$GITHUB_ACTION_PATH (editable)}"
    if [ -z "$spec" ]; then cat "$GITHUB_ACTION_PATH/pyproject.toml" "$GITHUB_ACTION_PATH/uv.lock" 2>/dev/null; fi
    if [ -f "$spec" ]; then sha256sum "$spec"; fi
    if [ -n "$evaluates" ]; then
      echo "promptfoo ${INPUT_PROMPTFOO_VERSION:-} ${INPUT_PROMPTFOO_COMMAND:-}"
      cat package.json package-lock.json 2>/dev/null || true
    fi
    dependencies_key_part  # the project's own Python dependencies (action/team.sh)
  } > "$state/cache-key-parts"
  # the prefix restore-keys matches: this OS, this interpreter (version, real path) and this Node, so a new runner
  # image or a Python patch update misses cleanly instead of restoring an install made for another interpreter
  prefix="reeljudge-install-v2-$(uname -s)-$(uname -m)-py$(python3 -c 'import platform; print(platform.python_version())' 2>/dev/null)"
  prefix+="-$(interpreter | sha256sum | cut -c1-8)-node$(node --version 2>/dev/null | tr -d v)-"
  if [ "$spec" != preinstalled ]; then paths+=("$state/venv"); fi
  if [ -n "$evaluates" ] && [ -z "${INPUT_PROMPTFOO_COMMAND:-}" ]; then
    if [ -f package.json ]; then paths+=("$PWD/node_modules"); fi
    if [ -n "${INPUT_PROMPTFOO_VERSION:-}" ] || [ ! -f package.json ]; then paths+=("$state/promptfoo-npm"); fi
  fi
  local key="$prefix$(sha256sum < "$state/cache-key-parts" | cut -c1-24)"
  log "install cache key: $key (${#paths[@]} folders)"
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    {
      echo "key=$key"
      echo "restore-prefix=$prefix"
      echo "enabled=$([ ${#paths[@]} -gt 0 ] && echo true || echo false)"  # preinstalled, no configs: nothing to keep
      echo "paths<<REELJUDGE_PATHS"
      if [ ${#paths[@]} -gt 0 ]; then printf '%s\n' "${paths[@]}"; fi
      echo "REELJUDGE_PATHS"
    } >> "$GITHUB_OUTPUT"
  fi
}

suites() {
  # One "name config" line per config word of $1 (spaces or new lines between words; `name=path`).
  local word name
  set -f  # a config word is a path, never a pattern
  for word in $1; do
    if [[ "$word" == *=* ]]; then name="${word%%=*}"; word="${word#*=}"
    else name="$(basename "$word")"; name="${name%.yaml}"; name="${name%.yml}"; name="${name#promptfooconfig.}"; fi
    echo "$name $word"
  done
  set +f
}

has_key() {
  # A Gemini judge can run: an API key, or Vertex AI switched on (its credentials are the runner's).
  [ -n "${GEMINI_API_KEY:-}" ] || [ -n "${GOOGLE_API_KEY:-}" ] || [[ "${GOOGLE_GENAI_USE_VERTEXAI:-}" =~ ^(1|true|True|TRUE)$ ]]
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

errored_tests() {
  # "<errored> <tests> <the first error, cut>" of a results file (errored: promptfoo's ERROR rows).
  node -e '
    const rows = ((JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).results || {}).results) || [];
    const bad = rows.filter((r) => r.failureReason === 2 || (r.error && !r.gradingResult));
    const first = bad.length ? String(bad[0].error || "an error").split("\n")[0].replace(/\s+/g, " ").slice(0, 300) : "";  // no stack
    console.log(`${bad.length} ${rows.length} ${first}`);
  ' "$1"
}

evaluate_one() {
  # One suite into $results/$1.json; the step fails (return 1) when it wrote no complete results or judged nothing.
  local name=$1 config=$2 out="$results/$1.json" rc=0 errored tests first log="$state/eval-$1.log"
  rm -f "$out"
  config_exists "$name" "$config" || return 1
  touch "$state/started"
  sleep 1  # file times have one-second resolution on some file systems
  log "$name: promptfoo eval -c $config"
  "${promptfoo[@]}" eval -c "$config" -o "$out" --no-progress-bar 2>&1 | tee "$log" || rc=${PIPESTATUS[0]}
  if [ $rc -ne 0 ] && [ $rc -ne 100 ] && ! complete_results "$out" "$state/started"; then
    note_failure evaluate "$name" "$(explained "$log" "$config") (promptfoo exited $rc and wrote no complete results file)"
    return 1
  fi
  read -r errored tests first < <(errored_tests "$out" || true)
  errored=${errored:-0} tests=${tests:-0}
  if [ "$errored" -gt 0 ]; then first=$(explained "$log" "$config" "$first"); fi
  if [ "$errored" -gt 0 ] && [ "$errored" -eq "$tests" ]; then
    note_failure evaluate "$name" "every test ($tests) errored, nothing was judged (promptfoo exit $rc); the first: $first"
    return 1
  elif [ "$errored" -gt 0 ]; then
    echo "== reeljudge gate: $name: $errored of $tests tests errored (promptfoo exit $rc; the comparison counts them as not judged); the first: $first" >&2
    echo "- ⚠️ \`$name\`: $errored of $tests tests errored (counted as not judged); the first: $first" >> "$state/notes"
  elif [ $rc -eq 0 ]; then
    log "$name: finished (promptfoo exit 0)"
  elif [ $rc -eq 100 ]; then
    log "$name: finished (promptfoo exit 100: some tests under their threshold, the comparison decides)"
  else
    log "$name: promptfoo exited $rc after writing a complete results file: read as a finished eval"
  fi
}

evaluate() {
  local results="${INPUT_RESULTS_DIR:-reeljudge-results}" status=0 name config  # results, promptfoo: read by evaluate_one
  local missing
  local -a promptfoo
  [ -n "$(suites "${INPUT_CONFIGS:-} ${INPUT_KEY_CONFIGS:-}")" ] || { log "no configs: the job's own steps wrote $results/"; return 0; }
  read -ra promptfoo < "$state/promptfoo-command"
  mkdir -p "$results"
  rm -f "$state/not-run" "$state/notes"
  export PROMPTFOO_PYTHON="${PROMPTFOO_PYTHON:-$(python_of_reeljudge)}"
  export PROMPTFOO_DISABLE_DEBUG_LOG="${PROMPTFOO_DISABLE_DEBUG_LOG:-1}" PROMPTFOO_DISABLE_TELEMETRY=1
  export PROMPTFOO_DISABLE_UPDATE=1 PROMPTFOO_DISABLE_SHARING=1
  # the npm package's preload (as README's commands): refuses the "telemetry disabled" event promptfoo posts anyway
  export NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--require $action_path/loopback.cjs"
  check_needs || return 1
  while read -r name config; do
    [ -n "$name" ] || continue
    missing="$(missing_needs "$name")"; if [ -n "$missing" ]; then not_run_needs "$name" "$missing"; continue; fi
    evaluate_one "$name" "$config" || status=1
  done < <(suites "${INPUT_CONFIGS:-}")
  while read -r name config; do
    [ -n "$name" ] || continue
    missing="$(missing_needs "$name")"; if [ -n "$missing" ]; then not_run_needs "$name" "$missing"; continue; fi
    if has_key; then
      evaluate_one "$name" "$config" || status=1
    else
      rm -f "$results/$name.json"
      echo "$name" >> "$state/not-run"
      echo "- ⚪ \`$name\`: not run: no key (GEMINI_API_KEY is not set for this run, as in every pull request from a fork); not gated" >> "$state/notes"
      log "$name: not run: no key (GEMINI_API_KEY is not set); left out of the comparison"
    fi
  done < <(suites "${INPUT_KEY_CONFIGS:-}")
  return $status
}

workflow_file() {
  # This workflow's file name, from GITHUB_WORKFLOW_REF (owner/repo/.github/workflows/<file>@ref).
  local ref="${GITHUB_WORKFLOW_REF:-}"
  ref="${ref%@*}"
  echo "${ref##*/}"
}

baseline() {
  # Only an empty answer is "no baseline yet": gh missing, no token, an error exit, an artifact gone or empty is
  # $state/baseline-error ("could not compare: <what gh said>"; docs/gates.md, "The gate's bad days").
  rm -rf reeljudge-baseline && mkdir -p reeljudge-baseline
  rm -f "$state/baseline-source" "$state/baseline-missing" "$state/baseline-error"
  local branch="${INPUT_BASELINE_BRANCH:-main}" folder="${INPUT_BASELINE_FOLDER:-baselines}" run_id="" workflow rc=0
  local artifact="${INPUT_ARTIFACT_NAME:-reeljudge-results}" said="$state/gh.log"
  workflow="$(workflow_file)"
  if [ "${INPUT_BASELINE:-artifact}" = artifact ]; then
    if ! command -v gh >/dev/null 2>&1; then
      baseline_error "gh (GitHub's CLI) is not on this runner's PATH"
    elif [ -z "${GH_TOKEN:-}" ]; then
      baseline_error "no token to read the runs with (the github-token input is empty)"
    elif [ -z "$workflow" ]; then
      baseline_error "this run's workflow file is unknown (GITHUB_WORKFLOW_REF is empty)"
    else
      run_id=$(gh run list --repo "$GITHUB_REPOSITORY" --workflow "$workflow" --branch "$branch" --event push \
        --status success --limit 1 --json databaseId --jq '.[0].databaseId // empty' 2> "$said") || rc=$?
      if [ "$rc" -ne 0 ]; then
        baseline_error "gh run list failed (exit $rc): $(gh_said "$said")"
      elif [ -n "$run_id" ]; then
        gh run download "$run_id" --repo "$GITHUB_REPOSITORY" --name "$artifact" --dir reeljudge-baseline 2> "$said" || rc=$?
        local where="the $artifact artifact of run $run_id on $branch (${GITHUB_SERVER_URL:-https://github.com}/$GITHUB_REPOSITORY/actions/runs/$run_id)"
        if [ "$rc" -ne 0 ] && grep -qi "no valid artifacts" "$said"; then
          baseline_error "$where is gone: gh run download said \"$(gh_said "$said")\" (an artifact is kept 90 days: a push to $branch, or re-running its last run, records a new baseline)"
        elif [ "$rc" -ne 0 ]; then
          baseline_error "gh run download of $where failed (exit $rc): $(gh_said "$said")"
        elif ! ls reeljudge-baseline/*.json >/dev/null 2>&1; then
          baseline_error "$where holds no results files (*.json)"
        else
          echo "the results of run $run_id on $branch (${GITHUB_SERVER_URL:-https://github.com}/$GITHUB_REPOSITORY/actions/runs/$run_id)" > "$state/baseline-source"
        fi
      fi
    fi
  fi
  if [ -f "$state/baseline-error" ]; then
    rm -rf reeljudge-baseline && mkdir -p reeljudge-baseline  # a part of a download is not a baseline
    log "could not compare: $(cat "$state/baseline-error")"
    return 0  # compare says so, as the verdict (exit 2)
  fi
  if ! ls reeljudge-baseline/*.json >/dev/null 2>&1 && ls "$folder"/*.json >/dev/null 2>&1; then
    cp "$folder"/*.json reeljudge-baseline/
    echo "the committed $folder/ folder" > "$state/baseline-source"
  fi
  if ls reeljudge-baseline/*.json >/dev/null 2>&1; then
    log "baseline: $(cat "$state/baseline-source")"
  else
    echo "no successful push run on $branch with a $artifact artifact, and no $folder/ folder" > "$state/baseline-missing"
    log "no baseline found ($(cat "$state/baseline-missing"))"
  fi
}

baseline_error() {
  # The baseline exists or may exist but could not be fetched: why, for compare (never "no baseline yet").
  printf '%s\n' "$1" > "$state/baseline-error"
}

gh_said() {
  # What gh wrote to stderr ($1), on one line and cut (no token can be in it: gh never prints the token).
  local text
  text=$(tr '\n' ' ' < "$1" | sed -e 's/[[:space:]]\+/ /g' -e 's/^ //' -e 's/ $//' | cut -c1-400)
  echo "${text:-nothing on stderr}"
}

compare() {
  rm -rf reeljudge-gate && mkdir -p reeljudge-gate
  local code=0 reeljudge gate=() url="${GITHUB_SERVER_URL:-https://github.com}/${GITHUB_REPOSITORY:-}/actions/runs/${GITHUB_RUN_ID:-}"
  reeljudge="$(cat "$state/reeljudge")"
  if [ -f "${INPUT_GATE_FILE:-reeljudge.gate.yaml}" ]; then gate=(--gate "${INPUT_GATE_FILE:-reeljudge.gate.yaml}"); fi
  local name
  while read -r name; do  # a suite not run for want of a key is not compared: its baseline is set aside
    [ -z "$name" ] || rm -f "reeljudge-baseline/$name.json"
  done < <(cat "$state/not-run" 2>/dev/null)
  if [ -f "$state/baseline-error" ]; then gate+=(--baseline-unavailable "$(cat "$state/baseline-error")"); fi
  "$reeljudge" compare reeljudge-baseline "${INPUT_RESULTS_DIR:-reeljudge-results}" "${gate[@]}" --markdown reeljudge-gate/comment.md \
    --json reeljudge-gate/report.json --report-url "$url (artifact reeljudge-gate-report)" -q 2> "$state/compare.log" || code=$?
  cat "$state/compare.log" >&2
  if [ ! -f reeljudge-gate/report.json ]; then  # it did not finish (a crash, not a verdict): say so, never a verdict
    note_failure compare "" "reeljudge compare did not finish (exit $code): $(explained "$state/compare.log" "")"
    failure_comment compare
    code=2
  fi
  {
    echo
    if [ -f "$state/baseline-error" ]; then echo "Baseline: could not be fetched ($(cat "$state/baseline-error"))."
    elif [ -f "$state/baseline-missing" ]; then echo "Baseline: none ($(cat "$state/baseline-missing"))."
    else echo "Baseline: $(cat "$state/baseline-source" 2>/dev/null || echo 'reeljudge-baseline/')."; fi
    if [ -n "${HEAD_SHA:-}" ]; then echo "Candidate: ${HEAD_SHA}."; fi
    if [ -f "${INPUT_RESULTS_DIR:-reeljudge-results}/.gate-notes" ]; then cat "${INPUT_RESULTS_DIR:-reeljudge-results}/.gate-notes"; fi
    if [ -f "$state/notes" ]; then echo; cat "$state/notes"; fi
    # the suites compared with a baseline: the comment job never turns a ❌ into a ✅ for a run that compared fewer
    echo
    node -e 'try { const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
      console.log(`<!-- reeljudge-gate-compared: ${(r.suites || []).filter((s) => Array.isArray(s.metrics) || s.accepted).map((s) => s.name).join(",")} -->`) }
      catch (e) { console.log("<!-- reeljudge-gate-compared: -->") }' reeljudge-gate/report.json
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
  cache-key) cache_key ;;
  install) rm -f "$state"/failures "$state"/started-* "$state"/ok-* "$state/install.log"; touch "$state/started-install"; install; touch "$state/ok-install" ;;
  evaluate|baseline|compare) touch "$state/started-$1"; "$1"; touch "$state/ok-$1" ;;
  verdict|explain) "$1" ;;
  dependencies) touch "$state/started-dependencies"; dependencies; touch "$state/ok-dependencies" ;;
  calls-cache) calls_cache ;;
  calls) calls ;;
  *) echo "usage: action/gate.sh cache-key|install|dependencies|calls-cache|evaluate|calls|baseline|compare|verdict|explain" >&2; exit 2 ;;
esac
