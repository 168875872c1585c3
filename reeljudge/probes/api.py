"""``reeljudge.run_probes``: the offline probes as one Python call that never raises for a clip it
could not judge."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reeljudge.errors import MediaError
from reeljudge.not_judged import NotJudged
from reeljudge.probes.options import ProbeOptions
from reeljudge.probes.report import ProbesVerdict


def run_probes(path: str | Path, options: ProbeOptions | None = None, prompt: str = "",
               **overrides: Any) -> ProbesVerdict | NotJudged:
    """Decode the clip at ``path`` once and run every selected probe.

    ``overrides`` are probe options by name (``probes=["black_frames"]``, ``black_min_frames=3``),
    checked like an assertion's config; ``prompt`` lets the probes that read it (cuts, dynamic
    degree, black and white) know what was asked for. Returns the verdict, or ``NotJudged``
    (kind ``media_error``) when the clip is missing or cannot be decoded; bad options raise
    BadInputError (and ``options`` with keyword options as well, TypeError).

    Example::

        verdict = reeljudge.run_probes("clip.mp4", prompt="a red ball rolls over a hill")
        verdict.passed, [r.name for r in verdict.failed]
    """
    from reeljudge.probes import probe_clip

    try:
        return probe_clip(path, options, prompt, **overrides)
    except MediaError as error:
        return NotJudged.from_error("probes", error)
