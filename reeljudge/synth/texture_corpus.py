"""The texture corpus: clean footage of repeating surfaces that generators and stock libraries are
full of, and the six faults planted into it, as a recipe (the clips are rendered from it, never stored).

Every family of ``FAMILIES`` (bricks, tiles, stripes at four angles, a checkerboard, a fence,
blinds; grass, foliage, a crowd, a sea; real grass and leaves from the Big Buck Bunny excerpt when
its path is given) is filmed clean:

* panned at 0.5, 1, 1.5, 2, 3 and 4 px/frame, half of them with a red ball rolling past (which
  half flips between the splits);
* panned at a speed that aliases with its repeat (half the period per frame: a repeat and its
  neighbour are equally near, the stroboscope's case; natural textures pan at 8 px/frame);
* tilted down 1 px/frame, zoomed in slowly (0.4 % a frame) and turned slowly (0.15° a frame);

and each fault (black, freeze, flicker, cut, shake, truncation) is planted into a panning clip of
five families per split, with the probe that must report it and where.

**The split.** ``train`` renders every family three times (settings A, B, C) and ``test`` once
(setting D); each setting has its own repeats (periods), stripe angles, seeds (another layout of
shades, blades, leaves, people), frame rate (24, 25, 30, 24 fps), x264 quality (CRF 20, 23, 22,
21), boxes of the real footage, object pattern and fault placement. The probes were tuned on
``train``; ``test`` is what they are judged on. (B and then C were each the test split first: once
the probes' failures on them had been studied, each joined ``train`` and a new setting, made after
the probes were settled, took its place; docs/probes.md gives the figures of each first look.)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterator, Literal, Sequence, TypedDict

from reeljudge.synth.clips import ClipSpec, Fault, make_clip

Split = Literal["train", "test"]
SPLITS: tuple[Split, ...] = ("train", "test")
SPEEDS = (0.5, 1.0, 1.5, 2.0, 3.0, 4.0)
PROMPT = "a red ball rolls past a textured wall; one continuous shot, the camera pans slowly"


@dataclass(frozen=True)
class Family:
    """A repeating surface: its scene, its repeat per setting A, B, C, D (px; 0 = no single period), a
    stripe's angle per setting (degrees), the boxes of real footage per setting."""

    name: str
    scene: str
    periods: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0)
    angles: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0)
    boxes: tuple[tuple[int, int, int, int], ...] = ()

    @property
    def periodic(self) -> bool:
        """Whether the surface repeats with one period."""
        return self.periods[0] > 0

    def runs_across_pans(self, setting: int) -> bool:
        """Whether the texture runs roughly horizontally, so a horizontal pan hardly shows (a tilt does)."""
        return self.scene == "blinds" or (self.scene == "stripes" and self.angles[setting] >= 60)


FAMILIES: tuple[Family, ...] = (
    Family("bricks", "bricks", (40, 34, 46, 38)),
    Family("tiles", "tiles", (32, 26, 28, 30)),
    Family("stripes_a", "stripes", (24, 18, 20, 21), angles=(0, 0, 15, 10)),
    Family("stripes_b", "stripes", (24, 18, 22, 27), angles=(30, 30, 45, 40)),
    Family("stripes_c", "stripes", (24, 20, 16, 19), angles=(60, 60, 75, 70)),
    Family("stripes_d", "stripes", (24, 18, 26, 23), angles=(90, 90, 90, 90)),
    Family("checkerboard", "checkerboard", (32, 24, 28, 36)),
    Family("fence", "fence", (28, 22, 32, 26)),
    Family("blinds", "blinds", (20, 16, 18, 22)),
    Family("grass", "grass"),
    Family("foliage", "foliage"),
    Family("crowd", "crowd"),
    Family("waves", "waves", (36, 30, 40, 34)),
    Family("real_grass", "footage", boxes=((0, 196, 480, 74), (0, 180, 300, 90), (120, 190, 360, 80), (40, 200, 400, 70))),
    Family("real_leaves", "footage", boxes=((290, 0, 130, 110), (300, 10, 110, 90), (280, 20, 150, 100), (300, 5, 120, 105))),
)
#: what moves a surface in place (wind in grass and leaves, people in a crowd, waves rolling in)
class _Surface(TypedDict, total=False):
    """The surface's own motion in a family's clips (fields of ClipSpec)."""

    wobble_px: float
    drift_px: float


class _Camera(TypedDict, total=False):
    """The camera's motion (fields of ClipSpec)."""

    pan_px: float
    tilt_px: float


_SURFACE_MOTION: dict[str, _Surface] = {"grass": {"wobble_px": 0.8}, "foliage": {"wobble_px": 1.2}, "crowd": {"wobble_px": 0.6},
                   "waves": {"drift_px": 0.7, "wobble_px": 0.5}}


@dataclass(frozen=True)
class Planted:
    """A fault planted into a clip: the probe that must report it and its first and last frame."""

    probe: str
    start: int
    end: int


@dataclass(frozen=True)
class TextureClip:
    """One clip of the texture corpus: how to render it and what the probes must find."""

    name: str
    split: Split
    family: str
    what: str
    spec: ClipSpec
    planted: tuple[Planted, ...] = ()
    truncate: float = 0.0  # keep this share of the file's bytes (0: whole)
    crf: int = 23  # x264 quality it is written at
    prompt: str = PROMPT

    @property
    def group(self) -> str:
        """``clean`` or ``fault``."""
        return "fault" if self.planted else "clean"


@dataclass(frozen=True)
class _Setting:
    """What a setting changes besides the periods, angles and boxes."""

    index: int
    seed: int
    fps: int
    crf: int


#: split → its settings (A, B and C train, D test)
_SETTINGS: dict[Split, tuple[_Setting, ...]] = {
    "train": (_Setting(0, 11, 24, 20), _Setting(1, 23, 25, 23), _Setting(2, 37, 30, 22)),
    "test": (_Setting(3, 53, 24, 21),),
}


def _base(family: Family, s: _Setting, excerpt: str) -> ClipSpec:
    """The family's clip of 3 s at 320×180 in setting ``s``, before any camera or fault."""
    spec = ClipSpec(width=320, height=180, fps=s.fps, frames=3 * s.fps, seed=s.seed + 31 * FAMILIES.index(family),
                    scene=family.scene, period=family.periods[s.index], angle=family.angles[s.index], object_px=0.0,
                    pan_px=0.0, **_SURFACE_MOTION.get(family.name, {}))
    if family.boxes:
        spec = replace(spec, source=excerpt, source_box=family.boxes[s.index])
    return spec


def _clean(family: Family, split: Split, s: _Setting, excerpt: str) -> Iterator[TextureClip]:
    """The family's clean clips in setting ``s``."""
    base = _base(family, s, excerpt)
    flip = s.index % 2
    for k, speed in enumerate(SPEEDS):
        ball = (k + flip) % 2 == 1
        spec = replace(base, pan_px=speed, object_px=3.0 if ball else 0.0)
        yield _made(f"{family.name}_pan{speed:g}{'_ball' if ball else ''}", split, s, family,
                    f"pan {speed:g} px/frame{', a ball rolls past' if ball else ''}", spec)
    period = family.periods[s.index]
    alias = period / 2 if family.periodic else 8.0
    yield _made(f"{family.name}_alias", split, s, family,
                f"pan {alias:g} px/frame "
                f"({'half its period: a repeat and its neighbour equally near' if family.periodic else 'fast'})",
                replace(base, pan_px=alias))
    yield _made(f"{family.name}_tilt_ball", split, s, family, "tilt down 1 px/frame, a ball rolls past",
                replace(base, tilt_px=1.0, object_px=3.0))
    yield _made(f"{family.name}_zoom", split, s, family, "slow zoom in (0.4 % a frame)",
                replace(base, zoom=0.004, object_px=3.0 * flip))
    yield _made(f"{family.name}_rotate", split, s, family, "slow turn (0.15° a frame)",
                replace(base, rotate=0.15, object_px=3.0 * (1 - flip)))


def _made(name: str, split: Split, s: _Setting, family: Family, what: str, spec: ClipSpec,
          planted: tuple[Planted, ...] = (), truncate: float = 0.0) -> TextureClip:
    """A clip of setting ``s``, its name and description saying which setting and surface."""
    setting = "ABCD"[s.index]
    surface = (f"{family.name} (period {family.periods[s.index]:g} "
               f"px{f', {family.angles[s.index]:g}°' if family.scene == 'stripes' else ''})" if family.periodic
               else family.name)
    return TextureClip(f"{setting}_{name}", split, family.name, f"{surface}, {setting}: {what}", spec,
                       planted, truncate, crf=s.crf)


#: fault → the families (by index into FAMILIES) it is planted into in settings A, B, C and D
_FAULT_FAMILIES = {
    "black": ((0, 3, 6, 9, 12), (1, 4, 7, 10, 13), (2, 5, 8, 11, 14), (0, 4, 8, 12, 13)),
    "freeze": ((1, 4, 7, 10, 13), (2, 5, 8, 11, 14), (0, 3, 6, 9, 12), (1, 5, 6, 10, 14)),
    "flicker": ((2, 5, 8, 11, 14), (0, 3, 6, 9, 12), (1, 4, 7, 10, 13), (2, 3, 7, 11, 12)),
    "cut": ((0, 2, 4, 8, 10), (1, 3, 5, 9, 11), (0, 5, 6, 7, 12), (1, 2, 8, 11, 13)),
    "shake": ((3, 5, 7, 9, 11), (0, 2, 6, 8, 12), (1, 4, 8, 10, 14), (0, 3, 5, 7, 9)),
    "truncation": ((1, 6, 11, 12, 13), (4, 7, 10, 13, 14), (3, 9, 11, 12, 2), (6, 10, 12, 14, 4)),
}


def _faulty(family: Family, split: Split, s: _Setting, excerpt: str, fault: str, speed: float) -> TextureClip:
    """The family moving at ``speed`` px/frame (a tilt where a pan would hardly show) with ``fault``
    planted, and where it must be reported."""
    base = _base(family, s, excerpt)
    move: _Camera = {"tilt_px": speed} if family.runs_across_pans(s.index) else {"pan_px": speed}
    base = replace(base, object_px=3.0 if speed >= 2 else 0.0, **move)
    f = lambda seconds: int(round(seconds * base.fps))  # noqa: E731
    n = base.frames
    camera = f"{'tilt' if 'tilt_px' in move else 'pan'} {speed:g} px/frame: "
    name = f"{family.name}_{fault}"
    if fault == "truncation":
        return _made(name, split, s, family, camera + "file cut at 55 % of its bytes", base,
                     (Planted("technical", 0, n - 1),), truncate=0.55)
    planted = {
        "black": (Fault("black", f(1.0), f(0.33)), Planted("black_frames", f(1.0), f(1.0) + f(0.33) - 1),
                  "hard cut to black and back"),
        "freeze": (Fault("frozen", f(1.25), f(0.5)), Planted("frozen_frames", f(1.25) - 1, f(1.75) - 1),
                   "playback freezes for 0.5 s"),
        "flicker": (Fault("flicker", f(1.0), f(1.0), strength=0.5, hz=8.0), Planted("flicker", f(1.0), f(2.0) - 1),
                    "8 Hz flicker (±12.5 %) for 1 s"),
        "cut": (Fault("cut", f(1.5)), Planted("scene_cuts", f(1.5), f(1.5)), "cut to the same surface seen closer"),
        "shake": (Fault("shake", f(1.0), f(1.0), strength=0.5),
                  Planted("camera_shake", f(1.0), f(2.0) - 1), "camera shake for 1 s"),
    }
    fault_spec, where, what = planted[fault]
    return _made(name, split, s, family, camera + what, base.with_faults(fault_spec), (where,))


def texture_corpus(split: Split, excerpt: str | Path | None = None) -> list[TextureClip]:
    """Every clip of one split: each family's clean clips, then the planted faults, setting by setting.
    The ``real_*`` families need ``excerpt`` (the Big Buck Bunny excerpt, CC BY 3.0) and are left out
    without it."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r} (train or test)")
    source = str(excerpt) if excerpt else ""
    usable = [f for f in FAMILIES if not f.boxes or source]
    clips: list[TextureClip] = []
    for s in _SETTINGS[split]:
        clips += [clip for family in usable for clip in _clean(family, split, s, source)]
        for number, (fault, picks) in enumerate(_FAULT_FAMILIES.items()):
            for k, family_index in enumerate(picks[s.index]):
                family = FAMILIES[family_index]
                if family in usable:
                    clips.append(_faulty(family, split, s, source, fault, SPEEDS[(number + k + s.index) % len(SPEEDS)]))
    return clips


def write_clip(clip: TextureClip, path: str | Path) -> Path:
    """Render ``clip`` to ``path`` (cut short when it is a truncation)."""
    path = make_clip(path, clip.spec, crf=clip.crf)
    if clip.truncate:
        data = path.read_bytes()
        path.write_bytes(data[: int(len(data) * clip.truncate)])
    return path


def write_texture_corpus(folder: str | Path, splits: Sequence[Split] = SPLITS,
                         excerpt: str | Path | None = None) -> list[tuple[TextureClip, Path]]:
    """Write the clips of these splits into ``folder`` (a clip already there is kept): (clip, path) each."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for split in splits:
        for clip in texture_corpus(split, excerpt):
            path = folder / f"{clip.name}.mp4"
            if not path.exists():
                partial = path.with_name(".partial-" + path.name)
                write_clip(clip, partial)
                partial.replace(path)
            written.append((clip, path))
    return written
