// Preloaded into promptfoo (NODE_OPTIONS="--require ./node_modules/reeljudge/loopback.cjs"): a server that
// listens on a port without naming a host (as `promptfoo view` does: it has no host option) listens on
// 127.0.0.1 only, never on every interface. The README's viewer command and the tests' viewer use it.
const net = require("net");

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function listenOnLoopback(...args) {
  if (typeof args[0] === "number" && (args.length === 1 || typeof args[1] === "function")) {
    args.splice(1, 0, "127.0.0.1");
  }
  return listen.apply(this, args);
};
