# Sourced by action/gate.sh: how a failed step explains itself. Every step notes its failures
# (note_failure: step, suite, the first error in plain words; logged: an install command whose output is
# kept and read; explained: action/explain.js over a suite's promptfoo output); after a failed step,
# `gate.sh explain` (action.yml: if: failure()) writes the comment text and the job summary naming the
# step, the suite and the error. Bash and Node only: the step that failed may be the one that installs reeljudge.

note_failure() {
  # One failure for the explain step: "<step><TAB><suite><TAB><plain words>" (the first is the one the comment leads with).
  printf '%s\t%s\t%s\n' "$1" "$2" "$(printf '%s' "$3" | tr '\t\n' '  ')" >> "$state/failures"
  echo "== reeljudge gate: ${2:+$2: }$3" >&2
}

logged() {
  # Run "$@" (an install command) with its output shown and kept in $state/install.log; on failure note
  # what failed ($1) and its first error in plain words.
  local what=$1 rc=0
  shift
  "$@" 2>&1 | tee "$state/install-step.log" || rc=${PIPESTATUS[0]}
  cat "$state/install-step.log" >> "$state/install.log"
  if [ "$rc" -ne 0 ]; then
    note_failure install "" "$what failed (exit $rc): $(node "$action_path/action/explain.js" "$state/install-step.log" 2>/dev/null || tail -1 "$state/install-step.log")"
    return "$rc"
  fi
}

explained() {
  # The plain words for a suite's failure: action/explain.js over its promptfoo output ($1), optionally a test's error ($3).
  local log=$1 config=$2 error=${3-}
  if [ -n "$error" ]; then node "$action_path/action/explain.js" --error "$error" "$log" "$config" 2>/dev/null || echo "$error"
  else node "$action_path/action/explain.js" "$log" "$config" 2>/dev/null || tail -1 "$log"; fi
}

config_exists() {
  # The config file is there, else a failure naming it and the configs that are (a typo in configs:?).
  [ -f "$2" ] && return 0
  local there
  there=$(cd "$(dirname "$2")" 2>/dev/null && ls -- *.yaml *.yml 2>/dev/null | head -8 | paste -sd' ')
  note_failure evaluate "$1" "configs: there is no file $2 (a typo?${there:+ the configs there: $there})"
  return 1
}

step_name() {
  # The step of action.yml a gate.sh subcommand (or the upload between them) runs in.
  case "$1" in
    install) echo "Install reeljudge and promptfoo" ;;
    dependencies) echo "Install the project's Python dependencies" ;; evaluate) echo "Evaluate the configs" ;;
    upload) echo "Keep the results" ;; baseline) echo "Fetch the baseline" ;; compare) echo "Compare with the baseline" ;;
    *) echo "$1" ;;
  esac
}

failed_step() {
  # The first step that failed: the first noted failure's, else the first subcommand that started and did not finish,
  # else the upload after a finished evaluate (its only failure: no results files).
  local step
  if [ -s "$state/failures" ]; then cut -f1 "$state/failures" | head -1; return; fi
  for step in install evaluate baseline compare; do
    if [ -f "$state/started-$step" ] && [ ! -f "$state/ok-$step" ]; then echo "$step"; return; fi
  done
  if [ -f "$state/ok-evaluate" ] && [ ! -f "$state/started-baseline" ]; then echo upload; else echo unknown; fi
}

failure_comment() {
  # reeljudge-gate/comment.md (and the job summary) for a run that failed at step $1 before a verdict.
  local step=$1 suite message first lines=""
  mkdir -p reeljudge-gate
  if [ -s "$state/failures" ]; then
    IFS=$'\t' read -r _ suite message < <(head -1 "$state/failures")
    lines=$(awk -F'\t' '{ printf "- **%s**: ❌ %s\n", ($2 == "" ? $1 : $2), $3 }' "$state/failures")
  elif [ "$step" = upload ]; then
    suite="" message="no results files in ${INPUT_RESULTS_DIR:-reeljudge-results}/ to keep (with configs: empty, the job's own steps must write them)"
  else
    suite="" message="the step failed before it said why; its log in the job has the details"
  fi
  first="${suite:+$suite: }$message"
  {
    echo "<!-- reeljudge-gate -->"
    echo "## reeljudge gate: ❌ the step \"$(step_name "$step")\" failed — $first"
    echo
    if [ -n "$lines" ]; then echo "$lines"; else echo "- ❌ $first"; fi
    if [ -f "$state/notes" ]; then cat "$state/notes"; fi
    echo
    echo "Nothing was compared: the gate stops at the first step that fails. The job's log (step \"$(step_name "$step")\") has the tools' own output."
    if [ -n "${HEAD_SHA:-}" ]; then echo; echo "Candidate: ${HEAD_SHA}."; fi
  } > reeljudge-gate/comment.md
  echo "${PR_NUMBER:-}" > reeljudge-gate/pr-number
  echo "${HEAD_SHA:-}" > reeljudge-gate/head-sha
  if [ "${INPUT_COMMENT:-true}" != true ]; then touch reeljudge-gate/no-comment; fi
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat reeljudge-gate/comment.md >> "$GITHUB_STEP_SUMMARY"; fi
  cat reeljudge-gate/comment.md
}

explain() {
  # After a failed step (action.yml: if: failure()): the comment text and the job summary say which step, which suite, why.
  local step
  step=$(failed_step)
  rm -rf reeljudge-gate
  failure_comment "$step"
  if [ -n "${GITHUB_OUTPUT:-}" ]; then printf 'verdict=%s\nexit-code=%s\n' "failed: $(step_name "$step")" 1 >> "$GITHUB_OUTPUT"; fi
}
