#!/usr/bin/env bash
# The job summary of a run that records a baseline (action.yml, "What this run recorded": every run but a pull
# request's): the suites of the results artifact, their pass rates and who judged them (reeljudge compare against no
# baseline, read from its JSON report), so a person opening the default branch's run sees what pull requests will be
# compared with. Never fails the job: a summary that cannot be made says why.
set -uo pipefail

state="${RUNNER_TEMP:-/tmp}/reeljudge-action"
results="${INPUT_RESULTS_DIR:-reeljudge-results}"
artifact="${INPUT_ARTIFACT_NAME:-reeljudge-results}"
url="${GITHUB_SERVER_URL:-https://github.com}/${GITHUB_REPOSITORY:-}/actions/runs/${GITHUB_RUN_ID:-}"
mkdir -p "$state"
rm -rf "$state/no-baseline" "$state/recorded.json" && mkdir -p "$state/no-baseline"
reeljudge="$(cat "$state/reeljudge" 2>/dev/null || echo reeljudge)"
"$reeljudge" compare "$state/no-baseline" "$results" --json "$state/recorded.json" -q 2> "$state/recorded.log" >/dev/null
{
  node - "$state/recorded.json" "$artifact" "$url" "${GITHUB_REF_NAME:-}" "$state/recorded.log" <<'JS'
const fs = require('fs');
const [file, artifact, url, ref, log] = process.argv.slice(2);
const cell = (text) => String(text).replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();
let report;
try {
  report = JSON.parse(fs.readFileSync(file, 'utf8'));
} catch (e) {
  const said = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').pop() : '';
  console.log(`## reeljudge gate: this run's results could not be summarised (${cell(said || e.message)})`);
  process.exit(0);
}
const suites = report.suites || [];
console.log('<!-- reeljudge-gate-baseline -->');
console.log(`## reeljudge gate: the baseline this run recorded — ${suites.map((s) => s.name).join(', ') || 'no suite'}`);
console.log('');
console.log(`The artifact \`${artifact}\` of this run (${url}) is what pull requests are compared with while it is the newest ` +
            `successful push run${ref ? ` on ${ref}` : ''} (artifacts are kept 90 days).`);
console.log('');
console.log('| suite | tests | passing | judged by |');
console.log('|---|---|---|---|');
for (const s of suites) {
  if (s.error) { console.log(`| ${cell(s.name)} | – | – | not readable: ${cell(s.error)} |`); continue; }
  const judges = ((s.candidate || {}).judges || []).join('; ') || 'no judge identity recorded';
  console.log(`| ${cell(s.name)} | ${s.tests} | ${s.passed} (${Math.round(100 * (s.pass_rate || 0))}%) | ${cell(judges)} |`);
}
JS
  if [ -f "$state/notes" ]; then echo; cat "$state/notes"; fi
} > "$state/recorded.md"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$state/recorded.md" >> "$GITHUB_STEP_SUMMARY"; fi
cat "$state/recorded.md"
