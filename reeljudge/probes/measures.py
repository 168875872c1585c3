"""Small measurements the streaming analyser makes on each frame pair (and the probes on any two frames)."""

from __future__ import annotations

import math
from typing import Any

from reeljudge.probes.options import ProbeOptions


def changed_pixels(first: Any, second: Any, options: ProbeOptions) -> tuple[Any, float]:
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


def thumb_difference(first: Any, second: Any, options: ProbeOptions) -> tuple[float, float]:
    """The share of thumbnail pixels that changed (see ``changed_pixels``) and the mean change."""
    import numpy as np

    mask, change = changed_pixels(first, second, options)
    return float(np.count_nonzero(mask)) / mask.size, change


def edge_share(first: Any, second: Any, options: ProbeOptions) -> float:
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


TEXTURE_LEVELS = 12  # luma change over 2 px (x plus y) that makes a point textured: flow there is reliable


def textured_points(y: Any) -> Any:
    """Per flow sample point (every 2nd pixel): whether the image has texture there (gradient ≥ TEXTURE_LEVELS)."""
    import cv2

    g = y[::2, ::2]
    gx = cv2.absdiff(g[:-1, 1:], g[:-1, :-1])
    gy = cv2.absdiff(g[1:, :-1], g[:-1, :-1])
    return cv2.add(gx, gy) >= TEXTURE_LEVELS


def quartiles(values: Any) -> tuple[float, float, float]:
    """The 25th, 50th and 75th percentiles of an array (linear interpolation, as numpy's default)."""
    import numpy as np

    flat = np.ascontiguousarray(values, dtype=np.float64).ravel()
    positions = [(flat.size - 1) * q for q in (0.25, 0.5, 0.75)]
    ranks = sorted({r for pos in positions for r in (math.floor(pos), math.ceil(pos))})
    ordered = np.partition(flat, ranks)
    return tuple(  # type: ignore[return-value]
        float(ordered[math.floor(pos)] + (ordered[math.ceil(pos)] - ordered[math.floor(pos)]) * (pos - math.floor(pos)))
        for pos in positions
    )


def top5(flow: Any) -> float:
    """The mean of the largest 5% of flow magnitudes (VBench's per-pair motion statistic)."""
    import numpy as np

    fx, fy = flow[..., 0], flow[..., 1]
    mag = np.sqrt(fx * fx + fy * fy).ravel()
    k = max(1, int(mag.size * 0.05))
    return float(np.partition(mag, mag.size - k)[-k:].mean())
