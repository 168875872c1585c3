"""Offline video probes: one streaming decode feeding every probe at a reduced analysis resolution.

``probe_clip(path, options, prompt=…)`` decodes a clip once and returns a ``ProbesVerdict``: one
``ProbeResult`` per probe named in ``options.probes``, or raises MediaError. The public face
``reeljudge.run_probes`` (``api.py``) is the same call that returns ``NotJudged`` instead of raising.
Inside: the decode's ``Signals`` (``signals``), the shared readings worked out once (``derived``), the
probe table (``table``), each probe handed its own options group (``thresholds``; docs/probes.md).
Importing this package is cheap; PyAV, OpenCV and numpy load only when a clip is measured.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reeljudge.probes.options import PROBE_NAMES, ProbeOptions
from reeljudge.probes.report import ProbeResult, ProbesVerdict
from reeljudge.probes.signals import Signals, measure
from reeljudge.probes.table import run_selected

__all__ = ["PROBE_NAMES", "ProbeOptions", "ProbeResult", "ProbesVerdict", "probe_clip", "probe_signals"]


def probe_signals(signals: Signals, options: ProbeOptions, prompt: str = "") -> list[ProbeResult]:
    """Every selected probe's result for already measured signals, in the probe table's order."""
    return run_selected(signals, options, options.probes, prompt)


def probe_clip(path: str | Path, options: ProbeOptions | None = None, prompt: str = "", *, clip_name: str | None = None,
               **overrides: Any) -> ProbesVerdict:
    """Decode ``path`` once and run every selected probe; MediaError if it cannot be decoded.

    ``overrides`` are probe options by name (``probes=["black_frames"]``, ``black_min_frames=3``),
    checked like an assertion's config; ``clip_name``: how the verdict's reason names the clip (its
    file name when not given). Example: ``probe_clip("clip.mp4").passed``.
    """
    if overrides:
        from reeljudge.options import load_one

        if options is not None:
            raise TypeError("give probe options either as a ProbeOptions or as keyword arguments, not both")
        options = load_one(overrides, ProbeOptions, owner="run_probes")
    options = options or ProbeOptions()
    signals = measure(path, options)
    return ProbesVerdict(probe_signals(signals, options, prompt), signals.info, options, clip_name or Path(path).name)
