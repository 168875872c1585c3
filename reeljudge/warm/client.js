// The warm path's in-process side: promptfoo loads a thin entry (assertions/<judge>.js) that calls
// entry(__filename); each call is forwarded to one long-lived Python worker (reeljudge/warm/worker.py)
// that runs assertions/<judge>.py's get_assert, so no test starts an interpreter or reloads a model.
//
// - The worker is started on the first call of an eval (python -m reeljudge.warm.worker, with the
//   interpreter promptfoo uses: PROMPTFOO_PYTHON, else "python"), listens on a Unix socket in a
//   private temporary folder, and exits when promptfoo does (its standard input closes).
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
const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
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

function startWorker() {
  const s = state();
  s.starts += 1;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reeljudge-warm-'));
  const socket = path.join(dir, 'worker.sock');
  const python = process.env.PROMPTFOO_PYTHON || 'python';
  const env = { ...process.env, PYTHONPATH: [PROJECT_ROOT, process.env.PYTHONPATH].filter(Boolean).join(path.delimiter) };
  const child = spawn(python, ['-m', 'reeljudge.warm.worker', '--socket', socket], { cwd: process.cwd(), env, stdio: ['pipe', 'pipe', 'pipe'] });
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
        if (out.startsWith('READY ')) resolve(worker);
        else reject(new Error(`the warm worker said ${JSON.stringify(out.slice(0, 200))} instead of READY`));
      }
    });
    child.on('error', (err) => { clearTimeout(timer); reject(new Error(`cannot run ${python}: ${err.message}`)); });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      const death = `the reeljudge warm worker (pid ${child.pid}) ${how}${worker.tail() ? ` (stderr: ${worker.tail()})` : ''}`;
      worker.death = death;
      s.lastDeath = death;
      if (s.worker === worker) s.worker = null;
      fs.rm(dir, { recursive: true, force: true }, () => {});
      reject(new Error(death));
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
  if (!s.starting) {
    if (s.starts >= MAX_STARTS) throw new Error(`${s.lastDeath || 'the warm worker could not be started'}; not restarted again (${MAX_STARTS} starts in this eval)`);
    s.starting = startWorker().then(
      (worker) => { s.worker = worker; s.starting = null; s.lastDeath = null; return worker; },
      (err) => { s.starting = null; throw err; },
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

function notJudged(judge, context, message) {
  return { pass: false, score: 0, reason: `${judge} did not judge (warm_worker) in test '${testLabel(context)}': ${message}`,
    metadata: { judge, error_kind: 'warm_worker', judged: false } };
}

function refuseUnsupported(jsPath, context) {
  const mine = (a) => a && typeof a.value === 'string' && a.value.startsWith('file://') && path.basename(a.value.slice(7).split(':')[0]) === path.basename(jsPath);
  const asserts = ((context && context.test && context.test.assert) || []).flatMap((a) => (a && a.type === 'assert-set' ? a.assert || [] : [a]));
  for (const a of asserts.filter(mine)) {
    if (String(a.type).startsWith('not-')) throw new Error(`${path.basename(jsPath)}: the warm path does not take promptfoo's not- prefix (its JavaScript and Python inversions differ); use the judge's expect: mismatch`);
    if (a.threshold !== undefined) throw new Error(`${path.basename(jsPath)}: the warm path does not take promptfoo's assertion-level threshold (JavaScript and Python apply it differently); set config: {threshold: ...}`);
  }
}

// Wait (at most 1 s) for a broken worker's exit to be reported; the timer is a live handle, so
// Node keeps running meanwhile (every handle of the worker itself is unref'd).
async function settled(worker) {
  let timer;
  await Promise.race([worker.exited, new Promise((resolve) => { timer = setTimeout(resolve, 1000); })]);
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

// The promptfoo assertion function for the Python entry beside `jsPath` (same name, .py).
function entry(jsPath) {
  const pyEntry = jsPath.replace(/\.[cm]?js$/, '.py');
  const judge = path.basename(pyEntry, '.py');
  return async function warmAssertion(output, context) {
    refuseUnsupported(jsPath, context);
    const body = safeJsonStringify({ entry: pyEntry, function: 'get_assert', args: [output, context] });
    const { reply, failed } = await judgeOnWorker(judge, context, body);
    if (failed) return failed;
    if (reply.ok) return reply.data;
    return { pass: false, score: 0, reason: `Error running Python script: ${reply.error}\nStack Trace: Python Traceback: ${reply.traceback || ''}` };
  };
}

module.exports = { entry, safeJsonStringify };
