"""The npm package's preload ``loopback.cjs``, in a Node process of its own, nothing leaving 127.0.0.1.

A small script stands in for promptfoo's main module: the preload acts only in a process whose main script lies under
``node_modules/promptfoo/``, so the script is placed there (and once elsewhere). It listens on a port without naming a
host (as ``promptfoo view`` does), answers one request, and opens sockets and fetches to promptfoo's telemetry hosts,
each resolved to 127.0.0.1 by its own ``lookup`` (so nothing is looked up outside): with PROMPTFOO_DISABLE_TELEMETRY
set the preload refuses them before a socket is opened; without it they reach the local server. The end-to-end count
of what the documented commands send is ``test_offline_commands.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from support.paths import ROOT

PRELOAD = ROOT / "loopback.cjs"
#: listens without a host, serves one page, then reports: its address, the page's CSP header, and what became of a
#: socket to each telemetry host (resolved to 127.0.0.1 by a lookup of its own), a fetch of one, and a local fetch
PROBE = r"""
const http = require("http"), net = require("net");
const server = http.createServer((req, res) => { res.writeHead(200, {"Content-Type": "text/html"}); res.end("ok"); });
const toLocal = (host, options, callback) => options && options.all ? callback(null, [{address: "127.0.0.1", family: 4}])
  : callback(null, "127.0.0.1", 4);
function socket(host, port) {
  return new Promise((resolve) => {
    const s = net.connect({host, port, lookup: toLocal});
    s.on("connect", () => { s.destroy(); resolve("connected"); });
    s.on("error", (e) => resolve(e.message));
  });
}
server.listen(0, async () => {
  const port = server.address().port, report = {address: server.address().address};
  const page = await fetch(`http://127.0.0.1:${port}/`);
  report.csp = page.headers.get("content-security-policy");
  report.r = await socket("r.promptfoo.app", port);
  report.a = await socket("A.promptfoo.app.", port);
  report.other = await socket("api.example.com", port);
  if (process.argv[2] === "fetch") {  // only where it is refused: otherwise it would look the host up outside
    report.fetch = await fetch("https://r.promptfoo.app/").then(() => "sent", (e) => String(e.cause && e.cause.message));
  }
  server.close();
  console.log(JSON.stringify(report));
});
"""
REFUSED = "reeljudge's loopback.cjs refused"


def run_probe(folder: Path, telemetry_off: str | None, *, fetch: bool = False) -> dict[str, Any]:
    """Run the probe script in ``folder`` with the preload (``fetch``: and its fetch of a telemetry host); its report."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "probe.js").write_text(PROBE)
    env = {k: v for k, v in os.environ.items() if k not in ("PROMPTFOO_DISABLE_TELEMETRY", "NODE_OPTIONS")}
    env["NODE_OPTIONS"] = f"--require {PRELOAD}"
    if telemetry_off is not None:
        env["PROMPTFOO_DISABLE_TELEMETRY"] = telemetry_off
    proc = subprocess.run(["node", str(folder / "probe.js"), *(["fetch"] if fetch else [])], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("off", ["1", "true", "YES"])
def test_with_telemetry_off_promptfoo_refuses_its_telemetry_hosts_and_its_page_stays_on_its_origin(tmp_path, off):
    report = run_probe(tmp_path / "node_modules" / "promptfoo" / "dist", off, fetch=True)
    assert report["address"] == "127.0.0.1"
    assert report["r"].startswith(f"{REFUSED} r.promptfoo.app") and report["a"].startswith(f"{REFUSED} A.promptfoo.app.")
    assert report["fetch"].startswith(f"{REFUSED} r.promptfoo.app")  # refused before the URL was looked up
    assert report["other"] == "connected"  # any other host: untouched
    assert report["csp"] == "connect-src 'self'; script-src 'self' 'unsafe-inline' 'unsafe-eval' blob:"


@pytest.mark.parametrize("off", [None, "0", "false"])
def test_with_telemetry_on_nothing_is_refused_and_the_page_has_no_policy(tmp_path, off):
    report = run_probe(tmp_path / "node_modules" / "promptfoo" / "dist", off)
    assert (report["r"], report["a"], report["other"]) == ("connected", "connected", "connected")
    assert report["csp"] is None and report["address"] == "127.0.0.1"  # still listening on loopback only


def test_in_a_node_program_other_than_promptfoo_the_preload_does_nothing(tmp_path):
    report = run_probe(tmp_path / "my-dev-server", "1")
    assert (report["r"], report["csp"]) == ("connected", None)
    assert report["address"] != "127.0.0.1"  # listens where the program asked (every interface)
