"""The picture's global shift between consecutive frames, by phase correlation, with how sure it is.

Optical flow works coarse to fine, and at its coarse scales a repeating texture (bricks, tiles,
stripes, a fence) aliases: a pan of 2 px/frame over 40-px bricks reads as −3.85 and −0.16 px on
alternate pairs. Phase correlation compares the two whole frames at once: every repeat of the
texture agrees on one shift, and its peak says how much of the picture moves by it. It runs on the
luma at half the analysis size (mean taken out, a Hann window against the edges, padded to a fast
DFT size); each frame's spectrum is kept for the next pair, so a pair costs one forward and one
inverse DFT (≈ 0.2 ms at 228×128). The shift's fraction of a pixel comes from the peak and its
larger neighbour on each axis (a centroid over a wider window is pulled by a second moving layer,
such as a ball rolling past).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class Shift:
    """The global shift of frame i against frame i−1 (px at the analysis size), the height of its
    correlation peak (about 1 when the whole picture moves as one, near 0 when nothing matches) and
    of the best peak elsewhere (another shift the picture could as well have made)."""

    x: float
    y: float
    peak: float
    rival: float
    rival_x: float = 0.0  # where that best other peak lies (px at the analysis size, whole pixels of the half frame)
    rival_y: float = 0.0
    coherence: float = 0.0  # of frame i−1's texture: 1 when it runs one way only (stripes, slats), 0 when it runs every way
    normal: float = 0.0  # the direction across that texture (radians from the x axis): the only motion such a texture shows


class ShiftMeter:
    """Measures ``Shift`` for consecutive frames of one size, keeping the last frame's spectrum."""

    def __init__(self, width: int, height: int) -> None:
        import cv2
        import numpy as np

        self.size = (width // 2, height // 2)
        self.padded = (cv2.getOptimalDFTSize(self.size[0]), cv2.getOptimalDFTSize(self.size[1]))
        self.window = cv2.createHanningWindow(self.size, cv2.CV_32F)
        self.previous: Any = None
        self.previous_texture = (0.0, 0.0)
        self.halves: tuple[Any, Any] = (None, None)  # the previous and current frame at half size (uint8)
        kx = np.fft.fftfreq(self.padded[0]).astype(np.float32)[None, :]
        ky = np.fft.fftfreq(self.padded[1]).astype(np.float32)[:, None]
        self.moments = [np.ascontiguousarray(np.broadcast_to(m, (self.padded[1], self.padded[0]))).ravel()
                        for m in (kx * kx, ky * ky, kx * ky)]

    def spectrum(self, luma: Any) -> Any:
        """The windowed, mean-free half-size spectrum of one analysis-size luma frame."""
        import cv2
        import numpy as np

        small = cv2.resize(luma, self.size, interpolation=cv2.INTER_AREA)
        self.halves = (self.halves[1], small)
        half = small.astype(np.float32)
        weighted = (half - float(cv2.mean(half)[0])) * self.window
        w, h = self.padded
        padded = cv2.copyMakeBorder(weighted, 0, h - self.size[1], 0, w - self.size[0], cv2.BORDER_CONSTANT, value=0)
        return cv2.dft(padded, flags=cv2.DFT_COMPLEX_OUTPUT)

    def add(self, luma: Any) -> Shift | None:
        """Take the next frame; the shift from the previous one (None for the first frame)."""
        current = self.spectrum(luma)
        previous, self.previous = self.previous, current
        texture, self.previous_texture = self.previous_texture, self.orientation(current)
        if previous is None:
            return None
        return replace(measure_shift(previous, current), coherence=texture[0], normal=texture[1])

    def across(self, normal: float) -> Shift:
        """The last pair's shift across a texture that runs one way (``normal``: the direction across it,
        radians), as a vector in px at the analysis size, with the height of its correlation peak and of the
        best other one (and where that lies): both half frames
        are turned so the texture runs up and down, averaged down each column of their middle square
        into a profile across the texture, and the two profiles phase-correlated (a one-way texture
        gives the 2-D correlation a ridge, not a peak; its profile gives one)."""
        import cv2
        import numpy as np

        first, second = self.halves
        w, h = self.size
        turn = cv2.getRotationMatrix2D((w / 2, h / 2), math.degrees(normal), 1.0)
        side = int(min(w, h) / math.sqrt(2)) // 2 * 2
        rows, cols = slice((h - side) // 2, (h + side) // 2), slice((w - side) // 2, (w + side) // 2)
        profiles = []
        for half in (first, second):
            upright = cv2.warpAffine(half, turn, (w, h), flags=cv2.INTER_LINEAR)[rows, cols].astype(np.float32)
            line = upright.mean(axis=0)
            profiles.append(np.fft.rfft((line - line.mean()) * np.hanning(side)))
        cross = profiles[1] * np.conj(profiles[0])
        cross /= np.abs(cross) + 1e-9
        surface = np.fft.irfft(cross, n=side)
        k = int(np.argmax(surface))
        frac = _fraction(float(surface[k - 1]), float(surface[k]), float(surface[(k + 1) % side]))
        length = 2.0 * ((k if k <= side // 2 else k - side) + frac)
        others = surface.copy()
        others[[(k + d) % side for d in range(-2, 3)]] = -np.inf
        r = int(np.argmax(others))
        rival = 2.0 * (r if r <= side // 2 else r - side)
        nx, ny = math.cos(normal), math.sin(normal)
        return Shift(length * nx, length * ny, float(surface[k]), max(0.0, float(others[r])), rival * nx, rival * ny)

    def orientation(self, spectrum: Any) -> tuple[float, float]:
        """(coherence, normal) of a frame's texture from its spectrum's second moments (the structure
        tensor: Σ k kᵀ |F(k)|²): coherence (λ1 − λ2) / (λ1 + λ2), the normal along λ1."""
        import numpy as np

        power = (spectrum[..., 0] ** 2 + spectrum[..., 1] ** 2).ravel()
        a, d, b = (float(np.dot(m, power)) for m in self.moments)
        spread = math.hypot((a - d) / 2, b)
        total = a + d
        return (2 * spread / total if total > 0 else 0.0), 0.5 * math.atan2(2 * b, a - d)


def measure_shift(first: Any, second: Any) -> Shift:
    """The shift that moves the picture of spectrum ``first`` onto ``second`` (px at twice the spectra's scale)."""
    import cv2
    import numpy as np

    cross = cv2.mulSpectrums(second, first, 0, conjB=True)
    magnitude = cv2.magnitude(cross[..., 0], cross[..., 1]) + 1e-9
    for part in (cross[..., 0], cross[..., 1]):  # each part alone: ≈ 2× cheaper than broadcasting over the pair
        np.divide(part, magnitude, out=part)
    # the real part of the complex inverse: ≈ 3× cheaper in OpenCV than asking for a real output
    surface = np.ascontiguousarray(cv2.idft(cross, cross, flags=cv2.DFT_SCALE)[..., 0])
    h, w = surface.shape
    _, top, _, (px, py) = cv2.minMaxLoc(surface)
    xs = [surface[py, (px + d) % w] for d in (-1, 0, 1)]
    ys = [surface[(py + d) % h, px] for d in (-1, 0, 1)]
    peak = float(sum(xs) + sum(ys) - top)  # the peak and its four neighbours: a shift between pixels splits it
    rows, cols = [(py + d) % h for d in range(-2, 3)], [(px + d) % w for d in range(-2, 3)]
    surface[np.ix_(rows, cols)] = -np.inf  # the best other peak: beyond the peak's own 5×5
    _, rival, _, (rx, ry) = cv2.minMaxLoc(surface)
    x = (px if px <= w // 2 else px - w) + _fraction(*xs)
    y = (py if py <= h // 2 else py - h) + _fraction(*ys)
    return Shift(2.0 * x, 2.0 * y, peak, max(0.0, float(rival)), 2.0 * (rx if rx <= w // 2 else rx - w),
                 2.0 * (ry if ry <= h // 2 else ry - h))


def _fraction(left: float, centre: float, right: float) -> float:
    """The fraction of a pixel the shift lies from the peak's pixel toward its larger neighbour
    (Foroosh, Zerubia & Berthod 2002: a phase-correlation peak is a sampled sinc, so the split
    between two pixels is ``n / (n + c)``), signed, within ±0.5."""
    if right >= left:
        return max(0.0, right) / (max(0.0, right) + centre) if centre > 0 else 0.0
    return -max(0.0, left) / (max(0.0, left) + centre) if centre > 0 else 0.0
