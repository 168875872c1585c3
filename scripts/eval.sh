#!/usr/bin/env bash
# The main job: every suite that can run here, results JSON per suite under results/.
# Without Gemini credentials, suites and providers that need Gemini are left out (said below);
# with GEMINI_API_KEY / GOOGLE_API_KEY (or Vertex settings) they run too, and so they do with
# REELJUDGE_CACHE=replay (answers from the judge cache only, no key needed; a miss fails its test).
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p results

has_key=0
if [ -n "${GEMINI_API_KEY:-}${GOOGLE_API_KEY:-}" ]; then has_key=1; fi
case "${GOOGLE_GENAI_USE_VERTEXAI:-}" in 1|true|True|TRUE|yes) [ -n "${GOOGLE_CLOUD_PROJECT:-}" ] && has_key=1 ;; esac
if [ $has_key -eq 0 ] && [ "${REELJUDGE_CACHE:-}" = replay ]; then
  echo "== reeljudge: no Gemini credentials, cache mode replay: the Gemini suites answer from the judge cache"
  has_key=1
fi

status=0
run_suite() {
  local name=$1 config=$2; shift 2
  [ -f "$config" ] || return 0
  echo "== reeljudge: $name ($config)"
  bash scripts/promptfoo.sh eval -c "$config" -o "results/$name.json" --no-progress-bar "$@"
  local rc=$?
  if [ $rc -eq 100 ]; then
    echo "== $name: finished; some tests failed their threshold (see results/$name.json or: npm run view)"
  elif [ $rc -ne 0 ]; then
    echo "== $name: promptfoo exited with $rc" >&2
    status=$rc
  else
    echo "== $name: finished; all tests passed"
  fi
}

if [ $has_key -eq 1 ]; then
  run_suite filmability promptfooconfig.yaml
else
  echo "== reeljudge: no Gemini credentials; the Gemini term generator is left out and the offline judge grades"
  run_suite filmability promptfooconfig.yaml --filter-providers '^offline'
fi
run_suite video promptfooconfig.video.yaml
if [ $has_key -eq 1 ]; then
  run_suite gecko promptfooconfig.gecko.yaml
  if [ -f results/gecko.json ]; then
    # Suite-level check: on each clip the matched prompt must outscore its counter-prompt.
    .venv/bin/reeljudge gecko check-pairs results/gecko.json || status=1
  fi
else
  echo "== reeljudge: no Gemini credentials; the Gecko suite (a vision judge) is left out"
fi
if [ $has_key -eq 1 ]; then
  run_suite ab-judge promptfooconfig.ab-judge.yaml
else
  echo "== reeljudge: no Gemini credentials; the A/B judge suite runs with judge: probes (temporal and technical dimensions only, adherence not judged)"
  REELJUDGE_AB_JUDGE=probes run_suite ab-judge promptfooconfig.ab-judge.yaml
fi
exit $status
