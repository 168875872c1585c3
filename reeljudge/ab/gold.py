"""Gold pairs: attention checks with a known answer, made by the synthetic clip generator (``reeljudge.synth``).

Each gold pair is a clean synthetic clip against the same clip with an obvious injected fault
(black frames, a freeze, flicker, a scene cut); the clean clip must win. Raters are not told which
tasks are gold; the report gives each rater's gold accuracy.
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

from reeljudge.ab.samples import Clip, ClipStore, Sample, make_sample

GOLD_CLEAN = "gold-clean"
GOLD_FAULT = "gold-fault"
PROMPT = "A red ball rolls past a textured wall while the camera pans slowly; one continuous shot."
FAULTS = ("black", "frozen", "flicker", "cut")


def make_gold(clip_store: ClipStore, count: int = 4, *, frames: int = 72, fps: int = 24) -> tuple[list[Sample], list[Clip]]:
    """``count`` gold samples (clean beats faulty) and their clips, rendered and stored by hash."""
    from reeljudge.synth.clips import BASE, Fault, make_clip

    samples, clips = [], []
    with tempfile.TemporaryDirectory(prefix="reeljudge-gold-") as work:
        for i in range(count):
            kind = FAULTS[i % len(FAULTS)]
            spec = replace(BASE, frames=frames, fps=fps, seed=101 + i)
            start, length = frames // 3, max(2, frames // 3)
            fault = Fault(kind, start, 1 if kind == "cut" else length, 1.6 if kind == "flicker" else 1.0)
            clean = clip_store.add(make_clip(Path(work) / f"clean{i}.mp4", spec))
            faulty = clip_store.add(make_clip(Path(work) / f"fault{i}.mp4", spec.with_faults(fault)))
            clips += [clean, faulty]
            samples.append(make_sample(
                "text-to-video", PROMPT, (GOLD_CLEAN, clean.sha256), (GOLD_FAULT, faulty.sha256),
                kind="gold", expected=GOLD_CLEAN, origin=f"gold {i + 1}: clean vs {kind}", extra={"fault": kind},
            ))
    return samples, clips
