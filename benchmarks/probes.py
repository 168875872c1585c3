"""Benchmark: video probes' throughput against decode alone, and peak memory, on a long 1080p clip.

    python -m benchmarks.probes [--seconds 600] [--fps 24] [--keep PATH]

Generates a low-complexity 1920×1080 H.264 clip (default 10 minutes) in a temporary folder, then in
separate child processes (so each peak RSS is its own) decodes it (1) alone and (2) through the
probes with no frame cap, and prints frames per second for both, their ratio (goal ≥ 0.5) and the
probes' peak resident memory (goal < 500 MB).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path


def make_long_clip(path: Path, seconds: float, fps: int) -> Path:
    """Write a simple moving-gradient 1080p clip (fast to encode) of ``seconds`` at ``fps``."""
    import av
    import numpy as np

    width, height = 1920, 1080
    frames = int(seconds * fps)
    x = np.arange(width, dtype=np.uint16)
    y = np.arange(height, dtype=np.uint16)[:, None]
    base = ((x[None, :] // 8 + y // 8) % 200 + 28).astype(np.uint8)
    u = np.full((height // 2, width // 2), 110, np.uint8)
    v = np.full((height // 2, width // 2), 150, np.uint8)
    with av.open(str(path), "w", options={"movflags": "+faststart"}) as container:
        stream = container.add_stream("libx264", rate=fps)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        stream.codec_context.time_base = Fraction(1, fps)
        stream.options = {"preset": "ultrafast", "crf": "30", "g": str(fps * 4)}
        for index in range(frames):
            luma = np.roll(base, 3 * index, axis=1)
            top = (index * 5) % (height - 200)
            luma[top : top + 200, 800:1000] = 235
            packed = np.concatenate([luma, u.reshape(-1, width), v.reshape(-1, width)])
            frame = av.VideoFrame.from_ndarray(packed, format="yuv420p")
            frame.pts, frame.time_base = index, Fraction(1, fps)
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return path


def phase_decode(path: Path) -> dict[str, float]:
    """Decode every frame (threaded, as the probes do) and count them."""
    import av

    start = time.perf_counter()
    count = 0
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        for _ in container.decode(stream):
            count += 1
    return {"frames": count, "seconds": time.perf_counter() - start}


def phase_probes(path: Path) -> dict[str, float]:
    """Run every probe over the whole clip (caps lifted) and count the frames analysed."""
    from reeljudge.probes import ProbeOptions, probe_signals
    from reeljudge.probes.signals import measure

    options = ProbeOptions(max_frames=10**9, max_seconds=1e9)
    start = time.perf_counter()
    signals = measure(path, options)
    results = probe_signals(signals, options, "a test pattern")
    elapsed = time.perf_counter() - start
    return {"frames": signals.count, "seconds": elapsed, "failed": [r.name for r in results if r.gating and not r.passed]}


def _child(phase: str, path: Path) -> dict:
    """Run one phase in a fresh interpreter; its result plus its own peak RSS in MB."""
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.probes", "--phase", phase, str(path)],
        check=True, capture_output=True, text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    """Print decode-only fps, probes fps, their ratio and the probes' peak RSS."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--fps", type=int, default=24)
    parser.add_argument("--keep", type=Path, help="reuse/keep the generated clip at this path")
    parser.add_argument("--phase", choices=["decode", "probes"], help=argparse.SUPPRESS)
    parser.add_argument("clip", nargs="?", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.phase:
        import resource

        result = phase_decode(args.clip) if args.phase == "decode" else phase_probes(args.clip)
        result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps(result))
        return 0
    with tempfile.TemporaryDirectory(prefix="reeljudge-bench-") as tmp:
        clip = args.keep or Path(tmp) / "long_1080p.mp4"
        if not clip.exists():
            t0 = time.perf_counter()
            make_long_clip(clip, args.seconds, args.fps)
            print(f"generated {clip.name}: {args.seconds:g} s 1920x1080 @ {args.fps} fps, "
                  f"{clip.stat().st_size / 1e6:.1f} MB in {time.perf_counter() - t0:.0f} s")
        decode = _child("decode", clip)
        probes = _child("probes", clip)
    decode_fps = decode["frames"] / decode["seconds"]
    probes_fps = probes["frames"] / probes["seconds"]
    print(f"decode only : {decode['frames']} frames in {decode['seconds']:.1f} s = {decode_fps:.1f} fps "
          f"(peak RSS {decode['peak_rss_mb']:.0f} MB)")
    print(f"probes      : {probes['frames']} frames in {probes['seconds']:.1f} s = {probes_fps:.1f} fps "
          f"(peak RSS {probes['peak_rss_mb']:.0f} MB; gating probes failed: {', '.join(probes['failed']) or 'none'})")
    print(f"ratio probes/decode fps: {probes_fps / decode_fps:.2f} (goal >= 0.5)")
    print(f"peak RSS probes, {args.seconds / 60:g}-minute 1080p clip: {probes['peak_rss_mb']:.0f} MB (goal < 500 MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
