// The warm path's in-process side, the one client. Two ways in:
// - the npm package (index.js at the repository root): `package:reeljudge:<judge>` calls
//   moduleEntry(judge, 'reeljudge.assertions.<judge>'), run by the installed reeljudge;
// - a clone's thin entries (assertions/<judge>.js) call entry(__filename), which runs
//   assertions/<judge>.py's get_assert.
// Each call is forwarded to one long-lived Python worker (reeljudge/warm/worker.py), so no test
// starts an interpreter or reloads a model.
//
// - The worker is started on the first call of an eval with the Python that has reeljudge:
//   REELJUDGE_PYTHON, else PROMPTFOO_PYTHON, else the first python3 on PATH. A bootstrap checks
//   that interpreter first (Python >= MIN_PYTHON, reeljudge importable and the same release as this
//   npm package); when it cannot run, is too old, lacks reeljudge or has another release, every
//   test of the eval fails with a reason naming the interpreter tried and how to fix it (no restarts). The worker listens on a Unix socket in a private
//   temporary folder, and exits when promptfoo does (its standard input closes).
// - Arguments are serialised as promptfoo serialises them for a Python assertion (circular
//   references dropped), and the result comes back unchanged: same pass, score, reason, named
//   scores, components and metadata as the plain Python assertion.
// - A Python exception becomes the failing result promptfoo gives a Python assertion that raised.
// - A worker that dies fails the tests it was judging with a reason saying so; the next call starts
//   a new worker, at most MAX_STARTS times per eval, then every later call fails with the reason.
// - promptfoo's own assertion-level `threshold:` and `not-` prefix are handled differently for
//   JavaScript and Python assertions; a warm entry refuses them (the test errors, never passes):
//   use the judge's own `config: {threshold: ...}` and `expect: mismatch` instead.
'use strict';

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');

const MAX_STARTS = 3;
const START_TIMEOUT_MS = 120000;
// Bounds after a broken connection (see settled): for a living worker's answer, for a dead one's exit
const ANSWER_BOUND_MS = 10000;
const EXIT_BOUND_MS = 60000;
// Where this file sits: in a clone, the repository (whose reeljudge/ joins PYTHONPATH, so the clone's
// own code runs); in the npm package, node_modules/reeljudge (no Python there: the installed one runs).
const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
const CLONE = fs.existsSync(path.join(PROJECT_ROOT, 'reeljudge', '__init__.py'));
// reeljudge's requires-python, and the release this npm package belongs to (the Python package must be the same one)
const settings = { minPython: '3.11', version: JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')).version };
// Runs in the chosen interpreter before the worker (kept valid in old Pythons, 2.7 included).
const BOOTSTRAP = [
  'import sys',
  'need = tuple(int(x) for x in sys.argv[1].split("."))',
  'here = "%s\\t%s" % (sys.version.split()[0], sys.executable)',
  'if tuple(sys.version_info[:2]) < need:',
  '    sys.stdout.write("REELJUDGE_TOO_OLD\\t%s\\n" % here); sys.stdout.flush(); sys.exit(3)',
  'try:',
  '    import reeljudge',
  '    from reeljudge.warm import worker',
  'except ImportError as error:',
  '    sys.stdout.write("REELJUDGE_MISSING\\t%s\\t%s\\n" % (here, error)); sys.stdout.flush(); sys.exit(4)',
  'if reeljudge.__version__ != sys.argv[2]:',
  '    sys.stdout.write("REELJUDGE_OTHER_RELEASE\\t%s\\t%s\\n" % (here, reeljudge.__version__)); sys.stdout.flush(); sys.exit(5)',
  'worker.main(sys.argv[3:])',
].join('\n');
const STATE = Symbol.for('reeljudge.warm.worker');

function state() {
  if (!globalThis[STATE]) globalThis[STATE] = { worker: null, starting: null, starts: 0, lastDeath: null };
  return globalThis[STATE];
}

// promptfoo's safeJsonStringify (src/util/json.ts): JSON with circular references dropped.
function safeJsonStringify(value) {
  const ancestors = [];
  return JSON.stringify(value, function replacer(_key, val) {
    if (typeof val === 'object' && val !== null) {
      while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
      if (ancestors.includes(val)) return undefined;
      ancestors.push(val);
    }
    return val;
  });
}

// The interpreter the worker runs in, and where that choice came from.
function pythonChoice(env = process.env) {
  if (env.REELJUDGE_PYTHON) return { command: env.REELJUDGE_PYTHON, source: 'REELJUDGE_PYTHON' };
  if (env.PROMPTFOO_PYTHON) return { command: env.PROMPTFOO_PYTHON, source: 'PROMPTFOO_PYTHON' };
  return { command: 'python3', source: 'the first python3 on PATH' };
}

const FIX = 'set REELJUDGE_PYTHON (or PROMPTFOO_PYTHON) to the Python of the virtualenv where reeljudge is installed, e.g. REELJUDGE_PYTHON=.venv/bin/python';
const INSTALL = 'install reeljudge into it (pip install reeljudge, or the wheel built from the repository: uv build, then pip install dist/reeljudge-*.whl), or ';

// An error that no restart can cure: the interpreter itself is wrong. Every later call fails with it.
function interpreterError(choice, problem, fix = FIX, found = '') {
  const error = new Error(`the Python interpreter "${choice.command}" (from ${choice.source}${found ? `; ${found}` : ''}) ${problem}; ${fix}`);
  error.fatal = true;
  return error;
}

// The bootstrap's first line (tab-separated: verdict, version, executable[, error]) as an interpreter
// error, or null when the worker said READY.
function bootstrapProblem(choice, line) {
  const [word, version, executable, ...rest] = line.replace(/\r$/, '').split('\t');
  if (word === 'REELJUDGE_TOO_OLD') return interpreterError(choice, `is Python ${version}; reeljudge needs Python ${settings.minPython} or newer`, FIX, executable);
  if (word === 'REELJUDGE_MISSING') {
    return interpreterError(choice, `cannot import reeljudge (${rest.join(' ')})`, INSTALL + FIX, `${executable}, Python ${version}`);
  }
  if (word === 'REELJUDGE_OTHER_RELEASE') {
    return interpreterError(choice, `has reeljudge ${rest[0]} installed, but this npm package is reeljudge ${settings.version}: the Python package and the npm package must be the same release`,
      `install the same release of both (pip install "reeljudge==${settings.version}", or npm install reeljudge@${rest[0]}), or ${FIX}`, `${executable}, Python ${version}`);
  }
  return null;
}

function startWorker() {
  const s = state();
  s.starts += 1;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reeljudge-warm-'));
  const socket = path.join(dir, 'worker.sock');
  const choice = pythonChoice();
  const python = choice.command;
  const env = CLONE ? { ...process.env, PYTHONPATH: [PROJECT_ROOT, process.env.PYTHONPATH].filter(Boolean).join(path.delimiter) } : process.env;
  const child = spawn(python, ['-c', BOOTSTRAP, settings.minPython, settings.version, '--socket', socket], { cwd: process.cwd(), env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderrTail = '';
  child.stderr.on('data', (chunk) => {
    process.stderr.write(chunk);
    stderrTail = (stderrTail + chunk.toString('utf8')).slice(-2000);
  });
  const worker = { child, socket, dir, pid: child.pid, tail: () => stderrTail.trim().split('\n').slice(-3).join(' | ') };
  worker.exited = new Promise((resolve) => child.once('exit', resolve));
  const ready = new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the warm worker did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    child.stdout.on('data', (chunk) => {
      out += chunk.toString('utf8');
      if (out.includes('\n')) {
        clearTimeout(timer);
        const problem = bootstrapProblem(choice, out.split('\n')[0]);
        if (out.startsWith('READY ')) resolve(worker);
        else reject(problem || new Error(`the warm worker said ${JSON.stringify(out.slice(0, 200))} instead of READY`));
      }
    });
    child.on('error', (err) => { clearTimeout(timer); reject(interpreterError(choice, `cannot be run (${err.message})`)); });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      const death = `the reeljudge warm worker (pid ${child.pid}) ${how}${worker.tail() ? ` (stderr: ${worker.tail()})` : ''}`;
      worker.death = death;
      s.lastDeath = death;
      if (s.worker === worker) s.worker = null;
      fs.rm(dir, { recursive: true, force: true }, () => {});
      child.once('close', () => reject(new Error(death))); // after its last output (a bootstrap's verdict) was read
    });
  });
  for (const stream of [child.stdin, child.stdout, child.stderr]) stream.unref?.();
  child.unref();
  process.once('exit', () => { try { child.kill(); } catch { /* already gone */ } });
  return ready;
}

async function ensureWorker() {
  const s = state();
  if (s.worker) return s.worker;
  if (s.fatal) throw s.fatal;
  if (!s.starting) {
    if (s.starts >= MAX_STARTS) throw new Error(`${s.lastDeath || 'the warm worker could not be started'}; not restarted again (${MAX_STARTS} starts in this eval)`);
    s.starting = startWorker().then(
      (worker) => { s.worker = worker; s.starting = null; s.lastDeath = null; return worker; },
      (err) => { s.starting = null; if (err.fatal) s.fatal = err; throw err; },
    );
  }
  return s.starting;
}

function post(worker, body) {
  return new Promise((resolve, reject) => {
    const request = http.request({ socketPath: worker.socket, path: '/assert', method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (response) => {
      const chunks = [];
      response.on('data', (c) => chunks.push(c));
      response.on('end', () => {
        try { resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))); } catch (err) { reject(new Error(`unreadable reply from the warm worker: ${err.message}`)); }
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

function testLabel(context) {
  const description = context && context.test && context.test.description;
  if (description) return String(description);
  const vars = Object.entries((context && context.vars) || {}).slice(0, 2).map(([k, v]) => `${k}=${JSON.stringify(String(v).slice(0, 30))}`);
  return vars.length ? `<test with ${vars.join(', ')}>` : '<unnamed test>';
}

function notJudged(judge, context, message, kind = 'warm_worker') {
  return { pass: false, score: 0, reason: `FAIL ${judge} did not judge (${kind}) in test '${testLabel(context)}': ${message}`,
    metadata: { judge, error_kind: kind, judged: false } };
}

// `isMine(value)` says whether an assertion's value names this entry; `label` names it in errors.
function refuseUnsupported(label, isMine, context) {
  const mine = (a) => a && typeof a.value === 'string' && isMine(a.value);
  const asserts = ((context && context.test && context.test.assert) || []).flatMap((a) => (a && a.type === 'assert-set' ? a.assert || [] : [a]));
  for (const a of asserts.filter(mine)) {
    if (String(a.type).startsWith('not-')) throw new Error(`${label}: the warm path does not take promptfoo's not- prefix (its JavaScript and Python inversions differ); use the judge's expect: mismatch`);
    if (a.threshold !== undefined) throw new Error(`${label}: the warm path does not take promptfoo's assertion-level threshold (JavaScript and Python apply it differently); set config: {threshold: ...}`);
  }
}

// After a broken connection: settled once the worker still answers (alive: it dropped that one
// request) or has exited (its exit, always reported, says how it died). The kernel decides, not a
// timer racing the exit: a dead worker's socket refuses at once, however loaded the machine. The
// bounds only keep a hung worker from hanging the eval; their timers are live handles, so Node keeps
// running meanwhile (every handle of the worker itself is unref'd).
async function settled(worker) {
  if (!(await answers(worker))) await within(worker.exited, EXIT_BOUND_MS);
}

// Whether the worker answers GET /health (a request it holds past ANSWER_BOUND_MS counts as alive).
function answers(worker) {
  return new Promise((resolve) => {
    const request = http.get({ socketPath: worker.socket, path: '/health', timeout: ANSWER_BOUND_MS }, (response) => {
      response.resume();
      resolve(true);
    });
    request.on('timeout', () => { resolve(true); request.destroy(); });
    request.on('error', () => resolve(false));
  });
}

// `promise`, or nothing once `ms` have passed.
async function within(promise, ms) {
  let timer;
  await Promise.race([promise, new Promise((resolve) => { timer = setTimeout(resolve, ms); })]);
  clearTimeout(timer);
}

// One call on a running worker ({reply} from the worker, or {failed}: the result saying why not); a request the worker never received (nothing listening) goes to a
// new worker once, a request it received and never answered fails with the worker's end.
async function judgeOnWorker(judge, context, body) {
  for (let attempt = 1; ; attempt += 1) {
    let worker;
    try {
      worker = await ensureWorker();
    } catch (err) {
      if (err.fatal) return { failed: notJudged(judge, context, `cannot start the warm worker: ${err.message}`, 'python_interpreter') };
      return { failed: notJudged(judge, context, `could not start the warm worker: ${err.message}`) };
    }
    try {
      return { reply: await post(worker, body) };
    } catch (err) {
      await settled(worker);
      if (state().worker === worker) state().worker = null;
      const unreached = err.code === 'ECONNREFUSED' || err.code === 'ENOENT';
      if (unreached && attempt === 1) continue;
      const death = worker.death || `the connection to the warm worker (pid ${worker.pid}) broke (${err.message})`;
      const when = unreached ? 'before this test could be sent to it' : 'while this test was being judged';
      return { failed: notJudged(judge, context, `${death} ${when}; run it again, or use the plain Python assertion (${judge}.py)`) };
    }
  }
}

// A promptfoo assertion function that sends each call ({entry} file or {module}) to the worker.
function warmAssertion(judge, label, isMine, target) {
  return async function warmJudge(output, context) {
    refuseUnsupported(label, isMine, context);
    const body = safeJsonStringify({ ...target, function: 'get_assert', args: [output, context] });
    const { reply, failed } = await judgeOnWorker(judge, context, body);
    if (failed) return failed;
    if (reply.ok) return reply.data;
    return { pass: false, score: 0, reason: `Error running Python script: ${reply.error}\nStack Trace: Python Traceback: ${reply.traceback || ''}` };
  };
}

// The assertion for the Python entry beside `jsPath` (same name, .py): a clone's assertions/<judge>.js.
function entry(jsPath) {
  const pyEntry = jsPath.replace(/\.[cm]?js$/, '.py');
  const isMine = (value) => value.startsWith('file://') && path.basename(value.slice(7).split(':')[0]) === path.basename(jsPath);
  return warmAssertion(path.basename(pyEntry, '.py'), path.basename(jsPath), isMine, { entry: pyEntry });
}

// The assertion `package:reeljudge:<exportName>`: `get_assert` of the installed module `moduleName`.
function moduleEntry(exportName, judge, moduleName) {
  const reference = `package:reeljudge:${exportName}`;
  return warmAssertion(judge, reference, (value) => value === reference, { module: moduleName });
}

module.exports = { entry, moduleEntry, pythonChoice, safeJsonStringify, settings };
