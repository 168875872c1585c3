// Preloaded into promptfoo (NODE_OPTIONS="--require $PWD/node_modules/reeljudge/loopback.cjs": the README's, init's
// and docs/install.md's commands export it for `promptfoo eval` and `promptfoo view`), it keeps promptfoo local:
// - a server that listens on a port without naming a host (as `promptfoo view` does: it has no host option) listens
//   on 127.0.0.1 only, never on every interface;
// - with PROMPTFOO_DISABLE_TELEMETRY set, promptfoo's telemetry hosts are refused in this process before anything is
//   sent: promptfoo 0.121.20 to 0.123.1 still post a "telemetry disabled" event with the user's id to r.promptfoo.app
//   on every command (telemetry.recordTelemetryDisabled, fire and forget: promptfoo ignores its failure). The fetch
//   promptfoo's requests go through and a socket opened straight to those hosts are both refused; other hosts are not;
// - with PROMPTFOO_DISABLE_TELEMETRY set, every response of the viewer carries a Content-Security-Policy that lets its
//   page connect to, and load scripts from, its own origin only: the page starts PostHog (a.promptfoo.app) in the
//   reader's browser whatever the variable says. Images and media, the user's own content, are not restricted.
// In any Node program other than promptfoo (the variable is exported: npm, a dev server of the user's) it does nothing.
const fs = require("fs");
const http = require("http");
const net = require("net");

function isPromptfoo() {
  try {
    return fs.realpathSync(process.argv[1] || "").replace(/\\/g, "/").includes("/node_modules/promptfoo/");
  } catch {
    return false;
  }
}

// promptfoo's telemetry endpoints (R_ENDPOINT, and EVENTS_ENDPOINT: its PostHog host; src/constants.ts)
const TELEMETRY_HOSTS = new Set(["r.promptfoo.app", "a.promptfoo.app"]);
// the spellings promptfoo's getEnvBool reads as true
const TRUE = new Set(["1", "true", "yes", "yup", "yeppers"]);
// the viewer page's own origin only, for what it fetches and the scripts it runs (it has an inline script)
const CSP = "connect-src 'self'; script-src 'self' 'unsafe-inline' 'unsafe-eval' blob:";

function telemetryOff() {
  return TRUE.has(String(process.env.PROMPTFOO_DISABLE_TELEMETRY || "").toLowerCase());
}

function refused(host) {
  return telemetryOff() && typeof host === "string" && TELEMETRY_HOSTS.has(host.toLowerCase().replace(/\.$/, ""));
}

function refusal(host) {
  const error = new Error(`reeljudge's loopback.cjs refused ${host}: PROMPTFOO_DISABLE_TELEMETRY is set`);
  error.code = "ECONNREFUSED";
  return error;
}

function requestHost(input) {
  try {
    return new URL(typeof input === "string" || input instanceof URL ? input : input.url).hostname;
  } catch {
    return null;
  }
}

function keepLocal() {
  const listen = net.Server.prototype.listen;
  net.Server.prototype.listen = function listenOnLoopback(...args) {
    if (typeof args[0] === "number" && (args.length === 1 || typeof args[1] === "function")) {
      args.splice(1, 0, "127.0.0.1");
    }
    return listen.apply(this, args);
  };

  if (typeof globalThis.fetch === "function") {
    const fetch = globalThis.fetch;
    globalThis.fetch = function fetchWithoutTelemetry(input, init) {
      const host = requestHost(input);
      if (refused(host)) return Promise.reject(new TypeError("fetch failed", { cause: refusal(host) }));
      return fetch.call(this, input, init);
    };
  }

  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function connectWithoutTelemetry(...args) {
    const first = Array.isArray(args[0]) ? args[0][0] : args[0]; // net.connect passes its normalised [options, callback]
    const host = first && typeof first === "object" ? first.host : typeof args[1] === "string" ? args[1] : null;
    if (refused(host)) {
      process.nextTick(() => this.destroy(refusal(host)));
      return this;
    }
    return connect.apply(this, args);
  };

  const writeHead = http.ServerResponse.prototype.writeHead;
  http.ServerResponse.prototype.writeHead = function writeHeadOwnOriginOnly(...args) {
    if (telemetryOff() && !this.headersSent && !this.hasHeader("content-security-policy")) {
      this.setHeader("Content-Security-Policy", CSP);
    }
    return writeHead.apply(this, args);
  };
}

if (isPromptfoo()) keepLocal();
