"""A tiny npm registry on 127.0.0.1 for tests: the packages of one installed, locked tree, from npm's cache.

``npm install promptfoo@0.121.20`` (no lockfile) asks the registry for promptfoo's registry document
("packument"); npm's own cache may not hold it in the form npm asks for offline (measured: ENOTCACHED
with ``--offline``), so this registry answers it. For every package of ``folder/node_modules`` it
serves a packument with the one installed version (its package.json, and ``dist`` from the
lockfile's integrity) and the tarball from npm's content cache (looked up by that integrity). A
package the tree does not hold is 404. Used with ``npm_config_registry`` and ``prefer-offline``.
"""

from __future__ import annotations

import base64
import json
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote


def _content(cache: Path, integrity: str) -> Path:
    """The file npm's cache (cacache) keeps for ``sha512-…``."""
    algorithm, digest = integrity.split()[0].split("-", 1)
    hexdigest = base64.b64decode(digest).hex()
    return cache / "content-v2" / algorithm / hexdigest[:2] / hexdigest[2:4] / hexdigest[4:]


class LockedRegistry:
    """Serve the packages of ``folder``'s package-lock.json that are installed in its node_modules."""

    def __init__(self, folder: Path) -> None:
        lock = json.loads((folder / "package-lock.json").read_text())["packages"]
        self.cache = (Path(subprocess.run(["npm", "config", "get", "cache"],
                                          capture_output=True, text=True, check=True).stdout.strip()) / "_cacache")
        self.packages: dict[str, tuple[dict, str]] = {}
        for key, entry in lock.items():
            if not key.startswith("node_modules/") or "/node_modules/" in key[13:] or "integrity" not in entry:
                continue  # top-level packages only: one version each
            manifest = folder / key / "package.json"
            if manifest.is_file():
                self.packages[key[13:]] = (json.loads(manifest.read_text()), entry["integrity"])
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"

    def _packument(self, name: str) -> dict:
        manifest, integrity = self.packages[name]
        version = manifest["version"]
        base = name.split("/")[-1]
        dist = {"integrity": integrity, "tarball": f"{self.url}{name}/-/{base}-{version}.tgz"}
        return {"name": name, "dist-tags": {"latest": version}, "versions": {version: {**manifest, "dist": dist}}}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        registry = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the http.server interface
                path = unquote(self.path.split("?")[0]).lstrip("/")
                name, _, tarball = path.partition("/-/")
                body, kind = b"", "application/json"
                if name in registry.packages and tarball:
                    file = _content(registry.cache, registry.packages[name][1])
                    if file.is_file():
                        body, kind = file.read_bytes(), "application/octet-stream"
                elif name in registry.packages:
                    body = json.dumps(registry._packument(name)).encode()
                self.send_response(200 if body else 404)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        return Handler

    def __enter__(self) -> "LockedRegistry":
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
