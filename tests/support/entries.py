"""Our promptfoo entry files (``providers/``, ``assertions/``, a user project's ``reeljudge_entries/``) loaded as
promptfoo's Python runner loads them: from their path, as a module of their own."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_entry(path: Path) -> ModuleType:
    """The entry file at ``path``, executed as a new module; ``sys.path`` as it was before (an entry puts the
    repository first on the path, as it should in promptfoo's process, not in the test's)."""
    spec = importlib.util.spec_from_file_location(f"entry_{path.stem}", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    saved = list(sys.path)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = saved
    return module
