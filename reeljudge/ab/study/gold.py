"""Gold pairs: attention checks with a known answer, made by the synthetic clip generator (``reeljudge.synth``).

Each gold pair is a clean synthetic clip against the same scene with an obvious injected fault
(black frames, a freeze, flicker, a scene cut); the clean clip must win. Raters are not told which
tasks are gold; the report gives each rater's gold accuracy. So that nothing a rater sees tells a
gold task from a study task (issue 46), each gold pair copies one of the study's own tasks, drawn at
random (a ``Template``): its family and prompt (never a prompt another gold pair has while the study
has others), an edit task's source clip, and each side's frame size, frame rate (23.976 stays
24000/1001) and length as the study's two systems give them — the clean clip takes one side's, at
random, the faulty clip the other's. The clips go through the study's blinding as imported clips do
(``ClipStore.intake``: names stripped, or re-encoded to the study's one profile), and are written as
imported clips are (in content-hash order, with the one file time of the clip store). The assignment
hands a gold pair to a rater only with a prompt they have not been handed, at a random place in each
block of tasks (``assignment.GoldSlots``). A study with no tasks yet gets the varied prompts and the
generator's own size.
"""

from __future__ import annotations

import secrets
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from reeljudge.ab.store.samples import Clip, ClipStore, Sample, make_sample

if TYPE_CHECKING:
    from reeljudge.synth.clips import ClipSpec, FaultKind

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


@dataclass(frozen=True)
class Template:
    """What one study task shows a rater and a gold pair copies: family, prompt, the two systems' clips (their frame
    size, rate and length) and an edit task's source clip."""

    family: str
    prompt: str
    sides: tuple[Clip, Clip]
    source_clip: str | None = None


def study_templates(samples: Sequence[Sample], clip: Callable[[str], Clip | None]) -> list[Template]:
    """A template per study task (kind "pair") whose two clips are stored (``clip``: a clip by sha256)."""
    templates = []
    for sample in (s for s in samples if s.kind == "pair"):
        a, b = clip(sample.clip_a), clip(sample.clip_b)
        if a is not None and b is not None:
            templates.append(Template(sample.family, sample.prompt.strip(), (a, b), sample.source_clip))
    return templates


def make_gold(
    clip_store: ClipStore, count: int = 4, *, frames: int = 72, fps: int = 24, templates: Sequence[Template] = (),
    blinding: str = "strip", taken: Sequence[str] = (), first: int = 0,
) -> tuple[list[Sample], list[Clip]]:
    """``count`` gold samples (clean beats faulty) and their clips, rendered, blinded as the study's clips are
    (``blinding``) and stored by hash.

    ``templates``: the study's tasks, one drawn at random per gold pair (without them: ``VARIED_PROMPTS`` at
    ``frames`` and ``fps`` and the generator's size); ``taken``: prompts of the study's gold pairs already (not drawn
    again while others remain); ``first``: how many gold pairs the study has (the new ones render other scenes).
    """
    from reeljudge.synth.clips import BASE, Fault, make_clip

    chooser = secrets.SystemRandom()
    pool = draw_templates(templates, count, taken) or [
        Template("text-to-video", prompt, (_generated(frames, fps),) * 2) for prompt in draw_prompts((), count, taken)]
    samples, sources = [], {}
    with tempfile.TemporaryDirectory(prefix="reeljudge-gold-") as work:
        for i in range(first, first + count):
            kind, template = FAULTS[i % len(FAULTS)], pool[(i - first) % len(pool)]
            clean_side = chooser.randrange(2)
            pair = []
            for name, side in (("clean", clean_side), ("fault", 1 - clean_side)):
                spec = _spec_like(BASE, template.sides[side], 101 + i)
                if name == "fault":
                    length = spec.frames
                    spec = spec.with_faults(Fault(kind, length // 3, 1 if kind == "cut" else max(2, length // 3),
                                                  1.6 if kind == "flicker" else 1.0))
                path = make_clip(Path(work) / f"{name}{i}.mp4", spec)
                _, clip, blinded = clip_store.intake(path, Path(work), blinding=blinding)
                sources[clip.sha256] = (clip, blinded)
                pair.append(clip)
            samples.append(make_sample(
                template.family, template.prompt, (GOLD_CLEAN, pair[0].sha256), (GOLD_FAULT, pair[1].sha256),
                source_clip=template.source_clip, kind="gold", expected=GOLD_CLEAN, origin=f"gold {i + 1}: clean vs {kind}",
                extra={"fault": kind},
            ))
        clip_store.put_all(sources)
    return samples, [clip for clip, _ in sources.values()]


def _generated(frames: int, fps: int) -> Clip:
    """The facts of a clip of the generator's own size, ``frames`` long at ``fps`` (for a study with no tasks yet)."""
    from reeljudge.synth.clips import BASE

    return Clip("", "", 0, "video/mp4", frames / fps, float(fps), BASE.width, BASE.height)


def _spec_like(base: ClipSpec, clip: Clip, seed: int) -> ClipSpec:
    """``base`` at ``clip``'s frame size, rate and length, with scene ``seed``."""
    rate = clip.fps or 24.0
    return replace(base, seed=seed, width=clip.width, height=clip.height, fps=rate, frames=max(2, round(clip.duration * rate)))


def draw_templates(templates: Sequence[Template], count: int, taken: Sequence[str] = ()) -> list[Template]:
    """``count`` templates at random: first one per prompt no gold pair has yet, then any (they repeat only when the
    study has fewer prompts than gold pairs); [] for a study with none."""
    if not templates:
        return []
    chooser = secrets.SystemRandom()
    used, fresh = {p.strip() for p in taken}, dict[str, Template]()
    for template in chooser.sample(list(templates), len(templates)):
        if template.prompt not in used:
            fresh.setdefault(template.prompt, template)
    pool = list(fresh.values())
    while len(pool) < count:
        pool.append(chooser.choice(list(templates)))
    return pool[:count]


def draw_prompts(prompts: Sequence[str], count: int, taken: Sequence[str] = ()) -> list[str]:
    """``count`` distinct prompts at random: the study's first, then the varied set, none of ``taken`` (they repeat
    only when a study has fewer prompts than gold pairs)."""
    chooser = secrets.SystemRandom()
    used = {p.strip() for p in taken}
    own = [p for p in sorted({p.strip() for p in prompts if p.strip()}) if p not in used]
    spare = [p for p in VARIED_PROMPTS if p not in used and p not in own]
    pool = chooser.sample(own, len(own)) + chooser.sample(spare, len(spare))
    return pool[:count] or list(VARIED_PROMPTS)
