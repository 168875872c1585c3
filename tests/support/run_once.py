"""Expensive test set-up made once per test run, shared by every pytest-xdist worker.

``once_per_run(tmp_path_factory, name, build)`` calls ``build(folder)`` in the first process of the
run that asks (under a file lock) and hands every process the same (pickled) result. The shared
folder is ``$REELJUDGE_TEST_RUN_DIR`` when set (``scripts/test.sh`` sets it, so both of its passes
share one build), else the base temporary folder of this pytest run (the parent of each worker's).
What ``build`` makes is shared: tests read it and write only into their own ``tmp_path``.
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
    folder, done = root / name, root / f"{name}.pickle"
    with FileLock(str(root / f"{name}.lock")):
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # left half-built by a process whose build failed
            folder.mkdir()
            done.write_bytes(pickle.dumps(build(folder)))
        return pickle.loads(done.read_bytes())
