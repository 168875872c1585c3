"""How far the probes' findings move with the machine: the findings table written under other settings.

``PYTHONPATH=tests python -m support.findings_spread run SETTING OUT.json [--corpus DIR] [--variants 0]``
writes the findings of the corpus variants and the example clips with one setting changed:

- ``base``: as the probes run (OpenCV single-threaded in the analysis, FFmpeg's own decoder threads);
- ``cv2-threads-8``: OpenCV's pool at 8 threads during the analysis;
- ``decoder-threads-1`` / ``decoder-threads-4``: the decoder at 1 or 4 slice threads;
- ``cv2-unoptimized``: ``cv2.setUseOptimized(False)`` (OpenCV's plain C paths);
- ``no-avx512``: what a CPU without AVX-512 runs (numpy's and OpenCV's AVX-512 dispatch off: set
  ``NPY_DISABLE_CPU_FEATURES`` and ``OPENCV_CPU_DISABLE`` before Python starts, as this command tells);
- ``ffmpeg-no-simd``: FFmpeg's plain C paths (``av_force_cpu_flags(0)``): the RGB→YUV conversion
  when the clips are written, the decode and the scaling to the analysis size;
- ``x264-no-asm``: the corpus clips encoded by x264's plain C paths (``asm=0``), which changes their
  bytes (beyond any machine of this kind: x264's output is the same from SSSE3 to AVX-512);
- ``all``: all of the above at once but ``x264-no-asm`` (the decoder at 4 slice threads).

``compare BASE.json OTHER.json…`` prints, per quantity, the largest difference from BASE and how
many values differ, marking the quantities that ``support.tolerance`` compares exactly.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from reeljudge.synth import encode
from support import findings
from support.tolerance import spread, tolerance_of

SETTINGS = ("base", "cv2-threads-8", "decoder-threads-1", "decoder-threads-4", "cv2-unoptimized", "no-avx512",
            "ffmpeg-no-simd", "x264-no-asm", "all")
NO_AVX512_ENV = {"NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR", "OPENCV_CPU_DISABLE": "AVX512F,AVX512-SKX"}


def apply(setting: str) -> None:
    """Change this process as ``setting`` says (before any clip is written or measured)."""
    import cv2

    from reeljudge.media import container
    from reeljudge.probes import signals

    every = setting == "all"
    if setting == "no-avx512" or every:
        missing = {k: v for k, v in NO_AVX512_ENV.items() if os.environ.get(k) != v}
        if missing:
            raise SystemExit("start Python with " + " ".join(f"{k}='{v}'" for k, v in missing.items()))
    if setting == "cv2-threads-8" or every:
        signals._opencv_in_this_thread = _opencv_threads(8)
    if setting.startswith("decoder-threads-") or every:
        container.set_decoder_threads(int(setting.rsplit("-", 1)[1]) if not every else 4)
    if setting == "cv2-unoptimized" or every:
        cv2.setUseOptimized(False)
    if setting == "ffmpeg-no-simd" or every:
        _ffmpeg_cpu_flags(0)
    if setting == "x264-no-asm":
        plain = encode.x264_options

        def no_asm(**kwargs: object) -> dict[str, str]:
            options = plain(**kwargs)  # type: ignore[arg-type]
            return {**options, "x264-params": options["x264-params"] + ":asm=0"}

        encode.x264_options = no_asm


def _ffmpeg_cpu_flags(flags: int) -> None:
    """Make PyAV's own FFmpeg libraries use only these CPU features (0: plain C)."""
    import ctypes

    import av

    avutil = next((Path(av.__file__).parent.parent / "av.libs").glob("libavutil-*.so*"))
    ctypes.CDLL(str(avutil)).av_force_cpu_flags(flags)


def _opencv_threads(count: int):  # type: ignore[no-untyped-def]
    """A stand-in for the analysis' thread guard that gives OpenCV ``count`` threads instead of one."""

    @contextmanager
    def guard() -> Iterator[None]:
        import cv2

        cv2.setNumThreads(count)
        yield

    return guard


def compare(base: dict, others: dict[str, dict]) -> list[str]:
    """Table lines: quantity, its tolerance, then per other table the largest absolute difference (count)."""
    spreads = {name: spread(base, table) for name, table in others.items()}
    names = sorted({q for s in spreads.values() for q, (_, _, n) in s.items() if n})
    lines = ["quantity | tolerance | " + " | ".join(others)]
    for q in names:
        cells = []
        for s in spreads.values():
            worst, rel, n = s.get(q, (0.0, 0.0, 0))
            cells.append(f"{worst:.3g} ({rel:.2%}, {n})" if n else "0")
        lines.append(f"{q} | {tolerance_of(q) or 'EXACT'} | " + " | ".join(cells))
    return lines


def main(argv: list[str] | None = None) -> int:
    """Run the findings under one setting, or compare tables."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="action", required=True)
    run = sub.add_parser("run", help="write the findings table under one setting")
    run.add_argument("setting", choices=SETTINGS)
    run.add_argument("out", type=Path)
    run.add_argument("--corpus", type=Path, help="write (or reuse) the corpus clips here")
    run.add_argument("--variants", type=int, nargs="+", default=[0])
    cmp = sub.add_parser("compare", help="the largest difference per quantity from the first table")
    cmp.add_argument("tables", type=Path, nargs="+")
    args = parser.parse_args(argv)
    if args.action == "compare":
        base, *others = args.tables
        print("\n".join(compare(json.loads(base.read_text()), {p.stem: json.loads(p.read_text()) for p in others})))
        return 0
    apply(args.setting)
    with tempfile.TemporaryDirectory(prefix="reeljudge-spread-") as tmp:
        findings.write(args.out, findings.all_findings(args.corpus or Path(tmp), tuple(args.variants)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
