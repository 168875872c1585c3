"""Gold pairs: attention checks with a known answer, made by the synthetic clip generator (``reeljudge.synth``).

Each gold pair is a clean synthetic clip against the same clip with an obvious injected fault
(black frames, a freeze, flicker, a scene cut); the clean clip must win. Raters are not told which
tasks are gold; the report gives each rater's gold accuracy. So that a gold task does not stand
out, each gold pair draws its own prompt at random from the study's (then from a varied set), never
one another gold pair has; its clips take the study's frame size and rate when given one, go through
the study's blinding as imported clips do (``ClipStore.intake``: names stripped, or re-encoded to the
study's one profile), and are written as imported clips are (in content-hash order, with the one file
time of the clip store). The assignment hands a gold pair to a rater only with a prompt they have not
been handed, at a random place in each block of tasks (``assignment.GoldSlots``).
"""

from __future__ import annotations

import secrets
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from reeljudge.ab.samples import Clip, ClipStore, Sample, make_sample

if TYPE_CHECKING:
    from reeljudge.synth.clips import FaultKind

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
FAULTS: tuple[FaultKind, ...] = ("black", "frozen", "flicker", "cut")


def make_gold(
    clip_store: ClipStore, count: int = 4, *, frames: int = 72, fps: int = 24, prompts: Sequence[str] = (),
    like: Clip | None = None,
    blinding: str = "strip", taken: Sequence[str] = (), first: int = 0,
) -> tuple[list[Sample], list[Clip]]:
    """``count`` gold samples (clean beats faulty) and their clips, rendered, blinded as the study's clips are
    (``blinding``) and stored by hash.

    ``prompts``: the study's prompts to draw from (default: ``VARIED_PROMPTS``); ``like``: a study clip whose frame
    size and rate the gold clips take; ``taken``: prompts of the study's gold pairs already (not drawn again);
    ``first``: how many gold pairs the study has (the new ones render other scenes).
    """
    from reeljudge.synth.clips import BASE, Fault, make_clip

    pool = draw_prompts(prompts, count, taken)
    base = replace(BASE, frames=frames, fps=round(like.fps) if like else fps,
                   width=like.width if like else BASE.width, height=like.height if like else BASE.height)
    samples, sources = [], {}
    with tempfile.TemporaryDirectory(prefix="reeljudge-gold-") as work:
        for i in range(first, first + count):
            kind = FAULTS[i % len(FAULTS)]
            spec = replace(base, seed=101 + i)
            start, length = frames // 3, max(2, frames // 3)
            fault = Fault(kind, start, 1 if kind == "cut" else length, 1.6 if kind == "flicker" else 1.0)
            pair = []
            for name, clip_spec in (("clean", spec), ("fault", spec.with_faults(fault))):
                path = make_clip(Path(work) / f"{name}{i}.mp4", clip_spec)
                _, clip, blinded = clip_store.intake(path, Path(work), blinding=blinding)
                sources[clip.sha256] = (clip, blinded)
                pair.append(clip)
            samples.append(make_sample(
                "text-to-video", pool[(i - first) % len(pool)], (GOLD_CLEAN, pair[0].sha256), (GOLD_FAULT, pair[1].sha256),
                kind="gold", expected=GOLD_CLEAN, origin=f"gold {i + 1}: clean vs {kind}", extra={"fault": kind},
            ))
        clip_store.put_all(sources)
    return samples, [clip for clip, _ in sources.values()]


def draw_prompts(prompts: Sequence[str], count: int, taken: Sequence[str] = ()) -> list[str]:
    """``count`` distinct prompts at random: the study's first, then the varied set, none of ``taken`` (they repeat
    only when a study has fewer prompts than gold pairs)."""
    chooser = secrets.SystemRandom()
    used = {p.strip() for p in taken}
    own = [p for p in sorted({p.strip() for p in prompts if p.strip()}) if p not in used]
    spare = [p for p in VARIED_PROMPTS if p not in used and p not in own]
    pool = chooser.sample(own, len(own)) + chooser.sample(spare, len(spare))
    return pool[:count] or list(VARIED_PROMPTS)
