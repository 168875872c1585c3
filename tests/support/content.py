"""Two clips compared by what they decode to, not by their bytes.

An encoder's output bytes depend on the CPU it runs on (x264's SIMD paths round differently from
its plain C paths), so a regenerated fixture is compared by its decoded frames: the same count and
size, and every 16×16-pixel block's mean (luma; chroma over the same area) within ``BLOCK_TOLERANCE``
levels of the reference's. Block means average away the encoder's pixel-level noise on grain and
keep what a generator change moves: a disc or a camera a fraction of a pixel a frame off, another
seed. The figures the tolerance was chosen from are in docs/decisions.md ("Findings reference
across machines").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

#: largest difference (8-bit levels) of one 16×16 block's mean from the reference's in any frame
BLOCK = 16  # pixels on a side (chroma: the same area)
BLOCK_TOLERANCE = 8.0


def _block_means(plane: Any, size: int) -> Any:
    """The mean of each ``size``×``size`` block of a plane (a partial edge block dropped)."""
    h, w = plane.shape[0] // size * size, plane.shape[1] // size * size
    return plane[:h, :w].reshape(h // size, size, w // size, size).mean(axis=(1, 3))


def block_means(path: Path) -> Iterator[Any]:
    """Per decoded frame, the 16×16 block means of its luma and of its chroma over the same area, flattened."""
    import av
    import numpy as np

    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        for frame in container.decode(stream):
            packed = frame.to_ndarray(format="yuv420p").astype(np.float32)
            h, w = frame.height, frame.width
            uv = packed[h:].reshape(2, h // 2, w // 2)
            yield np.concatenate([_block_means(p, s).ravel() for p,
                                  s in ((packed[:h], BLOCK), (uv[0], BLOCK // 2), (uv[1], BLOCK // 2))])


def frame_differences(reference: Path, fresh: Path) -> tuple[list[str], list[float]]:
    """(what differs in frame count or size, each frame's largest block-mean difference) of two clips."""
    import numpy as np

    a, b = list(block_means(reference)), list(block_means(fresh))
    problems = [f"{len(b)} frames, not {len(a)}"] if len(a) != len(b) else []
    if a and b and a[0].shape != b[0].shape:
        return problems + [f"another frame size ({b[0].size} blocks, not {a[0].size})"], []
    return problems, [float(np.abs(x - y).max()) for x, y in zip(a, b)]


def content_differences(reference: Path, fresh: Path, tolerance: float = BLOCK_TOLERANCE) -> list[str]:
    """One line per way ``fresh`` decodes differently from ``reference`` beyond the tolerance."""
    problems, diffs = frame_differences(reference, fresh)
    over = [i for i, d in enumerate(diffs) if d > tolerance]
    if over:
        worst = max(over, key=diffs.__getitem__)
        problems.append(f"{len(over)} frames have a {BLOCK}×{BLOCK} block whose mean differs by more than {tolerance:g} levels "
                        f"(frame {worst}: {diffs[worst]:.1f})")
    return [f"{fresh.name}: {problem}" for problem in problems]
