"""The global motion of each frame pair: the optical flow's reading, checked against whole-picture evidence.

DIS optical flow works coarse to fine, and at its coarse scales a repeating texture aliases: over
40-px bricks a 2 px/frame pan reads −3.85 and −0.16 on alternate pairs, over fine stripes a whole
period off. Each pair's reading is therefore checked against other candidate motions — the shift
phase correlation finds (``shift``; across a texture that runs one way, the shift of its profile),
the best other correlation peak when the flow explains little, and the previous pair's motion (a
pan goes on) — by how much of the picture one shift by each leaves unexplained (the *rigid
residual*: the mean absolute difference from the median, frame i moved back onto frame i−1 at the
inner sample grid). When another candidate explains the picture better, the flow is measured again
on frame i moved back by that candidate in whole pixels, at the flow's finest scale alone (no
coarser scale left to alias), and kept when its motion explains the picture better than the first
reading (or, when the dense field itself is scattered and explains less than that one shift, as
well and with a better field). Where two repeats fit equally (a pan by half the period), the one the camera was
already moving by is kept. On a texture that runs one way (stripes, slats, a fence) only the motion across
it can be seen: only that component is read.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from reeljudge.probes.measures import difference_stats, flow_sample, quartiles
from reeljudge.probes.thresholds import MotionOptions
from reeljudge.probes.shift import Shift, ShiftMeter


#: a flow field whose interquartile range exceeds this (px) and that explains less than one shift of the
#: picture is broken (on fine stripes it scatters by up to 100 px), and is measured again
BROKEN_SPREAD_PX = 2.0


@dataclass(frozen=True)
class PairMotion:
    """One pair's global motion and what it explains."""

    flow: Any  # the dense flow field kept (H × W × 2, px)
    x: float  # the global motion (median flow at the textured points; across a one-way texture, its normal part)
    y: float
    spread: float  # the flow field's interquartile range (px; across a one-way texture, of its normal part)
    delta: float  # median brightness change after warping by the flow (levels)
    residual: float  # what warping by the flow leaves: mean abs difference from that median (levels)
    rigid: float  # what one shift of the whole picture by (x, y) leaves: median abs difference from the median
    realigned: bool  # the flow was measured again from another candidate motion
    one_way: bool  # the texture runs one way: only the motion across it was read
    coherence: float  # how much frame i−1's texture runs one way (0–1)
    shift: Shift  # the correlated shift the flow was checked against (of the profile, on a one-way texture)


class MotionReader:
    """Reads the global motion of consecutive analysis-size luma frames of one size."""

    def __init__(self, width: int, height: int, options: MotionOptions) -> None:
        import cv2
        import numpy as np

        self.options = options
        self.w, self.h = width, height
        # (DISOpticalFlow_create: in OpenCV, missing from its stubs)
        self.dis = cv2.DISOpticalFlow_create(cv2.DISOPTICAL_FLOW_PRESET_ULTRAFAST)  # type: ignore[attr-defined]
        self.near_dis = cv2.DISOpticalFlow_create(cv2.DISOPTICAL_FLOW_PRESET_ULTRAFAST)  # type: ignore[attr-defined]
        self.near_dis.setCoarsestScale(self.near_dis.getFinestScale())  # one scale: small motions only
        margin = max(2, height // 16)
        self.margin = margin
        self.inner = (slice(margin, -margin, 2), slice(margin, -margin, 2))  # where residuals are read
        grid = np.dstack(np.meshgrid(np.arange(width, dtype=np.float32), np.arange(height, dtype=np.float32)))
        self.inner_grid = np.ascontiguousarray(grid[self.inner])
        self.inner_size = (self.inner_grid.shape[1], self.inner_grid.shape[0])
        self.shifts = ShiftMeter(width, height)
        self.last: tuple[float, float] | None = None
        self.soft: tuple[Any, Any] = (None, None)  # frames i−1 and i softened: a shift between pixels is judged fairly
        self.soft_inner: Any = None  # frame i−1 softened, at the inner sample grid (contiguous: read by every candidate)
        self.scores: dict[tuple[float, float], tuple[float, float]] = {}  # the pair's shifts scored so far (``_rigid``)

    def first(self, luma: Any) -> None:
        """Take the clip's first frame."""
        self.shifts.add(luma)
        self.soft = (None, _soften(luma))

    def pair(self, prev_y: Any, y: Any, textured: Any, diff_mean: float) -> PairMotion:
        """The global motion from frame i−1 (``prev_y``) to frame i (``y``); ``textured``: frame i−1's
        textured sample points, ``diff_mean``: the pair's mean abs difference (levels)."""
        import numpy as np

        shift = self.shifts.add(y)
        assert shift is not None, "first() takes the clip's first frame"
        self.soft = (self.soft[1], _soften(y))
        self.soft_inner = np.ascontiguousarray(self.soft[0][self.inner])
        self.scores = {}
        prev_inner = np.ascontiguousarray(prev_y[self.inner])
        coherence, normal = shift.coherence, shift.normal
        one_way = coherence >= self.options.one_way_coherence
        if one_way:
            shift = self.shifts.across(normal)
        read = (lambda f: self._across(f, textured, normal)) if one_way else (lambda f: self._median(f, textured))
        flow = self.dis.calc(prev_y, y, None)
        motion = read(flow)
        delta, residual, _ = difference_stats(self._warped(y, flow), prev_inner)
        scored = [(*self._rigid(motion[0], motion[1]), motion[0], motion[1], False)]
        scored += [(*self._rigid(x, y_shift), x, y_shift, favoured) for x, y_shift,
                   favoured in self._candidates(motion, scored[0][0], shift, diff_mean)]
        best = _choice(scored)
        # a scattered field that explains less than one shift
        broken = motion[2] > BROKEN_SPREAD_PX and residual > 1.5 * scored[0][0] + 1.0
        if best is not scored[0] or broken:
            flow2 = self._aligned_flow(prev_y, y, (best[2], best[3]))
            motion2 = read(flow2)
            delta2, residual2, _ = difference_stats(self._warped(y, flow2), prev_inner)
            best = _choice(scored + [(*self._rigid(motion2[0], motion2[1]), motion2[0], motion2[1], best[4])])
            if residual2 < residual:
                flow, motion, delta, residual = flow2, motion2, delta2, residual2
        realigned = best is not scored[0]
        x, y_shift, rigid = best[2], best[3], best[1]
        if realigned:  # a candidate's reading is coarse (a correlation peak, the last pair's motion): refine it
            x, y_shift = self._refined(x, y_shift, best[0], (math.cos(normal), math.sin(normal)) if one_way else None)
            rigid = self._rigid(x, y_shift)[1]
        self.last = (x, y_shift)
        return PairMotion(flow, x, y_shift, motion[2], delta, residual, rigid, realigned, one_way, coherence, shift)

    def _candidates(self, motion: tuple[float, float, float], rigid: float,
                    shift: Shift, diff_mean: float) -> list[tuple[float, float, bool]]:
        """Motions other than the flow's reading that could explain the pair, each with whether it is
        favoured when it fits as well as the best: the correlated shift when it is sure (peak ≥
        ``shift_sure_peak``) or the reading leaves over half of the pair's difference unexplained, and then
        also the best other correlation peak (a neighbouring repeat); the previous pair's motion, favoured
        (a pan goes on). Only those that differ from the reading by more than ``shift_check_px``."""
        options = self.options
        doubtful = rigid > 0.5 * diff_mean
        out: list[tuple[float, float, bool]] = []
        if shift.peak >= options.shift_sure_peak or doubtful:
            out.append((shift.x, shift.y, False))
        if doubtful:
            out.append((shift.rival_x, shift.rival_y, False))
        if self.last is not None:
            out.append((self.last[0], self.last[1], True))
        return [c for c in out if math.hypot(motion[0] - c[0], motion[1] - c[1]) > options.shift_check_px]

    def _median(self, flow: Any, textured: Any) -> tuple[float, float, float]:
        """(x, y, spread) of the flow at the textured points: the median of each, and the length of the
        vector of their interquartile ranges."""
        fx, fy = flow_sample(flow, textured)
        x1, x, x3 = quartiles(fx)
        y1, y, y3 = quartiles(fy)
        return x, y, math.hypot(x3 - x1, y3 - y1)

    def _across(self, flow: Any, textured: Any, normal: float) -> tuple[float, float, float]:
        """(x, y, spread) of the flow's component across a texture that runs one way (``normal``: the
        direction across it): its median as a vector along the normal, and its interquartile range."""
        fx, fy = flow_sample(flow, textured)
        nx, ny = math.cos(normal), math.sin(normal)
        low, middle, high = quartiles(fx * nx + fy * ny)
        return middle * nx, middle * ny, high - low

    def _warped(self, y: Any, flow: Any) -> Any:
        """Frame i warped back onto frame i−1 by ``flow``, at the inner sample grid."""
        import cv2

        # one two-channel map and no second one (None), which OpenCV takes and its stubs do not show
        return cv2.remap(y, self.inner_grid + flow[self.inner], None,  # type: ignore[call-overload]
                         cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def _refined(self, x: float, y: float, score: float, across: tuple[float, float] | None) -> tuple[float, float]:
        """(``x``, ``y``) moved to where a parabola through what shifts 0.3 px either side leave unexplained
        bottoms out, along x and y (or only ``across`` a one-way texture, where the other way does not show)."""
        step = 0.3
        for dx, dy in ([across] if across else [(1.0, 0.0), (0.0, 1.0)]):
            minus = self._rigid(x - step * dx, y - step * dy)[0]
            plus = self._rigid(x + step * dx, y + step * dy)[0]
            bend = minus - 2 * score + plus
            if bend > 0:
                offset = max(-step, min(step, 0.5 * step * (minus - plus) / bend))
                x, y = x + offset * dx, y + offset * dy
        return x, y

    def _rigid(self, x: float, y_shift: float) -> tuple[float, float]:
        """What one shift of the whole picture by (``x``, ``y_shift``) leaves unexplained: (mean, median)
        absolute difference from the median difference, at the inner sample grid, on the pair's two frames
        softened (``_soften``: else the blur of interpolating between pixels would favour whole-pixel shifts)."""
        import cv2
        import numpy as np

        known = self.scores.get((x, y_shift))
        if known is not None:
            return known
        after = self.soft[1]
        m = self.margin  # the inner sample grid (every 2nd pixel inside the margin), moved by (x, y_shift)
        warp = np.array([[2, 0, m + x], [0, 2, m + y_shift]], np.float32)
        moved = cv2.warpAffine(after, warp, self.inner_size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)
        _, mean, median = difference_stats(moved, self.soft_inner)
        self.scores[(x, y_shift)] = (mean, median)
        return mean, median

    def _aligned_flow(self, prev_y: Any, y: Any, guess: tuple[float, float]) -> Any:
        """The flow from frame i−1 to frame i measured on frame i moved back by ``guess`` in whole pixels,
        at the flow's finest scale alone, the whole pixels added back."""
        import cv2
        import numpy as np

        dx, dy = int(round(guess[0])), int(round(guess[1]))
        back = y if dx == dy == 0 else cv2.warpAffine(  # a move by no whole pixel leaves frame i as it is
            y, np.array([[1, 0, dx], [0, 1, dy]], np.float32), (self.w, self.h),
            flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
        flow = self.near_dis.calc(prev_y, back, None)
        flow[..., 0] += dx
        flow[..., 1] += dy
        return flow


def _soften(luma: Any) -> Any:
    """``luma`` blurred by a Gaussian of 1 px: linear interpolation between pixels then adds almost no blur
    of its own, so a shift by a fraction of a pixel is matched as well as a whole one."""
    import cv2

    return cv2.GaussianBlur(luma, (0, 0), 1.0)


def _choice(scored: list[tuple[float, float, float, float, bool]]) -> tuple[float, float, float, float, bool]:
    """Of motions scored (what one shift by each leaves unexplained: mean, median; x, y, favoured), the one that
    explains the pair best; where another a pixel or more away fits alike (within 5 %) and is favoured, that
    one: the motion the camera had, so a pan by half a texture's period does not flip between the two repeats
    that fit it (nearer than a pixel, the best is the finer reading of the same motion)."""
    least = min(scored, key=lambda entry: entry[0])
    alike = [entry for entry in scored if entry[4] and entry[0] <= 1.05 * least[0] + 0.05
             and math.hypot(entry[2] - least[2], entry[3] - least[3]) >= 1.0]
    return alike[0] if alike else least
