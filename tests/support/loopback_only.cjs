// Preloaded into a Node server under test (NODE_OPTIONS=--require): a server that listens on a port
// without naming a host (as `promptfoo view` does) listens on 127.0.0.1 only, never on every interface.
const net = require("net");

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function listenOnLoopback(...args) {
  if (typeof args[0] === "number" && (args.length === 1 || typeof args[1] === "function")) {
    args.splice(1, 0, "127.0.0.1");
  }
  return listen.apply(this, args);
};
