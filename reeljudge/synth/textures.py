"""Worlds that repeat: the periodic and natural textures generated and stock footage is full of.

Each maker returns a wide RGB image (uint8) the camera pans over, deterministic for its seed;
``period`` is the repeat in pixels (a brick's width, a tile's side, a stripe pair) and ``angle``
turns a stripe pattern (degrees, 0 = vertical stripes). Periodic surfaces carry the small
irregularities real ones have (each brick or tile its own shade, mortar and grout a little uneven,
a fine grain), except ``stripes`` and ``checkerboard``, which are exact: there the picture itself
cannot tell a pan by one period from no pan, as on a real test chart. Every world is softened as a
lens softens it (no edge sharper than the optics pass), so a pan by a fraction of a pixel is one.

* ``bricks``: running bond, bricks ``period`` wide and half as high;
* ``tiles``: square tiles of side ``period`` with grout lines;
* ``stripes``: exact stripes of ``period`` turned by ``angle``;
* ``checkerboard``: exact terracotta and cream squares of side ``period / 2``;
* ``fence``: vertical pickets every ``period`` with shadowed gaps and grass at the foot;
* ``blinds``: horizontal slats every ``period``, shaded across each slat;
* ``grass``: thousands of thin blades (natural repetition, no single period);
* ``foliage``: overlapping leaves in many greens;
* ``crowd``: rows of small people, each their own colours;
* ``waves``: a sea of ripples (they roll in: ``ClipSpec.drift_px``; the scene keeps a still sky above).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np


def _grain(rng: np.random.Generator, height: int, width: int, sigma: float, blur: float = 0.8) -> np.ndarray:
    """A fine, slightly blurred luminance grain of standard deviation ≈ ``sigma`` levels (float32)."""
    import cv2

    fine = cv2.GaussianBlur(rng.normal(0, 1, (height, width)).astype(np.float32), (0, 0), blur)
    return fine * (sigma / (float(fine.std()) + 1e-6))


def _finish(world: np.ndarray, rng: np.random.Generator, sigma: float = 5.0) -> np.ndarray:
    """``world`` (float32 RGB) with a fine grain, seen through a lens (``_lens``), clipped to uint8."""
    h, w = world.shape[:2]
    return _lens(np.clip(world + _grain(rng, h, w, sigma)[..., None], 0, 255))


def _lens(world: np.ndarray) -> np.ndarray:
    """``world`` as a camera records it: softened by its optics (a Gaussian of 0.7 px), so an edge has
    a defined place between pixels and a pan by a fraction of a pixel moves it by that fraction (uint8)."""
    import cv2

    return np.clip(cv2.GaussianBlur(world.astype(np.float32), (0, 0), 0.7), 0, 255).astype(np.uint8)


def bricks(seed: int, height: int, width: int, period: float, angle: float = 0.0) -> np.ndarray:
    """A brick wall in running bond: bricks ``period`` wide, ``period / 2`` high, each its own shade."""
    rng = np.random.default_rng(seed)
    bw, bh = max(6, int(round(period))), max(4, int(round(period / 2)))
    rows, cols = height // bh + 2, width // bw + 3
    shades = rng.uniform(0.78, 1.12, size=(rows, cols)).astype(np.float32)
    y, x = np.mgrid[0:height, 0:width]
    row = y // bh
    shifted = x + (row % 2) * (bw // 2)
    col = shifted // bw
    base = np.array([168, 74, 52], np.float32) * shades[row % rows, col % cols][..., None]
    mortar = max(2, bw // 16)
    joint = ((y % bh) < mortar) | ((shifted % bw) < mortar)
    world = np.where(joint[..., None], np.array([196, 190, 178], np.float32), base)
    return _finish(world, rng, 6.0)


def tiles(seed: int, height: int, width: int, period: float, angle: float = 0.0) -> np.ndarray:
    """Square tiles of side ``period`` with grey grout, each tile a little lighter or darker."""
    rng = np.random.default_rng(seed)
    side = max(6, int(round(period)))
    rows, cols = height // side + 2, width // side + 2
    shades = rng.uniform(0.9, 1.06, size=(rows, cols)).astype(np.float32)
    y, x = np.mgrid[0:height, 0:width]
    base = np.array([214, 222, 226], np.float32) * shades[(y // side) % rows, (x // side) % cols][..., None]
    grout = max(2, side // 12)
    joint = ((y % side) < grout) | ((x % side) < grout)
    world = np.where(joint[..., None], np.array([96, 98, 104], np.float32), base)
    return _finish(world, rng, 3.0)


def stripes(seed: int, height: int, width: int, period: float, angle: float = 0.0) -> np.ndarray:
    """Exact stripes, dark and light halves of ``period``, turned ``angle`` degrees from vertical (anti-aliased)."""
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    theta = math.radians(angle)
    u = x * math.cos(theta) + y * math.sin(theta)
    phase = np.sin(2 * np.pi * u / period)
    level = np.clip(phase * 3.0, -1.0, 1.0)  # a soft edge about a pixel wide
    colours = np.array([[38, 44, 70], [236, 226, 200]], np.float32)
    world = colours[0] + (level[..., None] + 1) / 2 * (colours[1] - colours[0])
    return _lens(world)


def checkerboard(seed: int, height: int, width: int, period: float, angle: float = 0.0) -> np.ndarray:
    """An exact checkerboard of terracotta and cream squares ``period / 2`` wide (a tiled floor)."""
    side = max(2, int(round(period / 2)))
    y, x = np.mgrid[0:height, 0:width]
    on = ((x // side) + (y // side)) % 2 == 0
    return _lens(np.where(on[..., None], np.array([236, 226, 204], np.float32), np.array([150, 70, 46], np.float32)))


def fence(seed: int, height: int, width: int, period: float, angle: float = 0.0) -> np.ndarray:
    """A picket fence: a light picket every ``period`` (60 % of it wide), dark gaps, grass at its foot."""
    rng = np.random.default_rng(seed)
    step = max(5, int(round(period)))
    y, x = np.mgrid[0:height, 0:width]
    picket = (x % step) < int(round(0.6 * step))
    lean = rng.uniform(0.93, 1.04, size=width // step + 2).astype(np.float32)
    wood = np.array([226, 214, 188], np.float32) * lean[x // step][..., None]
    gap = np.array([52, 66, 48], np.float32)
    world = np.where(picket[..., None], wood, gap)
    foot = int(height * 0.8)
    world[foot:] = grass(seed + 5, height - foot, width, 0.0).astype(np.float32)
    return _finish(world, rng, 4.0)


def blinds(seed: int, height: int, width: int, period: float, angle: float = 0.0) -> np.ndarray:
    """Horizontal window blinds: a slat every ``period``, lit from above (bright top, shaded bottom)."""
    rng = np.random.default_rng(seed)
    step = max(4, int(round(period)))
    y = np.arange(height, dtype=np.float32)[:, None]
    within = (y % step) / step
    shade = 0.62 + 0.38 * np.cos(np.pi * within)
    gap = (y % step) >= step - max(1, step // 8)
    level = np.where(gap, 0.25, shade)
    world = np.broadcast_to(level[..., None] * np.array([236, 232, 220], np.float32), (height, width, 3)).copy()
    return _finish(world, rng, 2.5)


def grass(seed: int, height: int, width: int, period: float, angle: float = 0.0) -> np.ndarray:
    """A lawn: thousands of thin, slightly bent blades in greens over dark soil."""
    import cv2

    rng = np.random.default_rng(seed)
    world = np.zeros((height, width, 3), np.uint8)
    world[:] = (44, 70, 30)
    blades = int(width * height / 18)
    xs = rng.uniform(0, width, blades)
    ys = rng.uniform(0, height + 20, blades)
    lengths = rng.uniform(8, 22, blades)
    bends = rng.normal(0, 0.35, blades)
    greens = rng.uniform(0.55, 1.15, blades)
    for x, y, length, bend, g in zip(xs, ys, lengths, bends, greens):
        top = (int(x + bend * length), int(y - length))
        colour = (int(min(255, 70 * g)), int(min(255, 150 * g)), int(min(255, 50 * g)))
        cv2.line(world, (int(x), int(y)), top, colour, 1, lineType=cv2.LINE_AA)
    return _lens(world)


def foliage(seed: int, height: int, width: int, period: float, angle: float = 0.0) -> np.ndarray:
    """Dense leaves: overlapping ellipses in many greens, lit unevenly."""
    import cv2

    rng = np.random.default_rng(seed)
    world = np.zeros((height, width, 3), np.uint8)
    world[:] = (24, 48, 22)
    leaves = int(width * height / 40)
    for _ in range(leaves):
        centre = (int(rng.uniform(0, width)), int(rng.uniform(0, height)))
        axes = (int(rng.uniform(4, 9)), int(rng.uniform(2, 4)))
        g = rng.uniform(0.5, 1.3)
        colour = (int(min(255, 60 * g)), int(min(255, 140 * g)), int(min(255, 45 * g)))
        cv2.ellipse(world, centre, axes, float(rng.uniform(0, 180)), 0, 360, colour, -1, lineType=cv2.LINE_AA)
    return _lens(world)


def crowd(seed: int, height: int, width: int, period: float, angle: float = 0.0) -> np.ndarray:
    """A stand full of people: rows of heads and shoulders, each person their own clothes and skin."""
    import cv2

    rng = np.random.default_rng(seed)
    world = np.zeros((height, width, 3), np.uint8)
    world[:] = (70, 66, 62)
    size = max(8, height // 14)
    for row, top in enumerate(range(-size, height + size, int(size * 1.4))):
        offset = (row % 2) * size // 2
        for left in range(-size + offset, width + size, int(size * 1.1)):
            x = left + int(rng.integers(-2, 3))
            shirt = tuple(int(v) for v in rng.integers(30, 230, size=3))
            skin = tuple(int(v) for v in np.array([224, 180, 140]) * rng.uniform(0.45, 1.05))
            cv2.rectangle(world, (x - size // 2, top + size // 2), (x + size // 2, top + 2 * size), shirt, -1)
            cv2.circle(world, (x, top + size // 4), size // 3, skin, -1, lineType=cv2.LINE_AA)
    return _lens(world)


def waves(seed: int, height: int, width: int, period: float, angle: float = 0.0) -> np.ndarray:
    """A sea of ripples, crests every ``period`` or so, broken up (the scene paints a sky over the top)."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    sea = np.zeros((height, width), np.float32)
    for k in range(5):
        p = period * rng.uniform(0.6, 1.4)
        theta = rng.uniform(-0.5, 0.5)
        sea += np.sin(2 * np.pi * (x * math.sin(theta) + y * math.cos(theta) * 2.5) / p + rng.uniform(0, 6.3)) / (k + 1)
    sea = sea / (np.abs(sea).max() + 1e-6)
    world = np.array([30, 80, 120], np.float32) + sea[..., None] * np.array([40, 50, 55], np.float32)
    return _finish(world, rng, 3.0)


#: a pattern's repeat (px) when a spec gives none (0: the surface has no single period)
DEFAULT_PERIOD = {"bricks": 40.0, "tiles": 32.0, "stripes": 24.0, "checkerboard": 32.0, "fence": 28.0, "blinds": 20.0,
                  "grass": 0.0, "foliage": 0.0, "crowd": 0.0, "waves": 36.0}
#: pattern name → maker(seed, height, width, period, angle)
PATTERNS: dict[str, Callable[..., np.ndarray]] = {
    "bricks": bricks, "tiles": tiles, "stripes": stripes, "checkerboard": checkerboard, "fence": fence,
    "blinds": blinds, "grass": grass, "foliage": foliage, "crowd": crowd, "waves": waves,
}
