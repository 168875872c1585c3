"""Expensive test set-up made once per test run, shared by every pytest-xdist worker.

``once_per_run(tmp_path_factory, name, build)`` calls ``build(folder)`` in the first process of the
run that asks (under a file lock) and hands every process the same (pickled) result. The shared
folder is ``$REELJUDGE_TEST_RUN_DIR`` when set (``scripts/test.sh`` sets it, so both of its passes
share one build), else the base temporary folder of this pytest run (the parent of each worker's).
What ``build`` makes is shared: tests read it and write only into their own ``tmp_path``.

``once_per_checkout(tmp_path_factory, name, key, build)`` is the same for what only its inputs decide
(``key``, a digest of them): kept between runs in ``$REELJUDGE_TEST_KEEP_DIR`` (``scripts/test.sh`` sets
``.venv/test-keep``), so a developer's next run reads it; a run without that folder builds it per run.
"""

from __future__ import annotations

import os
import pickle
import shutil
from pathlib import Path
from typing import Callable, TypeVar

import pytest
from filelock import FileLock

RUN_DIR_VAR = "REELJUDGE_TEST_RUN_DIR"
RUN_DIR = os.environ.get(RUN_DIR_VAR)  # read at import: the autouse clean_env fixture removes REELJUDGE_* variables
KEEP_DIR_VAR = "REELJUDGE_TEST_KEEP_DIR"
KEEP_DIR = os.environ.get(KEEP_DIR_VAR)
T = TypeVar("T")


def shared_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder every process of this test run sees: the run folder of scripts/test.sh, or pytest's own."""
    if RUN_DIR:
        return Path(RUN_DIR)
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once_per_run(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], T]) -> T:
    """``build(folder)``'s result for this run: built by the first process to ask, loaded by the others."""
    root = shared_root(tmp_path_factory)
    root.mkdir(parents=True, exist_ok=True)
    with FileLock(str(root / f"{name}.lock")):
        return once_per_run_in(root, name, build)


def once_per_run_in(root: Path, name: str, build: Callable[[Path], T]) -> T:
    """``build(root / name)``'s pickled result in ``root``, built now if it is not there (the caller holds the lock)."""
    folder, done = root / name, root / f"{name}.pickle"
    if not done.exists():
        shutil.rmtree(folder, ignore_errors=True)  # left half-built by a process whose build failed
        folder.mkdir()
        done.write_bytes(pickle.dumps(build(folder)))
    return pickle.loads(done.read_bytes())


def once_per_checkout(tmp_path_factory: pytest.TempPathFactory, name: str, key: str, build: Callable[[Path], T]) -> T:
    """``build(folder)``'s result for inputs digested as ``key``: kept between runs in the keep folder (the
    other keys' copies of ``name`` are removed when a new one is built), else built once for this run."""
    if not KEEP_DIR:
        return once_per_run(tmp_path_factory, name, build)
    root = Path(KEEP_DIR)
    root.mkdir(parents=True, exist_ok=True)
    stem = f"{name}-{key}"
    with FileLock(str(root / f"{name}.lock")):
        if not (root / f"{stem}.pickle").exists():
            for old in root.glob(f"{name}-*"):  # another key's copy: its inputs changed since
                shutil.rmtree(old) if old.is_dir() else old.unlink()
        return once_per_run_in(root, stem, build)
