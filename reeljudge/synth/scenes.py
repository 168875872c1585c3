"""Scene kinds for generated clips: a wide "world" image the camera pans over, and what moves in it.

* ``texture``: a smooth random colour texture with fine detail (the default; a red disc moves);
* ``flat``: flat-colour animation: a sky, flat hills, a sun; a flat ball and a flat box move;
* ``night``: a dark street: a dim sky, black buildings with a few lit windows, street lamps; a car
  with headlights drives by;
* the repeating worlds of ``textures`` (bricks, tiles, stripes, fences, grass, a crowd, …) and
  ``footage`` (a box of a real clip's first frame): the red disc moves (over the sea, under a sky).

Every function is deterministic for a seed.
"""

from __future__ import annotations

from typing import Callable, Protocol

import numpy as np


def texture_world(seed: int, height: int, width: int, texture: bool = True) -> np.ndarray:
    """A smooth random RGB texture of the given size (uint8)."""
    import cv2

    rng = np.random.default_rng(seed)
    cell = int(24 * max(1.0, height / 400))  # patches and detail grow in large frames (1080p is not 144p magnified)
    coarse = rng.uniform(30, 225, size=(max(2, height // cell), max(2, width // cell), 3)).astype(np.float32)
    world = np.asarray(cv2.resize(coarse, (width, height), interpolation=cv2.INTER_CUBIC), np.float32)
    if texture:
        fine = rng.normal(0, 1, size=(height, width)).astype(np.float32)
        fine = np.asarray(cv2.GaussianBlur(fine, (0, 0), 1.5 * cell / 24), np.float32)
        fine *= 30.0 / (fine.std() + 1e-6)
        world += fine[..., None]
    return np.clip(world, 0, 255).astype(np.uint8)


def flat_world(seed: int, height: int, width: int, texture: bool = True) -> np.ndarray:
    """A flat-colour cartoon landscape: sky, two rows of flat hills, a sun (no texture, no noise)."""
    import cv2

    rng = np.random.default_rng(seed)
    world = np.empty((height, width, 3), np.uint8)
    world[:] = (120, 180, 235)
    for row, colour in ((0.55, (70, 150, 80)), (0.75, (40, 110, 50))):
        xs = np.arange(0, width + 120, 120)
        ys = height * row + rng.uniform(-0.12, 0.12, size=xs.size) * height
        points = np.array([[0, height]] + [[int(x), int(y)] for x, y in zip(xs, ys)] + [[width, height]], np.int32)
        cv2.fillPoly(world, [points], colour, lineType=cv2.LINE_AA)
    for x in range(width // 5, width, width // 3):
        cv2.circle(world, (x, int(height * 0.25)), max(6, height // 9), (250, 220, 60), -1, lineType=cv2.LINE_AA)
    return world


def night_world(seed: int, height: int, width: int, texture: bool = True) -> np.ndarray:
    """A dark street at night: dim graded sky, black buildings, a few lit windows, glowing lamps."""
    import cv2

    rng = np.random.default_rng(seed)
    sky = np.linspace(26, 8, height, dtype=np.float32)[:, None, None] * np.array([0.7, 0.8, 1.4], np.float32)
    world = np.broadcast_to(sky, (height, width, 3)).astype(np.float32).copy()
    x = 0
    while x < width:
        w = int(rng.integers(height // 3, int(height // 1.5)))
        top = int(height * rng.uniform(0.25, 0.6))
        world[top:, x : x + w] = (6, 6, 8)
        for _ in range(int(rng.integers(1, 4))):  # a few lit windows per building
            wx, wy = x + int(rng.integers(4, max(5, w - 12))), top + int(rng.integers(6, max(7, height - top - 20)))
            world[wy : wy + max(3, height // 24), wx : wx + max(3, height // 30)] = (210, 170, 90)
        x += w + int(rng.integers(2, 10))
    glow = np.zeros((height, width), np.float32)
    for lx in range(width // 6, width, width // 3):
        cv2.circle(glow, (lx, int(height * 0.45)), max(2, height // 40), 1.0, -1)
    glow = np.asarray(cv2.GaussianBlur(glow, (0, 0), max(2.0, height / 30)), np.float32)
    world += (glow / (glow.max() + 1e-6))[..., None] * np.array([160, 130, 70], np.float32)
    if texture:
        world += cv2.GaussianBlur(rng.normal(0, 2.0, (height, width)).astype(np.float32), (0, 0), 1.0)[..., None]
    return np.clip(world, 0, 255).astype(np.uint8)


def draw_disc(frame: np.ndarray, width: int, height: int, object_px: float, at: float) -> None:
    """The texture scene's moving object: a red disc drifting right on a gentle wave (still when ``object_px`` is 0)."""
    import cv2

    cx = int(round(width * 0.25 + object_px * at)) % width
    cy = int(round(height * 0.5 + height * 0.2 * np.sin(at / 9.0) * (object_px != 0)))
    cv2.circle(frame, (cx, cy), max(4, height // 10), (240, 60, 40), -1, lineType=cv2.LINE_AA)


def draw_cartoon(frame: np.ndarray, width: int, height: int, object_px: float, at: float) -> None:
    """The flat scene's movers: a bouncing ball and a sliding box."""
    import cv2

    cx = int(round(width * 0.1 + object_px * at)) % width
    cy = int(round(height * 0.7 - abs(np.sin(at / 6.0)) * height * 0.4))
    cv2.circle(frame, (cx, cy), max(4, height // 12), (220, 40, 40), -1, lineType=cv2.LINE_AA)
    bx = int(round(width * 0.8 - 0.5 * object_px * at)) % width
    cv2.rectangle(frame, (bx, int(height * 0.62)), (bx + height // 5, int(height * 0.62) + height // 7), (120, 60, 170), -1)


def draw_car(frame: np.ndarray, width: int, height: int, object_px: float, at: float) -> None:
    """The night scene's mover: a dark car with two headlights driving left to right, off the picture
    for as long again before it comes back (so it enters and leaves a still street)."""
    import cv2

    x = int(round(-width * 0.1 + object_px * at)) % (2 * width) - width // 10
    y = int(height * 0.82)
    car_w, car_h = max(8, height // 4), max(4, height // 12)
    cv2.rectangle(frame, (x, y), (x + car_w, y + car_h), (18, 18, 22), -1)
    for hx in (x + car_w - 2, x + car_w - car_h):
        cv2.circle(frame, (hx, y + car_h // 2), max(2, car_h // 3), (255, 250, 220), -1, lineType=cv2.LINE_AA)


def draw_sky_and_disc(frame: np.ndarray, width: int, height: int, object_px: float, at: float) -> None:
    """The sea scene's still sky over the top quarter (flat, graded), then the red disc."""
    rows = max(1, height // 4)
    frame[:rows] = (np.linspace(170, 215, rows)[:, None, None] * np.array([0.85, 0.95, 1.0])).astype(np.uint8)
    draw_disc(frame, width, height, object_px, at)


def footage_world(source: str, box: tuple[int, int, int, int], height: int, width: int, closer: float = 1.0) -> np.ndarray:
    """A world made of real footage: the ``box`` (x, y, w, h) of ``source``'s first frame (its middle
    ``1 / closer`` when seen closer), scaled to ``height`` and mirrored end to end to ``width`` (uint8 RGB)."""
    import av
    import cv2

    with av.open(source) as container:
        first = next(container.decode(video=0)).to_ndarray(format="rgb24")
    x, y, w, h = box if box[2] and box[3] else (0, 0, first.shape[1], first.shape[0])
    if closer != 1.0:
        x, y, w, h = x + int(w * (1 - 1 / closer) / 2), y + int(h * (1 - 1 / closer) / 2), int(w / closer), int(h / closer)
    crop = first[y : y + h, x : x + w]
    scaled = cv2.resize(crop, (max(2, int(round(w * height / h))), height), interpolation=cv2.INTER_CUBIC)
    tile = np.concatenate([scaled, scaled[:, ::-1]], axis=1)
    return np.ascontiguousarray(np.tile(tile, (1, width // tile.shape[1] + 1, 1))[:, :width])


WORLDS: dict[str, Callable[..., np.ndarray]] = {"texture": texture_world, "flat": flat_world, "night": night_world}
MOVERS: dict[str, Callable[..., None]] = {"texture": draw_disc, "flat": draw_cartoon, "night": draw_car,
                                          "waves": draw_sky_and_disc}


class SceneSpec(Protocol):
    """What a scene reads of a clip's spec (``reeljudge.synth.clips.ClipSpec``, which imports this module)."""

    @property
    def scene(self) -> str: ...
    @property
    def texture(self) -> bool: ...
    @property
    def period(self) -> float: ...
    @property
    def angle(self) -> float: ...
    @property
    def source(self) -> str: ...
    @property
    def source_box(self) -> tuple[int, int, int, int]: ...


def world_maker(spec: SceneSpec) -> Callable[[int, int, int, int], np.ndarray]:
    """``make(seed, height, width, shot)`` for the spec's scene: a built-in world, a repeating pattern
    (``textures.PATTERNS``, shaped by the spec's period and angle) or real footage. Shot 1 is what a
    cut switches to: another seed, and for a pattern or footage the same kind of surface seen
    1.3× closer (so a cut is a change of view, not an invisible one from a repeat to the same repeat)."""
    from reeljudge.synth.textures import DEFAULT_PERIOD, PATTERNS

    if spec.scene == "footage":
        return lambda seed, height, width, shot: footage_world(spec.source, spec.source_box, height, width, 1.3 ** shot)
    if spec.scene in PATTERNS:
        pattern = PATTERNS[spec.scene]
        period = spec.period or DEFAULT_PERIOD[spec.scene]
        return lambda seed, height, width, shot: pattern(seed, height, width, period=period * 1.3 ** shot, angle=spec.angle)
    world = WORLDS[spec.scene]
    return lambda seed, height, width, shot: world(seed, height, width, spec.texture)


def mover(scene: str) -> Callable[..., None]:
    """What moves in a scene: its own mover, else the red disc."""
    return MOVERS.get(scene, draw_disc)
