"""Fault-injected versions of a real clip (test support): the same footage with a planted fault.

``PYTHONPATH=tests python -m support.derived SOURCE TARGET --fault flicker --start 40 --length 30`` writes
``TARGET`` with frames ``start``…``start+length-1`` changed: ``flicker`` alternates their brightness
by ±``strength`` (25 %), ``freeze`` repeats frame ``start``. Video only (no audio), H.264, same
size and frame rate. Used to make ``datasets/clips/bbb_flicker.mp4`` from ``bbb_excerpt.mp4``.
"""

from __future__ import annotations

import argparse
from fractions import Fraction
from pathlib import Path
from typing import Sequence


def with_fault(source: str | Path, target: str | Path, *, fault: str = "flicker", start: int = 40, length: int = 30,
               strength: float = 0.25, crf: int = 30) -> Path:
    """Re-encode ``source`` to ``target`` with ``fault`` planted on ``length`` frames from ``start``."""
    import av
    import numpy as np

    if fault not in ("flicker", "freeze"):
        raise ValueError(f"unknown fault {fault!r} (flicker or freeze)")
    target = Path(target)
    with av.open(str(source)) as src, av.open(str(target), "w", options={"movflags": "+faststart"}) as dst:
        vin = src.streams.video[0]
        rate = vin.average_rate or Fraction(24)
        out = dst.add_stream("libx264", rate=rate)
        out.width, out.height, out.pix_fmt = vin.codec_context.width, vin.codec_context.height, "yuv420p"
        out.codec_context.time_base = Fraction(1) / rate
        out.options = {"crf": str(crf), "preset": "slow", "bf": "0", "x264-params": "threads=1:sliced-threads=0"}
        held = None
        for index, frame in enumerate(src.decode(vin)):
            rgb = frame.to_ndarray(format="rgb24")
            if start <= index < start + length:
                if fault == "freeze":
                    held = rgb if held is None else held
                    rgb = held
                else:
                    gain = 1 + strength if (index - start) % 2 == 0 else 1 - strength
                    rgb = np.clip(rgb.astype(np.float32) * gain, 0, 255).astype(np.uint8)
            new = av.VideoFrame.from_ndarray(rgb, format="rgb24").reformat(format="yuv420p")
            new.pts, new.time_base = index, Fraction(1) / rate
            for packet in out.encode(new):
                dst.mux(packet)
        for packet in out.encode():
            dst.mux(packet)
    return target


def main(argv: Sequence[str] | None = None) -> int:
    """Write one fault-injected clip."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("target", type=Path)
    parser.add_argument("--fault", choices=("flicker", "freeze"), default="flicker")
    parser.add_argument("--start", type=int, default=40)
    parser.add_argument("--length", type=int, default=30)
    args = parser.parse_args(argv)
    path = with_fault(args.source, args.target, fault=args.fault, start=args.start, length=args.length)
    print(f"{path} {path.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
