"""Worker functions for the engine tests: importable by name in every worker process (pool or Dask)."""

from __future__ import annotations

import os
from typing import Any


def echo_raise_or_die(payload: int, context: dict[str, Any]) -> dict[str, Any]:
    """``{"n": payload, "pid": …}``; raises ValueError for ``context["raise"]`` and ends the worker
    process at once (exit code 3, as a crashing decoder would) for ``context["die"]``."""
    if payload == context.get("die"):
        os._exit(3)
    if payload == context.get("raise"):
        raise ValueError(f"bad payload {payload}")
    return {"n": payload, "pid": os.getpid()}


def worker_settings(payload: int, context: dict[str, Any]) -> dict[str, Any]:
    """The settings a library job meets in its worker process: environment, OpenCV and decoder threads
    (read from the media layer the engine configured, without importing it from this low layer)."""
    import sys

    import cv2

    container = sys.modules.get("reeljudge.media.container")
    return {
        "pid": os.getpid(),
        "malloc_trim": os.environ.get("MALLOC_TRIM_THRESHOLD_"),
        "omp_threads": os.environ.get("OMP_NUM_THREADS"),
        "opencv_threads": cv2.getNumThreads(),
        "decoder_threads": getattr(container, "_decoder_threads", None),
    }
