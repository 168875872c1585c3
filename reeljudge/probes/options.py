"""The probes' options: every threshold (``thresholds.Thresholds``, grouped per probe) and which probes
to report (``probes``, the names of the probe table), with the assertion's own options and their loader.

A config names every option flat, as users write it (``black_min_frames: 3``); so do ``ProbeOptions.of``
and ``reeljudge.run_probes(path, **options)``. The object is grouped: ``options.black.black_min_frames``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from reeljudge.options import load_one, load_options, option
from reeljudge.probes.table import PROBE_NAMES
from reeljudge.probes.thresholds import Thresholds

__all__ = ["PROBE_NAMES", "ProbeAssertionOptions", "ProbeOptions", "load"]


@dataclass(frozen=True)
class ProbeOptions(Thresholds):
    """Every probe threshold (see ``Thresholds``) and which probes to report."""

    probes: tuple[str, ...] = option(PROBE_NAMES, doc="which probes to report", verdict=True)

    @classmethod
    def of(cls, **options: Any) -> ProbeOptions:
        """Probe options from flat keyword options, as a config names them (``ProbeOptions.of(black_min_frames=3)``),
        checked alike; BadInputError on an unknown option or a bad value."""
        return load_one(options, cls, owner="probe options")

    def __post_init__(self) -> None:
        unknown = [p for p in self.probes if p not in PROBE_NAMES]
        if unknown:
            raise ValueError(f"unknown probes {unknown} (known: {', '.join(PROBE_NAMES)})")


@dataclass(frozen=True)
class ProbeAssertionOptions:
    """What the video-probes assertion reads from its test, beside the probe thresholds."""

    var: str | None = option(None, aliases=("clip_var",),
                             doc="the var naming the clip (null: the provider response's clip, else a markdown link, else var "
                                 "video/clip, else the output; docs/media.md)")
    prompt_var: str = option("prompt",
                             doc="the var holding the prompt the clip was made from (for one-shot and colour expectations)")
    base_dir: str | None = option(None, doc="where relative clip paths start (default: the working directory)")
    expect_fail: bool = option(False, doc="a clip with a planted fault: pass only when the probes ran and found it")


def load(config: Mapping[str, Any] | None) -> tuple[ProbeAssertionOptions, ProbeOptions]:
    """The assertion's options and the probe thresholds from one config; BadInputError on a bad or unknown key."""
    return load_options(config, ProbeAssertionOptions, ProbeOptions, owner="video_probes")
