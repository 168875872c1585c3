# Sourced by action/gate.sh: what a team's own project adds to the gate (docs/gates.md, "A team's own project"):
#   dependencies  the project's own Python packages (python-dependencies: a requirements file, pyproject.toml[:group],
#                 or uv.lock) installed into the interpreter promptfoo runs the Python providers and the judges with
#   calls-cache   where the judge cache and promptfoo's cache of provider outputs live, and their actions/cache key
#                 (none without configs: the job's own steps ran the suites and keep their caches; one entry a run; a run restores the newest of its own ref, else the default branch's: a pull
#                 request reads what main recorded and saves under its own scope, never main's)
#   calls         the generator and judge calls the run made and replayed, and the cost promptfoo reports
#   needs         (a function of evaluate) the variables a suite needs (the needs input), and the ones this run lacks

# shellcheck disable=SC2154  # state, action_path: set by gate.sh

dependencies() {
  # The project's own Python packages into the interpreter of reeljudge (skipped when the restored install has them).
  local given="${INPUT_PYTHON_DEPENDENCIES:-}" python file folder req="$state/python-dependencies.txt" rc=0 stamp
  [ -n "$given" ] || { log "python-dependencies: none named"; return 0; }
  python="$(python_of_reeljudge)"
  file="${given%%:*}"
  if [ ! -f "$file" ]; then
    note_failure dependencies "" "python-dependencies: there is no file $file (the path is relative to working-directory)"
    return 1
  fi
  folder="$(cd "$(dirname "$file")" && pwd)"
  "$python" "$action_path/action/dependencies.py" "$given" > "$req" 2> "$state/dependencies.err" || rc=$?
  if [ $rc -eq 3 ]; then
    uv_export "$python" "$folder" > "$req" || return 1
  elif [ $rc -ne 0 ]; then
    note_failure dependencies "" "$(head -1 "$state/dependencies.err")"
    return 1
  fi
  if [ "$(basename "$file")" != pyproject.toml ] && [ $rc -ne 3 ]; then req="$folder/$(basename "$file")"; fi  # -r its includes
  stamp="$(cat "$req" | sha256sum | cut -c1-16) ${INPUT_CACHE_KEY:-no cache}"
  if [ -n "${INPUT_CACHE_KEY:-}" ] && [ "$(cat "$state/venv/.reeljudge-dependencies" 2>/dev/null)" = "$stamp" ]; then
    log "python-dependencies: the cached virtualenv has $given's packages (${INPUT_CACHE_KEY}); not reinstalled"
    return 0
  fi
  log "installing the project's Python dependencies ($given) into $python"
  rc=0
  (cd "$folder" && "$python" -m pip install --disable-pip-version-check --quiet -r "$req") > "$state/dependencies.log" 2>&1 || rc=$?
  cat "$state/dependencies.log"
  if [ $rc -ne 0 ]; then
    note_failure dependencies "" "pip install -r $given failed (exit $rc): $(node "$action_path/action/explain.js" "$state/dependencies.log" 2>/dev/null || tail -1 "$state/dependencies.log")"
    return 1
  fi
  if [ -d "$state/venv" ]; then echo "$stamp" > "$state/venv/.reeljudge-dependencies"; fi
  log "python-dependencies: $(grep -cvE '^\s*(#|$)' "$req" || true) requirement line(s) of $given installed"
}

dependencies_key_part() {
  # The install cache key's part for python-dependencies: the input and its file's content.
  local given="${INPUT_PYTHON_DEPENDENCIES:-}"
  [ -n "$given" ] || return 0
  echo "python-dependencies $given"
  sha256sum "${given%%:*}" 2>/dev/null || echo "(no file ${given%%:*})"
}

uv_export() {
  # The requirement lines of the uv.lock in folder $2 (uv export: every package the lock resolves but the project itself).
  local python=$1 folder=$2 uv
  uv="$(command -v uv || true)"
  if [ -z "$uv" ]; then
    "$python" -m pip install --disable-pip-version-check --quiet uv > "$state/dependencies.log" 2>&1 \
      || { note_failure dependencies "" "python-dependencies: uv.lock needs uv, and pip could not install it: $(tail -1 "$state/dependencies.log")"; return 1; }
    uv="$(dirname "$python")/uv"
  fi
  (cd "$folder" && "$uv" export --frozen --no-hashes --no-emit-project --no-header --format requirements-txt) 2> "$state/dependencies.err" \
    || { note_failure dependencies "" "python-dependencies: uv export could not read $folder/uv.lock: $(head -1 "$state/dependencies.err")"; return 1; }
}

calls_cache() {
  # The judge cache and promptfoo's cache of provider outputs: absolute folders for every later step (GITHUB_ENV), and
  # their actions/cache key. Fresh calls (call-cache: fresh, or the pull request's label reeljudge-fresh): nothing is
  # restored, the new answers are saved.
  local judge="${REELJUDGE_CACHE_DIR:-.reeljudge/cache}" outputs="${PROMPTFOO_CACHE_PATH:-.reeljudge/promptfoo-cache}"
  local prefix key restore
  if [ -z "$(suites "${INPUT_CONFIGS:-} ${INPUT_KEY_CONFIGS:-}")" ]; then  # the job's own steps ran the suites, and keep their caches
    log "no configs: the job's own steps ran the suites; no call cache"
    if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "enabled=false" >> "$GITHUB_OUTPUT"; fi
    return 0
  fi
  case "$judge" in /*) ;; *) judge="$PWD/$judge" ;; esac
  case "$outputs" in /*) ;; *) outputs="$PWD/$outputs" ;; esac
  mkdir -p "$judge" "$outputs"
  prefix="reeljudge-calls-v1-$(uname -s)-"
  key="$prefix${GITHUB_RUN_ID:-0}-${GITHUB_RUN_ATTEMPT:-1}"
  restore="$prefix"
  if [ "${INPUT_CALL_CACHE:-true}" = fresh ] || fresh_label; then
    restore="${prefix}fresh-${GITHUB_RUN_ID:-0}"  # matches no entry
    log "fresh calls (call-cache: ${INPUT_CALL_CACHE:-true}$(fresh_label && echo ', label reeljudge-fresh')): nothing restored; this run's answers are saved"
  fi
  log "call cache: $judge (judge replies, cached generator outputs) and $outputs (promptfoo's), key $key"
  if [ -n "${GITHUB_ENV:-}" ]; then printf 'REELJUDGE_CACHE_DIR=%s\nPROMPTFOO_CACHE_PATH=%s\n' "$judge" "$outputs" >> "$GITHUB_ENV"; fi
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    printf 'enabled=true\nkey=%s\nrestore-prefix=%s\npaths<<REELJUDGE_PATHS\n%s\n%s\nREELJUDGE_PATHS\n' "$key" "$restore" "$judge" "$outputs" >> "$GITHUB_OUTPUT"
  fi
}

fresh_label() {
  # The pull request carries the label reeljudge-fresh (read from the event GitHub wrote to GITHUB_EVENT_PATH).
  [ -n "${GITHUB_EVENT_PATH:-}" ] && [ -f "$GITHUB_EVENT_PATH" ] && node -e '
    const e = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    process.exit(((e.pull_request || {}).labels || []).some((l) => l && l.name === "reeljudge-fresh") ? 0 : 1);
  ' "$GITHUB_EVENT_PATH" 2>/dev/null
}

calls() {
  # One line: the calls this run made and replayed (into the comment's notes; the job summary of a run that does not compare).
  local results="${INPUT_RESULTS_DIR:-reeljudge-results}" line
  [ -d "$results" ] || return 0
  line="$(node "$action_path/action/calls.js" "$results")"
  log "$line"
  echo "- $line" >> "$state/notes"
  if [ "${EVENT_NAME:-}" != pull_request ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then echo "$line" >> "$GITHUB_STEP_SUMMARY"; fi
}

missing_needs() {
  # The variables suite $1 needs (the needs input: one "suite: VAR VAR" a line) that are not set for this run.
  local line suite vars var missing=()
  while IFS= read -r line; do
    line="${line%%#*}"
    [[ "$line" == *:* ]] || continue
    suite="$(echo "${line%%:*}" | tr -d '[:space:]')" vars="${line#*:}"
    [ "$suite" = "$1" ] || continue
    for var in $vars; do
      if [ -z "${!var:-}" ]; then missing+=("$var"); fi
    done
  done <<< "${INPUT_NEEDS:-}"
  echo "${missing[*]}"
}

not_run_needs() {
  # Suite $1 set aside for want of variables $2: a neutral line, left out of the comparison (its baseline too).
  rm -f "$results/$1.json"
  echo "$1" >> "$state/not-run"
  echo "- ⚪ \`$1\`: not run: needs $2 (not set for this run, as in a pull request from a fork); not gated" >> "$state/notes"
  log "$1: not run: needs $2 (not set for this run); left out of the comparison"
}

check_needs() {
  # Fails with one sentence when the needs input names a suite that is not among the configs (a typo must not pass).
  local line suite known var
  known=" $(suites "${INPUT_CONFIGS:-} ${INPUT_KEY_CONFIGS:-}" | cut -d' ' -f1 | tr '\n' ' ') "
  while IFS= read -r line; do
    line="${line%%#*}"
    [ -n "$(echo "$line" | tr -d '[:space:]')" ] || continue
    suite="$(echo "${line%%:*}" | tr -d '[:space:]')"
    if [[ "$line" != *:* ]] || [[ "$known" != *" $suite "* ]]; then
      note_failure evaluate "" "needs: '$(echo "$line" | xargs)' does not name a suite of configs or key-configs (suite: VAR VAR; the suites:${known% })"
      return 1
    fi
    for var in ${line#*:}; do
      if ! [[ "$var" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]]; then
        note_failure evaluate "" "needs: '$var' (suite $suite) is not an environment variable's name (letters, digits, _)"
        return 1
      fi
    done
  done <<< "${INPUT_NEEDS:-}"
}
