// One plain sentence for the first error of a failed step, from the output it wrote (action/gate.sh).
// promptfoo's own messages are translated where the cause is known: a config that does not parse, a
// config file that is not there, a Python file a config names that does not exist (promptfoo only says
// "Worker failed to become ready within timeout" after two minutes), a package a Python provider imports that is
// not installed (where to add it: the python-dependencies input), an npm package not installed.
//   node explain.js LOG [CONFIG]            the first error of the log
//   node explain.js --error TEXT LOG [CONFIG]  one test's error, read with the log beside it
// Runs with Node alone (no reeljudge): the step that failed may be the one that installs reeljudge.
'use strict';
const fs = require('fs');
const path = require('path');

const CUT = 300;

function oneLine(text) {
  const flat = String(text).replace(/\s+/g, ' ').trim();
  return flat.length <= CUT ? flat : `${flat.slice(0, CUT - 1)}…`;
}

function relative(file) {
  const rel = path.relative(process.cwd(), file);
  return rel && !rel.startsWith('..') ? rel : path.basename(file);
}

function whereToAdd() {
  // where a team names its Python packages: the action's python-dependencies input (gate.sh passes it)
  const given = process.env.INPUT_PYTHON_DEPENDENCIES || '';
  return given ? `add its package to ${given} (the action's python-dependencies input)`
    : "name the project's Python packages in the action's python-dependencies input " +
      '(a requirements file, pyproject.toml or pyproject.toml:<group>, or uv.lock)';
}

// [pattern, (match, config) => sentence], the first that matches wins
const RULES = [
  [/YAMLException: ([^\n]+?) \((\d+):(\d+)\)/, (m, config) =>
    // the parser names where it noticed: a lost } or ] is at that line or just before it
    `${config || 'the config'} does not parse: YAML ${m[1]} at or just before line ${m[2]}, column ${m[3]}`],
  [/Error: No configuration file found at ([^\s]+?)\.? Run/, (m) => `there is no config file ${m[1]} (a typo in configs:?)`],
  [/File "([^"]+\.py)", line \d+, in <module>\n(?:[^\n]*\n){1,3}?[^\n]*ModuleNotFoundError: No module named '([^']+)'/,
    (m) => `the provider in ${relative(m[1])} imports ${m[2]}, which is not installed: ${whereToAdd()}`],
  [/Failed to load module: \[Errno 2\] No such file or directory: '([^']+)'/, (m, config) =>
    `a Python file ${config || 'the config'} names does not exist: ${relative(m[1])} ` +
    `(promptfoo only says "Worker failed to become ready within timeout")`],
  [/Failed to load module: ([^\n]+)/, (m) => `a Python provider or assertion file could not be loaded: ${m[1]}`],
  [/(?:Package not found|Cannot find (?:package|module)) '?([@\w./-]+)'?/, (m) =>
    `the npm package ${m[1]} is not installed in the project (package.json must name it; npm install)`],
  [/Worker failed to become ready within timeout/, () =>
    'a Python worker did not start (promptfoo: "Worker failed to become ready within timeout"): ' +
    'check that the Python files the config names exist and import with PROMPTFOO_PYTHON'],
  [/No matching distribution found for ([^\s]+)/, (m) => `pip found no release of ${m[1]} (reeljudge-spec, or the package index)`],
  [/npm (?:ERR!|error) (?:code )?(E\w+)[^\n]*\n(?:npm (?:ERR!|error) )?([^\n]*)/, (m) => `npm failed (${m[1]}): ${m[2]}`],
  [/^ERROR: ([^\n]+)/m, (m) => m[1]],
  [/^(?:\w*Error|Error): ([^\n]+)/m, (m) => m[0]],
];

function explain(text, config) {
  for (const [pattern, say] of RULES) {
    const m = pattern.exec(text);
    if (m) return oneLine(say(m, config));
  }
  return '';
}

function main(argv) {
  let error = null;
  if (argv[0] === '--error') { error = argv[1]; argv = argv.slice(2); }
  const [log, config] = argv;
  let text = '';
  try { text = fs.readFileSync(log, 'utf8'); } catch (e) { /* no log: the error alone */ }
  if (error !== null) {
    // a test's own error first; the log explains it where the error alone is promptfoo's generic one
    const own = explain(error, config);
    const fromLog = explain(text, config);
    const generic = /Worker failed to become ready/.test(error);
    console.log((generic && fromLog) || own || oneLine(error));
    return;
  }
  const lastLines = text.trim().split('\n').slice(-3).join(' ');
  console.log(explain(text, config) || oneLine(lastLines) || 'it printed nothing');
}

if (require.main === module) main(process.argv.slice(2));
module.exports = { explain };
