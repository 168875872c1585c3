"""The warm worker: runs promptfoo Python assertion entries in one long-lived process.

Started by ``reeljudge/warm/client.js`` (through a bootstrap that checks the interpreter, then
``worker.main(["--socket", PATH])``) the first time a warm entry is called in an eval. It listens on a Unix socket in a private
folder,
prints ``READY <pid>`` once listening, and exits when its standard input closes (promptfoo
ended, however it ended).

``POST /assert`` with ``{"entry": <absolute path of a .py entry>, "function": "get_assert",
"args": [output, context]}`` runs ``entry.function(*args)`` exactly as promptfoo's own Python
wrapper does (the entry file imported as a module from its own folder, once, then kept); the npm
package sends ``{"module": "reeljudge.assertions.<judge>", …}`` instead, an installed adapter. It
answers ``{"ok": true, "data": <result>}`` or ``{"ok": false, "error": <traceback>}``.
Requests are served on threads, so Gemini calls of several tests overlap as they do when
promptfoo starts one process per test. ``GET /health`` says how many calls were served.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import socketserver
import sys
import threading
import traceback
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from types import ModuleType
from typing import Any

_MODULES: dict[str, ModuleType] = {}
_FIRST: dict[str, threading.Event] = {}  # set once an entry's first call is done
_LOCK = threading.Lock()
_SERVED = {"calls": 0}
#: the package of the promptfoo adapters, the only modules the worker serves by name
ADAPTERS = "reeljudge.assertions"


def load_entry(path: str) -> ModuleType:
    """The entry file at ``path`` as a module, imported once (as promptfoo's wrapper imports it)."""
    with _LOCK:
        module = _MODULES.get(path)
        if module is None:
            folder = os.path.dirname(os.path.abspath(path))
            if folder not in sys.path:
                sys.path.insert(0, folder)
            spec = importlib.util.spec_from_file_location(Path(path).stem, path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load {path}")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            _MODULES[path] = module
        return module


def load_module(name: str) -> ModuleType:
    """The installed adapter ``name`` (``reeljudge.assertions.<judge>``); ImportError for any other module."""
    package, _, judge = name.rpartition(".")
    if package != ADAPTERS or not judge.isidentifier():
        raise ImportError(f"the warm worker serves the adapters {ADAPTERS}.<judge>, not {name!r}")
    return importlib.import_module(name)


def _target(request: dict[str, Any]) -> str:
    """What a request runs: its module name, else its entry file."""
    return str(request["module"]) if request.get("module") else str(request.get("entry"))


def run(request: dict[str, Any]) -> dict[str, Any]:
    """One call: ``{"ok": true, "data": …}`` or ``{"ok": false, "error": …}`` (never raises).

    The first call of an entry runs alone (the others wait for it): it imports the entry and
    usually loads what the judge keeps loaded (norms, embedding model), once, not once per thread.
    """
    entry = _target(request)
    with _LOCK:
        first = entry not in _FIRST
        done = _FIRST.setdefault(entry, threading.Event())
    if not first:
        done.wait()
    try:
        return _call(entry, request)
    finally:
        done.set()


def _call(entry: str, request: dict[str, Any]) -> dict[str, Any]:
    try:
        if request.get("module"):
            module = load_module(entry)
        elif not entry.endswith(".py") or not os.path.isfile(entry):
            raise FileNotFoundError(f"no Python entry file at {entry}")
        else:
            module = load_entry(entry)
        function = getattr(module, str(request.get("function") or "get_assert"))
        data = function(*request.get("args", []))
        return {"ok": True, "data": data}
    except BaseException as error:  # noqa: BLE001 - reported to the caller like promptfoo reports a script error
        if isinstance(error, (KeyboardInterrupt, SystemExit)):
            raise
        return {"ok": False, "error": f"{type(error).__name__}: {error}", "traceback": traceback.format_exc()}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:  # promptfoo's output stays clean
        pass

    def _reply(self, payload: dict[str, Any]) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            request = json.loads(body)
        except ValueError as error:
            return self._reply({"ok": False, "error": f"the request is not JSON ({error})"})
        result = run(request)
        with _LOCK:
            _SERVED["calls"] += 1
        self._reply(result)

    def do_GET(self) -> None:  # noqa: N802
        with _LOCK:
            self._reply({"ok": True, "pid": os.getpid(), "calls": _SERVED["calls"], "entries": sorted(_MODULES)})

    def address_string(self) -> str:  # Unix sockets have no client address
        return "local"


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


def _exit_when_parent_goes() -> None:
    """Block until standard input closes (promptfoo exited or closed it), then exit at once."""
    try:
        while sys.stdin.buffer.read(4096):
            pass
    finally:
        os._exit(0)


def main(argv: list[str] | None = None) -> None:
    """Serve until standard input closes."""
    parser = argparse.ArgumentParser(description="reeljudge warm worker (started by reeljudge/warm/client.js)")
    parser.add_argument("--socket", required=True, help="Unix socket path to listen on")
    args = parser.parse_args(argv)
    server = _Server(args.socket, _Handler)
    os.chmod(args.socket, 0o600)
    threading.Thread(target=_exit_when_parent_goes, name="parent-watch", daemon=True).start()
    ready = f"READY {os.getpid()}\n"
    sys.stdout.write(ready)
    sys.stdout.flush()
    devnull = os.open(os.devnull, os.O_WRONLY)  # judges' stdout is dropped, as promptfoo drops it
    os.dup2(devnull, 1)
    server.serve_forever()


if __name__ == "__main__":
    main()
