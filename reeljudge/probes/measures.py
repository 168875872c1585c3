"""Small measurements the streaming analyser makes on each frame pair (and the probes on any two frames)."""

from __future__ import annotations

import math
from functools import cache
from typing import Any

from reeljudge.probes.thresholds import StillOptions


def changed_pixels(first: Any, second: Any, options: StillOptions) -> tuple[Any, float]:
    """Which pixels of two 64-px luma thumbnails changed once a brightness gain is taken out (by more
    than ``still_levels`` + ``still_noise_ratio`` × the median change, the pair's noise), and the
    mean change (levels)."""
    import numpy as np

    a = first.astype(np.float32)
    b = second.astype(np.float32)
    mean_a, mean_b = float(a.mean()), float(b.mean())
    gain = min(2.0, max(0.5, mean_a / mean_b)) if mean_a >= 8.0 and mean_b >= 8.0 else 1.0
    d = np.abs(a - b * gain)
    noise = float(np.partition(d.ravel(), d.size // 2)[d.size // 2])
    return d > options.still_levels + options.still_noise_ratio * noise, float(d.mean())


def thumb_difference(first: Any, second: Any, options: StillOptions) -> tuple[float, float]:
    """The share of thumbnail pixels that changed (see ``changed_pixels``) and the mean change."""
    import numpy as np

    mask, change = changed_pixels(first, second, options)
    return float(np.count_nonzero(mask)) / mask.size, change


def edge_share(first: Any, second: Any, options: StillOptions) -> float:
    """The share of the changed pixels of two thumbnails that lie in the outer eighth of the frame on
    any side: near 1 when an object enters or leaves the picture, low for a pan or a mid-frame move."""
    import numpy as np

    mask, _ = changed_pixels(first, second, options)
    total = int(np.count_nonzero(mask))
    if not total:
        return 0.0
    h, w = mask.shape
    bh, bw = max(1, h // 8), max(1, w // 8)
    inner = int(np.count_nonzero(mask[bh : h - bh, bw : w - bw]))
    return (total - inner) / total


def thumb_distance(first: Any, second: Any) -> float:
    """Mean abs difference of two 64-px luma thumbnails once each is standardised (brightness-invariant)."""
    import numpy as np

    a, b = first.astype(np.float32), second.astype(np.float32)
    z1 = (a - a.mean()) / (a.std() + 4.0)
    z2 = (b - b.mean()) / (b.std() + 4.0)
    return float(np.abs(z1 - z2).mean())


TEXTURE_LEVELS = 12  # luma change over 2 px (x plus y) that makes a point textured: flow there is reliable


def textured_points(y: Any) -> Any:
    """Per flow sample point (every 2nd pixel): whether the image has texture there (gradient ≥ TEXTURE_LEVELS)."""
    import cv2

    g = y[::2, ::2]
    gx = cv2.absdiff(g[:-1, 1:], g[:-1, :-1])
    gy = cv2.absdiff(g[1:, :-1], g[:-1, :-1])
    return cv2.add(gx, gy) >= TEXTURE_LEVELS


def quartiles(values: Any) -> tuple[float, float, float]:
    """The 25th, 50th and 75th percentiles of an array (linear interpolation, as numpy's default).

    The order statistics are exact values of the array, picked in its own dtype (float32 flow needs
    no float64 copy) and interpolated in Python floats, so the result equals numpy's float64
    percentiles.
    """
    import numpy as np

    flat = np.ascontiguousarray(values).ravel()
    positions = [(flat.size - 1) * q for q in (0.25, 0.5, 0.75)]
    ranks = sorted({r for pos in positions for r in (math.floor(pos), math.ceil(pos))})
    ordered = order_statistics(flat, ranks)
    out = []
    for pos in positions:
        low, high = float(ordered[math.floor(pos)]), float(ordered[math.ceil(pos)])
        out.append(low + (high - low) * (pos - math.floor(pos)))
    return out[0], out[1], out[2]


_SELECT_BINS = 512  # value bins of ``order_statistics``: few values share the bin of a rank


def order_statistics(flat: Any, ranks: list[int]) -> dict[int, Any]:
    """The value at each rank (0-based) of a flat array in sorted order, exactly as a sort gives it.

    Values are counted into equal-width bins between the minimum and the maximum (a monotone map,
    so a bin's values all sort after the previous bin's) and only the bins holding a wanted rank
    are sorted: ≈ 3× cheaper than ``np.partition`` for the quartiles of a 30 000-point flow field.
    Non-finite values fall back to ``np.partition``.
    """
    import numpy as np

    if flat.dtype.kind != "f":
        flat = flat.astype(np.float64)
    low, high = float(flat.min()), float(flat.max())
    if not (math.isfinite(low) and math.isfinite(high)):
        ordered = np.partition(flat, ranks)
        return {r: ordered[r] for r in ranks}
    if high <= low:
        return {r: flat[r] for r in ranks}
    scale = np.asarray((_SELECT_BINS - 1) / (high - low), dtype=flat.dtype)
    bins = ((flat - np.asarray(low, dtype=flat.dtype)) * scale).astype(np.intp)
    counts = np.bincount(bins, minlength=_SELECT_BINS)
    ends = np.cumsum(counts)
    sorted_bins: dict[int, Any] = {}
    out = {}
    for rank in ranks:
        b = int(np.searchsorted(ends, rank, side="right"))
        if b not in sorted_bins:
            sorted_bins[b] = np.sort(flat[bins == b])
        out[rank] = sorted_bins[b][rank - int(ends[b] - counts[b])]
    return out


def flow_sample(flow: Any, textured: Any) -> tuple[Any, Any]:
    """The x and y flow at the textured sample points (every 2nd pixel), or at every sample point
    when fewer than 64 are textured; as two flat arrays in row order."""
    import numpy as np

    points = np.flatnonzero(textured)
    if points.size < 64:
        grid = flow[::2, ::2]
        return grid[..., 0].ravel(), grid[..., 1].ravel()
    grid = flow[:-2:2, :-2:2]
    return np.take(grid[..., 0], points), np.take(grid[..., 1], points)


@cache
def _differences() -> Any:
    """−255.0 … 255.0: every difference of two uint8 values, made once (numpy loads late)."""
    import numpy as np

    return np.arange(-255.0, 256.0)


def difference_stats(first: Any, second: Any) -> tuple[float, float, float]:
    """For ``first − second`` over two uint8 images: the median (numpy's median: the mean of the middle
    two for an even count), the mean absolute difference from it, and the median absolute difference
    from it (how far most pixels differ once one brightness offset is taken out: a small object the
    comparison gets wrong does not move it); all from one histogram of the 511 possible differences."""
    import cv2
    import numpy as np

    histogram = np.bincount((cv2.subtract(first, second, dtype=cv2.CV_16S) + 255).ravel(), minlength=511)
    n = int(first.size)  # every difference is counted
    median = _histogram_median(histogram, n) - 255
    distance = np.abs(_differences() - median)  # whole or half levels
    folded = np.bincount((2 * distance).astype(np.intp), weights=histogram, minlength=1022)
    return median, float(np.dot(histogram, distance)) / max(1, n), _histogram_median(folded, n) / 2


def _histogram_median(histogram: Any, n: int) -> float:
    """The median of ``n`` values counted in ``histogram`` (bin index = value), as numpy's median."""
    import numpy as np

    counts = np.cumsum(histogram)
    low = int(np.searchsorted(counts, (n - 1) // 2, side="right"))
    high = int(np.searchsorted(counts, n // 2, side="right"))
    return (low + high) / 2


def top5(flow: Any) -> float:
    """The mean of the largest 5% of flow magnitudes (VBench's per-pair motion statistic)."""
    import numpy as np

    fx, fy = flow[..., 0], flow[..., 1]
    mag = np.sqrt(fx * fx + fy * fy).ravel()
    k = max(1, int(mag.size * 0.05))
    return float(np.partition(mag, mag.size - k)[-k:].mean())
