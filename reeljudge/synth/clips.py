"""Deterministic synthetic clips with faults injected at known frames, written with PyAV.

A clip is a camera window panning over a seeded "world" (texture, flat animation or a night
street, see ``scenes``) with a moving object, optional grain, sway, easing to a hold, zoom,
animation cadence and variable-rate timestamps; faults and effects (cut, camera jump, frozen run,
near-static run (a frozen frame under fresh noise), black run, flicker at a rate or aperiodic,
shake, noise, black-and-white, fades, dissolve, flash, exposure ramp) replace or alter frames at
the frame indices given. The same spec always gives the same frames. Run
``python -m reeljudge.synth.clips OUT_DIR`` to write the committed suite fixtures; the probes'
whole corpus is test support (``tests/support/corpus.py``).
"""

from __future__ import annotations

import argparse
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterator, Literal, Sequence

import numpy as np

from reeljudge.synth.encode import write_clip

FaultKind = Literal[
    "cut", "jump", "frozen", "near_static", "black", "flicker", "flicker_random", "shake", "noise", "gray",
    "fade_out", "fade_in", "dissolve", "flash", "exposure",
]


@dataclass(frozen=True)
class Fault:
    """A fault or effect over frames ``start`` .. ``start + length - 1`` (cut and jump: from ``start`` on).

    ``strength`` scales it (flicker: 1 = ±25 % brightness); ``hz`` is a flicker's rate (0: the
    brightness alternates every frame).
    """

    kind: FaultKind
    start: int
    length: int = 1
    strength: float = 1.0
    hz: float = 0.0

    @property
    def end(self) -> int:
        """The last frame index the fault touches."""
        return self.start + self.length - 1

    def covers(self, index: int) -> bool:
        """Whether frame ``index`` is inside the fault."""
        return self.start <= index <= self.end


@dataclass(frozen=True)
class ClipSpec:
    """What to render: size, rate, length, scene, camera, object motion, grain, seed and faults.

    The camera pans ``pan_px`` per frame (until frame ``hold_after``, then holds still) and sways
    ``sway_px`` (a slow handheld drift); the object moves ``object_px`` per frame; ``grain`` adds
    fresh Gaussian noise (standard deviation in levels) to every frame; ``vfr`` gives the frames
    irregular timestamps (0.6–1.6 × the nominal interval) with the scene rendered at those times;
    ``cadence`` holds each drawing for that many frames, camera included, as limited animation does
    (1.25: 24 fps footage shown at 30 fps by repeating every fourth frame); ``ease_frames`` slows the
    pan down to rest over that many frames before ``hold_after`` (both counted from ``pan_from``, the
    frame the camera starts to pan); ``zoom`` magnifies the view by that share per frame, ``rotate``
    turns it by that many degrees per frame, ``tilt_px`` pans it down per frame. ``period`` and
    ``angle`` shape a repeating world (a scene of ``reeljudge.synth.textures.PATTERNS``: the repeat in
    px, a stripe's turn in degrees). ``wobble_px`` moves the world's surface in place, as wind moves
    leaves or people in a crowd shift (a smooth displacement of that amplitude, each patch on its own
    phase, about a 1.3 s cycle); ``drift_px`` slides the world's surface down by that many px per frame
    under the camera (waves rolling in; the ``waves`` scene keeps its sky still above them). The
    ``footage`` scene's world is real footage: the box (x, y, width, height) of the first frame of
    the clip at ``source``, scaled to the world's height and mirrored end to end.
    """

    width: int = 256
    height: int = 144
    fps: float = 24  # a rate such as 23.976… is written as the fraction it stands for (``encode.frame_rate``)
    frames: int = 72
    pan_px: float = 2.0
    object_px: float = 3.0
    seed: int = 7
    faults: tuple[Fault, ...] = ()
    texture: bool = True
    scene: str = "texture"  # a key of reeljudge.synth.scenes.WORLDS
    grain: float = 0.0
    hold_after: int | None = None
    sway_px: float = 0.0
    vfr: bool = False
    cadence: float = 1  # animation "on twos" (2), "on threes" (3): each drawing is held this many frames
    ease_frames: int = 0
    zoom: float = 0.0
    pan_from: int = 0
    tilt_px: float = 0.0
    rotate: float = 0.0
    period: float = 0.0
    angle: float = 0.0
    wobble_px: float = 0.0
    drift_px: float = 0.0
    source: str = ""
    source_box: tuple[int, int, int, int] = (0, 0, 0, 0)

    def with_faults(self, *faults: Fault) -> "ClipSpec":
        """The same spec with these faults."""
        return replace(self, faults=tuple(faults))

    def pts_ms(self) -> list[int] | None:
        """Presentation times in ms when ``vfr`` (None for a constant frame rate)."""
        if not self.vfr:
            return None
        rng = np.random.default_rng(self.seed + 3)
        steps = rng.uniform(0.6, 1.6, size=self.frames) * 1000.0 / self.fps
        return [int(v) for v in np.concatenate([[0.0], np.cumsum(steps)[:-1]])]


#: the last few worlds made (read-only), by everything that shapes one: the variants of one clip (its
#: faults, its length within the same span) pan over the same world, which costs more to make than to keep
_WORLDS: OrderedDict[tuple[object, ...], np.ndarray] = OrderedDict()
_WORLDS_KEPT, _WORLD_MAX_BYTES = 6, 8 << 20


def _shared_world(spec: ClipSpec, shot: int, tall: int, span: int, make: Callable[[], np.ndarray]) -> np.ndarray:
    """``make()``, or the same world made before for an equal spec (footage and worlds over 8 MB never kept)."""
    if spec.scene == "footage":  # read from a file, which may change
        return make()
    key = (spec.scene, spec.texture, spec.period, spec.angle, spec.seed, shot, tall, span)
    if key in _WORLDS:
        _WORLDS.move_to_end(key)
        return _WORLDS[key]
    world = make()
    if world.nbytes <= _WORLD_MAX_BYTES:
        world.flags.writeable = False
        _WORLDS[key] = world
        while len(_WORLDS) > _WORLDS_KEPT:
            _WORLDS.popitem(last=False)
    return world


class _Renderer:
    """Renders the frames of one ClipSpec, one at a time."""

    def __init__(self, spec: ClipSpec) -> None:
        from reeljudge.synth.scenes import WORLDS, mover, world_maker

        self.spec = spec
        margin = 64 + int(np.ceil(spec.sway_px + 2 * spec.wobble_px))
        if spec.rotate:
            margin = max(margin, int(np.hypot(spec.width, spec.height) / 2 - spec.height / 2) + 16)
        self.margin = margin
        pts = spec.pts_ms()
        self.times = [float(i) for i in range(spec.frames)] if pts is None else [p * spec.fps / 1000.0 for p in pts]
        self.drawn = [t if spec.cadence == 1 else spec.cadence * (t // spec.cadence) for t in self.times]  # what each frame shows
        travel = self.times[-1] + 1
        span = int(abs(spec.pan_px) * travel) + spec.width * 2 + 2 * margin
        tall = int((abs(spec.tilt_px) + abs(spec.drift_px)) * travel) + spec.height + 2 * margin
        make = world_maker(spec)
        # shot 1 (what a cut or dissolve switches to) is made when first seen: each world has its own seed
        self._make_world = lambda shot: _shared_world(spec, shot, tall, span,
                                                      lambda: make(spec.seed + 1000 * shot, tall, span, shot))
        self._worlds: dict[int, np.ndarray] = {}
        self.wobble = _wobble_phase(spec.seed + 4, tall, span) if spec.wobble_px else None
        self.mover = mover(spec.scene)
        # repeating worlds and footage: a cubic camera, so a pan by a fraction of a pixel keeps its detail
        self.sharp = spec.scene not in WORLDS
        self.rng = np.random.default_rng(spec.seed + 1)
        self.shake = {
            f.start + i: tuple(int(v) for v in self.rng.integers(-int(8 * f.strength), int(8 * f.strength) + 1, size=2))
            for f in spec.faults
            if f.kind == "shake"
            for i in range(f.length)
        }
        held = [f for f in spec.faults if f.kind == "flicker_random"]
        self.random_gain = {i: float(g) for f in held for i,
                            g in zip(range(f.start, f.end + 1), _held_uniform(self.rng, f.length))}

    def _world(self, shot: int) -> np.ndarray:
        """The world of shot 0 (the clip's own) or 1 (after a cut), made once when first needed."""
        if shot not in self._worlds:
            self._worlds[shot] = self._make_world(shot)
        return self._worlds[shot]

    def _faults(self, kind: FaultKind) -> list[Fault]:
        return [f for f in self.spec.faults if f.kind == kind]

    def _view(self, world: np.ndarray, index: int, t: float) -> np.ndarray:
        """The camera's crop of ``world`` for frame ``index`` at time ``t`` (frame units; sub-pixel)."""
        import cv2

        spec, m = self.spec, self.margin
        travel = self._travel(t)
        x, y = m + spec.pan_px * travel, m + spec.tilt_px * travel + (abs(spec.tilt_px) * (self.times[-1] + 1)
                                                                      if spec.tilt_px < 0 else 0.0)
        if spec.sway_px:
            x += spec.sway_px * np.sin(2 * np.pi * t / (2.0 * spec.fps))
            y += 0.6 * spec.sway_px * np.sin(2 * np.pi * t / (2.7 * spec.fps))
        x += sum(spec.width * 0.5 * f.strength for f in self._faults("jump") if index >= f.start)
        dx, dy = self.shake.get(index, (0, 0))
        centre = (x + dx + (spec.width - 1) / 2.0, y + dy + (spec.height - 1) / 2.0)
        if spec.wobble_px or spec.drift_px:
            world = self._moved_surface(world, t)
        if spec.zoom or spec.rotate or self.sharp:
            scale = 1.0 / (1.0 + spec.zoom * t)  # world pixels per output pixel
            turn = np.radians(spec.rotate * t)
            a, b = scale * np.cos(turn), scale * np.sin(turn)
            cx, cy = (spec.width - 1) / 2.0, (spec.height - 1) / 2.0
            warp = np.array([[a, -b, centre[0] - a * cx + b * cy], [b, a, centre[1] - b * cx - a * cy]])
            how = cv2.INTER_CUBIC if self.sharp else cv2.INTER_LINEAR
            return cv2.warpAffine(world, warp, (spec.width, spec.height), flags=how | cv2.WARP_INVERSE_MAP,
                                  borderMode=cv2.BORDER_REFLECT)
        return cv2.getRectSubPix(world, (spec.width, spec.height), centre)

    def _moved_surface(self, world: np.ndarray, t: float) -> np.ndarray:
        """The world with its surface moved in place at time ``t``: wobbled (wind), slid down (waves)."""
        import cv2

        spec = self.spec
        h, w = world.shape[:2]
        gx: np.ndarray
        gy: np.ndarray
        gx, gy = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
        if self.wobble is not None:
            cycle = 2 * np.pi * t / (1.3 * spec.fps)
            gx = gx + spec.wobble_px * np.sin(cycle + self.wobble)
            gy = gy + 0.5 * spec.wobble_px * np.cos(cycle + self.wobble)
        if spec.drift_px:  # sampled from further up as time goes on: the surface slides down
            gy = gy + spec.drift_px * (self.times[-1] + 1 - t)
        return cv2.remap(world, gx, gy.astype(np.float32), cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)

    def _travel(self, t: float) -> float:
        """How many frames' worth of pan the camera has made by time ``t`` (it eases to a stop, then holds)."""
        spec = self.spec
        t = max(0.0, t - spec.pan_from)
        if spec.hold_after is None:
            return t
        ease = float(min(spec.ease_frames, spec.hold_after))
        start = spec.hold_after - ease
        if t <= start:
            return t
        u = min(t, float(spec.hold_after)) - start  # time into the slow-down: speed falls linearly to 0
        return start + (u - u * u / (2 * ease) if ease else u)

    def scene(self, index: int, at: float | None = None) -> np.ndarray:
        """The clean frame ``index`` (after cuts, dissolves, jumps and shake), its object at time ``at``."""
        t = self.drawn[min(index, len(self.drawn) - 1)] if at is None else at
        switches = sum(1 for f in self._faults("cut") if index >= f.start)
        switches += sum(1 for f in self._faults("dissolve") if index > f.end)
        frame = self._view(self._world(switches % 2), index, t)
        for f in self._faults("dissolve"):
            if f.covers(index):
                alpha = (index - f.start + 1) / (f.length + 1)
                other = self._view(self._world((switches + 1) % 2), index, t)
                frame = np.clip(frame * (1 - alpha) + other * alpha, 0, 255).astype(np.uint8)
        self.mover(frame, self.spec.width, self.spec.height, self.spec.object_px, t)
        return frame

    def frames(self) -> Iterator[np.ndarray]:
        """Every frame of the clip in order (RGB uint8, height × width × 3)."""
        spec = self.spec
        previous: np.ndarray | None = None
        noise_rng = np.random.default_rng(spec.seed + 2)
        for index in range(spec.frames):
            frame = self.scene(index)
            if spec.grain:
                frame = _add_noise(frame, noise_rng, spec.grain)
            if previous is not None and any(f.covers(index) for f in self._faults("frozen")):
                frame = previous.copy()
            for f in self._faults("near_static"):
                if f.covers(index):
                    frame = _add_noise(self.scene(f.start - 1), noise_rng, 6.0 * f.strength)
            for f in self._faults("noise"):
                if f.covers(index):
                    frame = _add_noise(frame, noise_rng, 6.0 * f.strength)
            frame = self._light(frame, index)
            for f in self._faults("gray"):
                if f.covers(index):
                    gray = frame.astype(np.float32) @ np.array([0.299, 0.587, 0.114], np.float32)
                    frame = np.repeat(gray[..., None], 3, axis=2).astype(np.uint8)
            for f in self._faults("black"):
                if f.covers(index):
                    frame = np.zeros_like(frame)
            previous = frame
            yield frame

    def _light(self, frame: np.ndarray, index: int) -> np.ndarray:
        """Brightness effects on frame ``index``: flicker, exposure ramp, flash, fades."""
        gain, white = 1.0, 0.0
        t = self.times[index]
        for f in self.spec.faults:
            if f.kind == "flicker" and f.covers(index):
                wave = np.cos(2 * np.pi * f.hz * (t - self.times[f.start]) / self.spec.fps) if f.hz else (-1) ** (index - f.start)
                gain *= 1.0 + 0.25 * f.strength * wave
            elif f.kind == "flicker_random" and f.covers(index):
                gain *= 1.0 + 0.25 * f.strength * self.random_gain[index]
            elif f.kind == "exposure" and index >= f.start:
                gain *= 1.0 + 0.4 * f.strength * min(1.0, (index - f.start + 1) / f.length)
            elif f.kind == "flash" and f.covers(index):
                white = max(white, 0.75 * f.strength / (1 + 1.2 * (index - f.start)))
            elif f.kind == "fade_out" and f.start <= index < self._next_fade_in(f):
                gain *= max(0.0, 1.0 - (index - f.start + 1) / f.length)
            elif f.kind == "fade_in" and self._last_fade_out(f) < index <= f.end:
                gain *= max(0.0, (index - f.start + 1) / (f.length + 1))
        if gain == 1.0 and white == 0.0:
            return frame
        lit = frame.astype(np.float32) * gain
        return np.clip(lit + (255.0 - lit) * white, 0, 255).astype(np.uint8)


    def _next_fade_in(self, fade_out: Fault) -> int:
        """Where the black after ``fade_out`` ends: the next fade-in's start, else past the clip."""
        return min((f.start for f in self._faults("fade_in") if f.start > fade_out.end), default=self.spec.frames)

    def _last_fade_out(self, fade_in: Fault) -> int:
        """Where the black before ``fade_in`` starts: the last fade-out's end before it, else before the clip."""
        return max((f.end for f in self._faults("fade_out") if f.end < fade_in.start), default=-1)


def _wobble_phase(seed: int, height: int, width: int) -> np.ndarray:
    """A smooth random phase field (radians) over the world: neighbouring patches move nearly together."""
    import cv2

    rng = np.random.default_rng(seed)
    coarse = rng.uniform(0, 2 * np.pi, size=(max(2, height // 24), max(2, width // 24))).astype(np.float32)
    return cv2.resize(coarse, (width, height), interpolation=cv2.INTER_CUBIC)


def _add_noise(frame: np.ndarray, rng: np.random.Generator, sigma: float) -> np.ndarray:
    """``frame`` plus fresh Gaussian noise of standard deviation ``sigma`` levels."""
    noisy = frame.astype(np.float32) + rng.normal(0, sigma, frame.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


def _held_uniform(rng: np.random.Generator, length: int) -> list[float]:
    """``length`` values in [−1, 1], each drawn anew after 1–2 frames, swinging sign most of the time."""
    values: list[float] = []
    sign = 1.0
    while len(values) < length:
        sign = -sign if rng.random() < 0.8 else sign
        values.extend([sign * float(rng.uniform(0.4, 1.0))] * int(rng.integers(1, 3)))
    return values[:length]


def render(spec: ClipSpec) -> Iterator[np.ndarray]:
    """The frames of ``spec`` in order (RGB uint8)."""
    return _Renderer(spec).frames()


def make_clip(path: str | Path, spec: ClipSpec, **write_options: object) -> Path:
    """Render ``spec`` and write it to ``path`` (with its own timestamps when ``spec.vfr``)."""
    return write_clip(path, render(spec), fps=spec.fps, pts_ms=spec.pts_ms(), **write_options)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Fixture:
    """A named fixture clip: its spec and the fault frames a probe must report."""

    name: str
    spec: ClipSpec
    expect: dict[str, tuple[int, int]] = field(default_factory=dict)


BASE = ClipSpec()

FIXTURES: dict[str, Fixture] = {
    fx.name: fx
    for fx in (
        Fixture("clean", BASE),
        Fixture("cut", BASE.with_faults(Fault("cut", 36)), {"scene_cuts": (36, 36)}),
        Fixture("jump", BASE.with_faults(Fault("jump", 40)), {"scene_cuts": (40, 40)}),
        Fixture("frozen", BASE.with_faults(Fault("frozen", 30, 12)), {"frozen_frames": (29, 41)}),
        Fixture("near_static", BASE.with_faults(Fault("near_static", 30, 12)), {"frozen_frames": (29, 41)}),
        Fixture("black", BASE.with_faults(Fault("black", 24, 8)), {"black_frames": (24, 31)}),
        Fixture("flicker", BASE.with_faults(Fault("flicker", 20, 16)), {"flicker": (20, 35)}),
        Fixture("shake", BASE.with_faults(Fault("shake", 24, 24)), {"camera_shake": (24, 47)}),
        Fixture("static_noise", replace(BASE, pan_px=0.0, object_px=0.0).with_faults(Fault("noise", 0, 72)),
                {"dynamic_degree": (0, 71)}),
        Fixture("static", replace(BASE, pan_px=0.0, object_px=0.0), {"dynamic_degree": (0, 71)}),
        Fixture("gray", BASE.with_faults(Fault("gray", 0, 72)), {"black_and_white": (0, 71)}),
        Fixture("flicker_8hz", BASE.with_faults(Fault("flicker", 24, 24, strength=0.5, hz=8.0)), {"flicker": (24, 47)}),
        Fixture("fade_out", BASE.with_faults(Fault("fade_out", 48, 18))),
    )
}

SUITE_FIXTURES = ("clean", "cut", "frozen", "black", "flicker", "flicker_8hz", "fade_out", "static_noise")


def write_fixtures(folder: str | Path, names: Sequence[str], *, prefix: str = "") -> dict[str, Path]:
    """The named fixture clips written into ``folder`` as ``<prefix><name>.mp4``: name → file."""
    return {name: make_clip(Path(folder) / f"{prefix}{name}.mp4", FIXTURES[name].spec) for name in names}


def main(argv: Sequence[str] | None = None) -> int:
    """Write the suite's fixture clips (``gen_<name>.mp4``) into a folder."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("names", nargs="*", default=list(SUITE_FIXTURES))
    args = parser.parse_args(argv)
    for path in write_fixtures(args.out_dir, args.names, prefix="gen_").values():
        print(f"{path} {path.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
