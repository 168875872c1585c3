"""Offline video probes: one streaming decode feeding every probe at a reduced analysis resolution.

``probe_clip(path, options, prompt=…)`` decodes a clip once and returns a ``ProbesVerdict``: one
``ProbeResult`` per probe named in ``options.probes``, or raises MediaError. The public face
``reeljudge.run_probes`` (``api.py``) is the same call that returns ``NotJudged`` instead of raising. Importing this package is cheap; PyAV, OpenCV and numpy load
only when a clip is measured.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reeljudge.probes.options import PROBE_NAMES, ProbeOptions
from reeljudge.probes.report import ProbeResult, ProbesVerdict

__all__ = ["PROBE_NAMES", "ProbeOptions", "ProbeResult", "ProbesVerdict", "probe_clip", "probe_signals"]


def probe_signals(signals: "Signals", options: ProbeOptions, prompt: str = "") -> list[ProbeResult]:  # noqa: F821
    """Every selected probe's result for already measured signals, in ``PROBE_NAMES`` order."""
    from reeljudge.probes.black import probe_black
    from reeljudge.probes.colour import probe_black_and_white
    from reeljudge.probes.cuts import probe_cuts
    from reeljudge.probes.flicker import probe_flicker
    from reeljudge.probes.frozen import probe_frozen
    from reeljudge.probes.dynamic import probe_dynamic_degree
    from reeljudge.probes.motion import probe_shake, probe_smoothness
    from reeljudge.probes.technical import probe_technical
    from reeljudge.probes.vbench import probe_vbench_flicker

    table = {
        "technical": lambda: probe_technical(signals, options),
        "black_frames": lambda: probe_black(signals, options),
        "frozen_frames": lambda: probe_frozen(signals, options),
        "scene_cuts": lambda: probe_cuts(signals, options, prompt),
        "flicker": lambda: probe_flicker(signals, options),
        "dynamic_degree": lambda: probe_dynamic_degree(signals, options, prompt),
        "camera_shake": lambda: probe_shake(signals, options),
        "motion_smoothness": lambda: probe_smoothness(signals, options),
        "black_and_white": lambda: probe_black_and_white(signals, options, prompt),
        "vbench_temporal_flickering": lambda: probe_vbench_flicker(signals, options),
    }
    return [table[name]() for name in PROBE_NAMES if name in options.probes]


def probe_clip(path: str | Path, options: ProbeOptions | None = None, prompt: str = "", *, clip_name: str | None = None,
               **overrides: Any) -> ProbesVerdict:
    """Decode ``path`` once and run every selected probe; MediaError if it cannot be decoded.

    ``overrides`` are probe options by name (``probes=["black_frames"]``, ``black_min_frames=3``),
    checked like an assertion's config; ``clip_name``: how the verdict's reason names the clip (its
    file name when not given). Example: ``probe_clip("clip.mp4").passed``.
    """
    from reeljudge.probes.signals import measure

    if overrides:
        from reeljudge.options import load_one

        if options is not None:
            raise TypeError("give probe options either as a ProbeOptions or as keyword arguments, not both")
        options = load_one(overrides, ProbeOptions, owner="run_probes")
    options = options or ProbeOptions()
    signals = measure(path, options)
    return ProbesVerdict(probe_signals(signals, options, prompt), signals.info, options, clip_name or Path(path).name)
