"""Each generated clip decoded and measured once per test process, however many tests probe it.

The A/B judge tests probe the same clips over and over (a clean reference against every fault, a clip
against itself): the decode and per-frame measuring (``reeljudge.probes.signals.measure``) is most of
their time, and its result depends only on the clip's bytes and the options. :func:`measure_once` keeps
``measure``'s signals by (the clip's SHA-256, the options) and hands each caller a deep copy, so every
probe, the judge's weighing and its verdict still run in full on every call; only the decoding is shared.
A module opts in with ``pytestmark = pytest.mark.usefixtures("measure_once")`` (fixture in
``tests/conftest.py``); a test whose claim is about decoding itself (threads, caps, sizes) stays out.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import reeljudge.probes
from reeljudge.probes.signals import Signals, measure

_MEASURED: dict[tuple[str, str], Signals] = {}


def measured(path: str | Path, options: Any = None) -> Signals:
    """``measure(path, options)``, computed once per clip content and options in this process."""
    if not Path(path).is_file():  # the error is measure's own
        return measure(path, options)
    key = (hashlib.sha256(Path(path).read_bytes()).hexdigest(), repr(options))
    if key not in _MEASURED:
        _MEASURED[key] = measure(path, options)
    return copy.deepcopy(_MEASURED[key])


@contextmanager
def measuring_once() -> Iterator[None]:
    """``reeljudge.probes.probe_clip`` measures through :func:`measured` inside the block."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reeljudge.probes, "measure", measured)
        yield
