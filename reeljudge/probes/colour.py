"""Colour probe: is the clip black-and-white, and did the prompt ask for that."""

from __future__ import annotations

import re

from reeljudge.probes.derived import Derived
from reeljudge.probes.thresholds import ColourOptions
from reeljudge.probes.report import ProbeResult, frame_range
from reeljudge.probes.signals import Signals

_MONO = re.compile(r"\b(black[- ]and[- ]white|b&w|monochrome|grayscale|greyscale|noir|sepia)\b", re.IGNORECASE)


def prompt_asks_black_and_white(prompt: str) -> bool:
    """Whether a generation prompt asks for black-and-white footage."""
    return bool(_MONO.search(prompt or ""))


def probe_black_and_white(signals: Signals, derived: Derived, options: ColourOptions, prompt: str = "") -> ProbeResult:
    """Detect black-and-white clips; fail one unless allowed by option or asked for by the prompt."""
    lit = [c for c, b in zip(signals.chroma, derived.black) if not b]
    gray = sum(1 for c in lit if c < options.gray_chroma)
    share = gray / len(lit) if lit else 0.0
    mono = bool(lit) and share >= options.gray_fraction
    allowed = options.allow_black_and_white if options.allow_black_and_white is not None else prompt_asks_black_and_white(prompt)
    details = {"gray_share": round(share, 3), "black_and_white": mono, "allowed": allowed}
    whole = frame_range(signals, 0, signals.count - 1)
    if not lit:
        return ProbeResult("black_and_white", True, 1.0, "colour not judged: every analysed frame is black", details=details)
    if mono and not allowed:
        return ProbeResult("black_and_white", False, 0.0,
                           f"black-and-white ({share:.0%} of frames colourless over {whole}) and not asked for", details=details)
    if mono:
        return ProbeResult("black_and_white", True, 1.0,
                           f"black-and-white as asked ({share:.0%} of frames colourless)", details=details)
    return ProbeResult("black_and_white", True, 1.0, f"in colour ({share:.0%} of frames colourless)", details=details)
