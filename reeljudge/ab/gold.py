"""Gold pairs: attention checks with a known answer, made by the synthetic clip generator (``reeljudge.synth``).

Each gold pair is a clean synthetic clip against the same clip with an obvious injected fault
(black frames, a freeze, flicker, a scene cut); the clean clip must win. Raters are not told which
tasks are gold; the report gives each rater's gold accuracy. So that a gold task does not stand
out, its prompt is one of the study's own (else one of a varied set), its clips take the study's
frame size and rate when given one, and they are written as imported clips are (in content-hash
order, with the one file time of the clip store).
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Sequence

from reeljudge.ab.samples import Clip, ClipStore, Sample, make_sample

GOLD_CLEAN = "gold-clean"
GOLD_FAULT = "gold-fault"
#: prompts for a study that has none of its own yet (gold added before the import)
VARIED_PROMPTS = (
    "A red ball rolls past a textured wall while the camera pans slowly; one continuous shot.",
    "A paper boat drifts along a narrow canal at dusk, the camera following it from the bank.",
    "Steam rises from a cup of tea on a wooden table as morning light moves across the room.",
    "A cyclist rides through an empty city square, pigeons scattering ahead of the wheels.",
    "Waves roll onto a pebble beach under an overcast sky, seen from a low, steady camera.",
    "A kite climbs over a green hill on a windy afternoon, its tail twisting in the air.",
)
FAULTS = ("black", "frozen", "flicker", "cut")


def make_gold(
    clip_store: ClipStore, count: int = 4, *, frames: int = 72, fps: int = 24, prompts: Sequence[str] = (), like: Clip | None = None,
) -> tuple[list[Sample], list[Clip]]:
    """``count`` gold samples (clean beats faulty) and their clips, rendered and stored by hash.

    ``prompts``: the study's prompts to draw from (default: ``VARIED_PROMPTS``); ``like``: a study clip whose frame
    size and rate the gold clips take.
    """
    from reeljudge.synth.clips import BASE, Fault, make_clip

    pool = sorted({p for p in prompts if p.strip()}) or list(VARIED_PROMPTS)
    base = replace(BASE, frames=frames, fps=round(like.fps) if like else fps,
                   width=like.width if like else BASE.width, height=like.height if like else BASE.height)
    samples, sources = [], {}
    with tempfile.TemporaryDirectory(prefix="reeljudge-gold-") as work:
        for i in range(count):
            kind = FAULTS[i % len(FAULTS)]
            spec = replace(base, seed=101 + i)
            start, length = frames // 3, max(2, frames // 3)
            fault = Fault(kind, start, 1 if kind == "cut" else length, 1.6 if kind == "flicker" else 1.0)
            pair = []
            for name, clip_spec in (("clean", spec), ("fault", spec.with_faults(fault))):
                path = make_clip(Path(work) / f"{name}{i}.mp4", clip_spec)
                clip = clip_store.check(path)
                sources[clip.sha256] = (clip, path)
                pair.append(clip)
            samples.append(make_sample(
                "text-to-video", pool[i % len(pool)], (GOLD_CLEAN, pair[0].sha256), (GOLD_FAULT, pair[1].sha256),
                kind="gold", expected=GOLD_CLEAN, origin=f"gold {i + 1}: clean vs {kind}", extra={"fault": kind},
            ))
        clip_store.put_all(sources)
    return samples, [clip for clip, _ in sources.values()]
