"""What blinding a clip costs at import (issue 39): stripping its names against re-encoding it to one profile.

For each size, a clip is rendered by the fixture generator and encoded as a generator would (x264
veryfast, CRF 23, with its settings string and a title tag); then ``strip_names`` and ``normalise``
(``reeljudge.media.anonymise``) each take it in ``--repeats`` times. Prints, per clip second, the wall
time and the CPU time (this process and the encoder's threads), and the size of each result against
the source, all measured in one run.

Usage: ``.venv/bin/python -m benchmarks.ab_blinding [--seconds 5] [--repeats 3] [--sizes 640x360,1280x720,1920x1080]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from typing import Callable
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def timed(action: Callable[[], object], repeats: int) -> tuple[float, float]:
    """Median wall and CPU seconds of ``action()`` over ``repeats`` runs."""
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        action()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def run(size: str, seconds: float, repeats: int, work: Path) -> str:
    """One size's line: strip and normalise, per clip second, with sizes."""
    from reeljudge.media.anonymise import normalise, strip_names
    from reeljudge.synth.clips import BASE, render
    from support.blinding import encode_as

    width, height = (int(v) for v in size.split("x"))
    spec = replace(BASE, width=width, height=height, frames=int(24 * seconds), seed=7)
    source = encode_as(work / f"source-{size}.mp4", render(spec), "sys-x")
    stripped, normalised = work / f"stripped-{size}.mp4", work / f"normalised-{size}.mp4"
    strip = timed(lambda: strip_names(source, stripped), repeats)
    norm = timed(lambda: normalise(source, normalised, work), repeats)
    kib = lambda p: p.stat().st_size / 1024  # noqa: E731
    return (f"{size:>9} {seconds:g} s: strip {1000 * strip[0] / seconds:7.1f} ms wall, "
            f"{1000 * strip[1] / seconds:7.1f} ms CPU per clip second; "
            f"normalise {1000 * norm[0] / seconds:7.1f} ms wall, {1000 * norm[1] / seconds:7.1f} ms CPU per clip second "
            f"({norm[0] / strip[0]:.0f}× the wall of a strip); source {kib(source):.0f} KiB, stripped {kib(stripped):.0f} KiB, "
            f"normalised {kib(normalised):.0f} KiB")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="clip length (default 5)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each, the median reported (default 3)")
    parser.add_argument("--sizes", default="640x360,1280x720", help="frame sizes (default 640x360,1280x720)")
    args = parser.parse_args(argv if argv is not None else sys.argv[1:])
    print(f"blinding at import: strip_names vs normalise (H.264 High CRF 18 medium), {args.repeats} runs each, median")
    with tempfile.TemporaryDirectory(prefix="reeljudge-blinding-") as work:
        for size in args.sizes.split(","):
            print(run(size, args.seconds, args.repeats, Path(work)), flush=True)


if __name__ == "__main__":
    main()
