// How many generator and judge calls a gate run made and how many it replayed, and what promptfoo says it cost,
// from the results files in a folder (action/gate.sh's `calls` step; docs/gates.md, "No call paid twice").
//   node calls.js RESULTS_DIR    one Markdown line; --json: the counts as JSON
// A generator call is one result row of a provider that is not promptfoo's `echo`: replayed when its response came
// from a cache (promptfoo's own: `response.cached`; reeljudge's providers and cached_generator:
// `response.metadata.cache_hit`, since promptfoo sets a Python provider's `cached` to false). A judge call is one
// judgement of an LLM engine (`metadata.judge_identity.engine` not local or probes): replayed when the identity says `deterministic` (its answer came from the judge cache). Offline judges make no call.
'use strict';
const fs = require('fs');
const path = require('path');

const OFFLINE_ENGINES = new Set(['local', 'probes']);

function judgements(grading) {
  // the judge identities of one row's grading result: its components' when it has them, else its own
  if (!grading) return [];
  const nodes = Array.isArray(grading.componentResults) && grading.componentResults.length ? grading.componentResults : [grading];
  return nodes.map((n) => (n && n.metadata && n.metadata.judge_identity) || null).filter(Boolean);
}

function count(rows, totals) {
  for (const row of rows) {
    const response = row.response || {};
    const provider = (row.provider && (row.provider.id || row.provider)) || '';
    if (provider !== 'echo') {
      const replayed = response.cached === true || (response.metadata || {}).cache_hit === true;
      totals.generator[replayed ? 'replayed' : 'made'] += 1;
    }
    for (const identity of judgements(row.gradingResult)) {
      if (OFFLINE_ENGINES.has(identity.engine)) continue;
      totals.judge[identity.deterministic ? 'replayed' : 'made'] += 1;
    }
    if (typeof row.cost === 'number' && row.cost > 0) totals.cost += row.cost;
  }
}

function tally(folder) {
  const totals = { generator: { made: 0, replayed: 0 }, judge: { made: 0, replayed: 0 }, cost: 0, suites: 0 };
  for (const name of fs.readdirSync(folder).filter((n) => n.endsWith('.json')).sort()) {
    let data;
    try { data = JSON.parse(fs.readFileSync(path.join(folder, name), 'utf8')); } catch (e) { continue; }
    const rows = (data.results && data.results.results) || [];
    totals.suites += 1;
    count(rows, totals);
  }
  return totals;
}

function sentence(t) {
  const cost = t.cost > 0 ? `; cost $${t.cost.toFixed(4)} as promptfoo reports it` : '';
  return `Calls: generators ${t.generator.made} made, ${t.generator.replayed} replayed; ` +
    `LLM judges ${t.judge.made} made, ${t.judge.replayed} replayed (from the caches this run restored${cost}).`;
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const json = args[0] === '--json';
  const totals = tally(json ? args[1] : args[0]);
  console.log(json ? JSON.stringify(totals) : sentence(totals));
}
module.exports = { tally, sentence };
