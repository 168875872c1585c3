"""Benchmark: video probes' throughput against decode alone, and peak memory, on long 1080p and 4K clips.

    python -m benchmarks.probes [--seconds 600] [--seconds-4k 30] [--fps 24] [--repeat 3] [--keep DIR] [--only realistic …]

Generates two 1920×1080 H.264 clips (default 10 minutes each) and a 4K one in a temporary folder:

* ``trivial``: a sliding stripe pattern and a white box, encoded ``ultrafast`` (no CABAC, no
  B-frames, no deblocking) at a few hundred kbit/s. Decoding it is almost free, so the probes'
  fixed per-frame cost dominates; this is a worst case for the ratio, kept for comparison.
* ``realistic``: a camera panning over a textured, graded colour world with a moving textured
  object and fresh film grain on every frame, encoded ``veryfast`` CRF 20 (CABAC, B-frames,
  deblocking: ≈ 9 Mbit/s, like 1080p web or generator output). Its decode cost is representative
  of real footage. A 30 s seamless loop is encoded once and repeated by remuxing (no re-encode),
  so generation stays quick while every frame still has to be decoded in full.
* ``4k`` (``--seconds-4k``, default 30 s): the realistic scene at 3840×2160 (a 5 s loop).

Each clip is then decoded in separate child processes (so each peak RSS and CPU time is its own)
(1) alone and (2) through every probe with the frame and time caps lifted, otherwise the
assertion's defaults; the two alternate ``--repeat`` times, so every ratio compares runs made side
by side, and the median and range are printed with the CPU milliseconds per frame (which the load
of a shared machine does not hide) and the load average. The 4K clip is also decoded without
deblocking (``skip_loop_filter``, what the probes do at 4K) and probed with a full decode, to show
what skipping saves. Goals: realistic ≥ 0.95× decode-alone fps, trivial ≥ 0.6×, peak ≤ 160 MB.
The trivial clip decodes almost for free, so its ratio shows the probes' fixed per-frame cost;
the realistic clip's decode cost (CABAC, B-frames, ~9 Mbit/s, grain) is that of real footage.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

WIDTH, HEIGHT = 1920, 1080
LOOP_SECONDS = 30.0  # the realistic clip repeats a seamless loop of this length
GOAL_RATIO = {"realistic": 0.95, "trivial": 0.6}
GOAL_RSS_MB = 160.0


def make_long_clip(path: Path, seconds: float, fps: int) -> Path:
    """Write the trivial clip: a sliding stripe pattern and a moving white box, fast to encode and decode."""
    import av
    import numpy as np

    frames = int(seconds * fps)
    x = np.arange(WIDTH, dtype=np.uint16)
    y = np.arange(HEIGHT, dtype=np.uint16)[:, None]
    base = ((x[None, :] // 8 + y // 8) % 200 + 28).astype(np.uint8)
    u = np.full((HEIGHT // 2, WIDTH // 2), 110, np.uint8)
    v = np.full((HEIGHT // 2, WIDTH // 2), 150, np.uint8)
    with av.open(str(path), "w", options={"movflags": "+faststart"}) as container:
        stream = _h264_stream(container, fps, {"preset": "ultrafast", "crf": "30", "g": str(fps * 4)})
        for index in range(frames):
            luma = np.roll(base, 3 * index, axis=1)
            top = (index * 5) % (HEIGHT - 200)
            luma[top : top + 200, 800:1000] = 235
            _encode(container, stream, np.concatenate([luma, u.reshape(-1, WIDTH), v.reshape(-1, WIDTH)]), index, fps)
        for packet in stream.encode():
            container.mux(packet)
    return path


def make_realistic_clip(path: Path, seconds: float, fps: int, size: tuple[int, int] = (WIDTH, HEIGHT)) -> Path:
    """Write the realistic clip: a seamless textured, grainy, moving loop repeated (remuxed) to ``seconds``."""
    import av

    loop = path.with_name(path.stem + ".loop.mp4")
    loop_seconds = LOOP_SECONDS if size == (WIDTH, HEIGHT) else LOOP_SECONDS / 6  # a 4K loop of 5 s
    _encode_realistic_loop(loop, int(min(seconds, loop_seconds) * fps), fps, size)
    target = int(seconds * fps)
    with av.open(str(path), "w", options={"movflags": "+faststart"}) as out:
        written, offset = 0, 0
        stream_out = None
        while written < target:
            with av.open(str(loop)) as src:
                stream_in = src.streams.video[0]
                if stream_out is None:
                    stream_out = out.add_stream_from_template(stream_in)
                assert stream_in.time_base is not None, f"{loop}: its video stream has no time base"
                step = int(round(stream_in.frames / fps / float(stream_in.time_base)))
                for packet in src.demux(stream_in):
                    if packet.dts is None:
                        continue  # the demuxer's end-of-stream marker
                    assert packet.pts is not None, f"{loop}: a packet with a decoding time but no presentation time"
                    packet.pts += offset
                    packet.dts += offset
                    packet.stream = stream_out
                    out.mux(packet)
                written += stream_in.frames
                offset += step
    loop.unlink()
    return path


def _encode_realistic_loop(path: Path, frames: int, fps: int, size: tuple[int, int]) -> None:
    """Encode ``frames`` frames of the realistic scene whose last frame leads back into its first."""
    import av
    import numpy as np

    WIDTH, HEIGHT = size  # noqa: N806 - the scene is drawn at the clip's size
    rng = np.random.default_rng(2024)
    world_h, world_w = HEIGHT + 400, WIDTH + 1400
    world = _textured_world(rng, world_h, world_w)
    wy = world[:world_h]
    wu = world[world_h : world_h + world_h // 4].reshape(world_h // 2, world_w // 2)
    wv = world[world_h + world_h // 4 :].reshape(world_h // 2, world_w // 2)
    thing = _textured_world(rng, 240, 320)[:240]
    grain = [rng.normal(0.0, 3.0, size=(HEIGHT, WIDTH)).astype(np.int16) for _ in range(16)]
    with av.open(str(path), "w") as container:
        stream = _h264_stream(container, fps, {"preset": "veryfast", "crf": "20", "g": str(fps * 2)}, size)
        for index in range(frames):
            phase = 2 * math.pi * index / frames  # whole periods over the loop: it joins up seamlessly
            x = int(700 + 650 * math.sin(phase) + 2 * math.sin(7 * phase)) & ~1
            y = int(200 + 180 * math.sin(2 * phase)) & ~1
            luma = wy[y : y + HEIGHT, x : x + WIDTH].astype(np.int16) + grain[index % len(grain)]
            sweep = abs(((7 * index / frames) % 1.0) * 2 - 1)  # the object crosses the frame 14 times
            ox = int(sweep * (WIDTH - 320))
            oy = int(420 + 260 * math.sin(3 * phase))
            luma[oy : oy + 240, ox : ox + 320] = thing
            u = wu[y // 2 : y // 2 + HEIGHT // 2, x // 2 : x // 2 + WIDTH // 2]
            v = wv[y // 2 : y // 2 + HEIGHT // 2, x // 2 : x // 2 + WIDTH // 2]
            planes = [np.clip(luma, 0, 255).astype(np.uint8), u.reshape(-1, WIDTH), v.reshape(-1, WIDTH)]
            _encode(container, stream, np.concatenate(planes), index, fps)
        for packet in stream.encode():
            container.mux(packet)


def _textured_world(rng: Any, height: int, width: int) -> Any:
    """A graded colour world with coarse and fine texture, as stacked yuv420p planes (uint8)."""
    import cv2
    import numpy as np

    coarse = rng.uniform(20, 235, size=(max(2, height // 40), max(2, width // 40), 3)).astype(np.float32)
    image = cv2.resize(coarse, (width, height), interpolation=cv2.INTER_CUBIC)
    for sigma, amplitude in ((6.0, 25.0), (1.2, 18.0)):
        detail = cv2.GaussianBlur(rng.normal(0, 1, size=(height, width)).astype(np.float32), (0, 0), sigma)
        image += (detail * amplitude / (detail.std() + 1e-6))[..., None]
    return cv2.cvtColor(np.clip(image, 0, 255).astype(np.uint8), cv2.COLOR_RGB2YUV_I420)


def _h264_stream(container: Any, fps: int, options: dict[str, str], size: tuple[int, int] = (WIDTH, HEIGHT)) -> Any:
    """Add a yuv420p H.264 stream of ``size`` (1080p by default) with these x264 options to an open output container."""
    stream = container.add_stream("libx264", rate=fps)
    (stream.width, stream.height), stream.pix_fmt = size, "yuv420p"
    stream.codec_context.time_base = Fraction(1, fps)
    stream.options = options
    return stream


def _encode(container: Any, stream: Any, packed: Any, index: int, fps: int) -> None:
    """Encode one frame given as stacked yuv420p planes and mux its packets."""
    import av

    frame = av.VideoFrame.from_ndarray(packed, format="yuv420p")
    frame.pts, frame.time_base = index, Fraction(1, fps)
    for packet in stream.encode(frame):
        container.mux(packet)


def phase_decode(path: Path, skip_deblocking: bool = False) -> dict[str, Any]:
    """Decode every frame (threaded, as the probes do) and count them; optionally without deblocking."""
    import av

    start = time.perf_counter()
    count = 0
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        if skip_deblocking:
            stream.codec_context.options = {"skip_loop_filter": "all"}
        for _ in container.decode(stream):
            count += 1
    return {"frames": count, "seconds": time.perf_counter() - start}


def phase_probes(path: Path, full_decode: bool = False) -> dict[str, Any]:
    """Run every probe over the whole clip (caps lifted, all else default) and count the frames analysed."""
    from reeljudge.probes import ProbeOptions, probe_signals
    from reeljudge.probes.signals import measure

    options = ProbeOptions.of(max_frames=10**9, max_seconds=1e9, **({"skip_deblock_scale": 0.0} if full_decode else {}))
    start = time.perf_counter()
    signals = measure(path, options)
    results = probe_signals(signals, options, "a test pattern")
    elapsed = time.perf_counter() - start
    return {"frames": signals.count, "seconds": elapsed, "failed": [r.name for r in results if r.gating and not r.passed],
            "decoder_skips": signals.info.decoder_skips}


def phase_floor(path: Path) -> dict[str, Any]:
    """The part of a probe run no faster analysis can drop while its findings stay the same: the
    threaded decode, the scaling to the analysis size, and the DIS optical flow of every consecutive
    pair and every VBench-sampled pair (the flow every motion, shake and flicker finding is read from)."""
    import cv2

    from reeljudge.media.container import open_info, threaded_decoding
    from reeljudge.probes import ProbeOptions
    from reeljudge.probes.signals import _decode_ahead, analysis_size, sample_interval

    options = ProbeOptions.of(max_frames=10**9, max_seconds=1e9)
    cv2.setNumThreads(1)
    dis = cv2.DISOpticalFlow_create(cv2.DISOPTICAL_FLOW_PRESET_ULTRAFAST)  # type: ignore[attr-defined]  # not in its stubs
    start = time.perf_counter()
    container, stream, info = open_info(path)
    threaded_decoding(stream)
    info.analysis_width, info.analysis_height = analysis_size(info.width, info.height, options.analysis.analysis_short_side)
    step = sample_interval(info, options)
    count, previous, sampled = 0, None, None
    frames = _decode_ahead(container, stream, info, options)
    try:
        for _t, packed in frames:
            y = packed[: info.analysis_height]
            if previous is not None:
                dis.calc(previous, y, None)
            if count % step == 0:
                if sampled is not None and step > 1:
                    dis.calc(sampled, y, None)
                sampled = y
            previous, count = y, count + 1
    finally:
        frames.close()
        container.close()
    return {"frames": count, "seconds": time.perf_counter() - start}


PHASES = {
    "floor": phase_floor,
    "decode": lambda path: phase_decode(path),
    "decode_skip": lambda path: phase_decode(path, skip_deblocking=True),
    "probes": lambda path: phase_probes(path),
    "probes_full": lambda path: phase_probes(path, full_decode=True),
}


def _peak_rss_mb(fallback: float) -> float:
    """This process's own peak resident memory in MB (VmHWM; ru_maxrss would include the parent's peak
    before exec, on Linux)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return fallback


def _child(phase: str, path: Path) -> dict[str, Any]:
    """Run one phase in a fresh interpreter; its result plus its own peak RSS and CPU seconds."""
    out = subprocess.run([sys.executable, "-m", "benchmarks.probes", "--phase", phase, str(path)], capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"the {phase} phase on {path.name} stopped (exit {out.returncode}):\n{out.stderr[-2000:]}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    return result | {"fps": result["frames"] / result["seconds"], "cpu_ms": result["cpu_s"] / result["frames"] * 1000}


def _spread(values: list[float]) -> str:
    """Median and range of repeated figures, e.g. ``0.97 (0.95–0.99)``."""
    ordered = sorted(values)
    middle = ordered[len(ordered) // 2]
    return f"{middle:.2f}" + (f" ({ordered[0]:.2f}–{ordered[-1]:.2f})" if len(ordered) > 1 else "")


def measure_clip(name: str, clip: Path, repeat: int, phases: tuple[str, ...]) -> dict[str, Any]:
    """Each phase of one clip, ``repeat`` times interleaved (each ratio from runs side by side); printed and returned."""
    runs: dict[str, list[dict[str, Any]]] = {phase: [] for phase in phases}
    for _ in range(max(1, repeat)):
        for phase in phases:
            runs[phase].append(_child(phase, clip))
    for phase, results in runs.items():
        best = max(results, key=lambda r: r["fps"])
        print(f"[{name}] {phase:<12}: {best['frames']} frames, {_spread([r['fps'] for r in results])} fps, "
              f"{_spread([r['cpu_ms'] for r in results])} ms CPU/frame, peak RSS {max(r['peak_rss_mb'] for r in results):.0f} MB"
              + (f"; gating probes failed: {', '.join(best['failed']) or 'none'}; decoder skipped: "
                 f"{best['decoder_skips'] or 'nothing'}" if "failed" in best else ""))
    ratios = [p["fps"] / d["fps"] for p, d in zip(runs["probes"], runs["decode"])]
    print(f"[{name}] ratio probes/decode fps (per repeat, side by side): {_spread(ratios)}; "
          f"CPU per frame probes/decode: {_spread([p['cpu_ms'] / d['cpu_ms'] for p, d in zip(runs['probes'], runs['decode'])])}",
          flush=True)
    if "floor" in runs:
        _print_ceiling(name, runs)
    peak = max(r["peak_rss_mb"] for r in runs["probes"])
    return {"ratio": sorted(ratios)[len(ratios) // 2], "peak_rss_mb": peak, "runs": runs}


def main(argv: list[str] | None = None) -> int:
    """Print decode-only fps, probes fps, their ratio, CPU per frame and peak RSS for each clip; then the goals."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--seconds-4k", type=float, default=30.0, help="length of the 4K clip (0: leave it out)")
    parser.add_argument("--fps", type=int, default=24)
    parser.add_argument("--repeat", type=int, default=3, help="runs per phase, interleaved; median and range are printed")
    parser.add_argument("--keep", type=Path, help="reuse/keep the generated clips in this folder")
    parser.add_argument("--only", choices=["trivial", "realistic", "4k"], nargs="*", help="measure only these clips")
    parser.add_argument("--phase", choices=sorted(PHASES), help=argparse.SUPPRESS)
    parser.add_argument("clip", nargs="?", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.phase:
        import resource

        result = PHASES[args.phase](args.clip)
        usage = resource.getrusage(resource.RUSAGE_SELF)
        result["peak_rss_mb"] = _peak_rss_mb(usage.ru_maxrss / 1024)
        result["cpu_s"] = usage.ru_utime + usage.ru_stime
        print(json.dumps(result))
        return 0
    clips = {
        "trivial": (lambda path: make_long_clip(path, args.seconds, args.fps), args.seconds, (WIDTH, HEIGHT),
                    ("decode", "probes", "floor")),
        "realistic": (lambda path: make_realistic_clip(path, args.seconds, args.fps), args.seconds, (WIDTH, HEIGHT),
                      ("decode", "probes", "floor")),
        "4k": (lambda path: make_realistic_clip(path, args.seconds_4k, args.fps, (3840, 2160)), args.seconds_4k, (3840, 2160),
               ("decode", "decode_skip", "probes", "probes_full")),
    }
    figures: dict[str, dict[str, Any]] = {}
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores", flush=True)
    with tempfile.TemporaryDirectory(prefix="reeljudge-bench-") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for name, (make, seconds, (w, h), phases) in clips.items():
            if (args.only and name not in args.only) or not seconds:
                continue
            clip = (folder / (f"{name}_{seconds:g}s_1080p{args.fps}.mp4" if name != "4k"
                              else f"realistic_{seconds:g}s_4k{args.fps}.mp4"))
            if not clip.exists():
                t0 = time.perf_counter()
                make(clip)
                print(f"[{name}] generated {clip.name}: {seconds:g} s {w}x{h} @ {args.fps} fps, "
                      f"{clip.stat().st_size / 1e6:.1f} MB ({clip.stat().st_size * 8 / seconds / 1e6:.1f} Mbit/s) "
                      f"in {time.perf_counter() - t0:.0f} s", flush=True)
            figures[name] = measure_clip(name, clip, args.repeat, phases)
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    _print_goals(figures, args.seconds)
    return 0


def _print_ceiling(name: str, runs: dict[str, list[dict[str, Any]]]) -> None:
    """What the CPU per frame allows on this machine's cores: the fastest any run could be, as a ratio
    to decoding alone, for the probes as they are and for the floor (decode, scale, DIS flow)."""
    cores = os.cpu_count() or 1
    median = lambda phase, key: sorted(r[key] for r in runs[phase])[len(runs[phase]) // 2]  # noqa: E731
    decode_fps = median("decode", "fps")
    for phase in ("probes", "floor"):
        ceiling = cores * 1000.0 / median(phase, "cpu_ms")
        print(f"[{name}] CPU ceiling of {phase:<6} on {cores} cores: {median(phase, 'cpu_ms'):.2f} ms CPU/frame -> at most "
              f"{ceiling:.0f} fps = {min(1.0, ceiling / decode_fps):.2f}x decode-alone", flush=True)


def _print_goals(figures: dict[str, dict[str, Any]], seconds: float) -> None:
    """The speed, memory and 4K lines."""
    for name, goal in GOAL_RATIO.items():
        if name in figures:
            ratio = figures[name]["ratio"]
            print(f"speed goal {name}: probes fps >= {goal} x decode-alone fps: {ratio:.2f} -> "
                  f"{'met' if ratio >= goal else 'MISSED'}")
    hd = [f["peak_rss_mb"] for name, f in figures.items() if name != "4k"]
    if hd:
        print(f"memory goal (<= {GOAL_RSS_MB:.0f} MB peak RSS, {seconds / 60:g}-minute 1080p clips): {max(hd):.0f} MB -> "
              f"{'met' if max(hd) <= GOAL_RSS_MB else 'MISSED'}")
    if "4k" in figures:
        runs = figures["4k"]["runs"]
        median = lambda phase, key: sorted(r[key] for r in runs[phase])[len(runs[phase]) // 2]  # noqa: E731
        print(f"4K: skip_loop_filter saves {1 - median('decode_skip', 'cpu_ms') / median('decode', 'cpu_ms'):.0%} "
              f"of the decode's CPU ({median('decode', 'cpu_ms'):.1f} -> {median('decode_skip', 'cpu_ms'):.1f} ms/frame); probes "
              f"{median('probes', 'cpu_ms'):.1f} ms CPU/frame with it, {median('probes_full', 'cpu_ms'):.1f} without; peak RSS "
              f"{figures['4k']['peak_rss_mb']:.0f} MB (decoding alone: {max(r['peak_rss_mb'] for r in runs['decode']):.0f} MB, "
              "FFmpeg's 4K frame buffers)")


if __name__ == "__main__":
    raise SystemExit(main())
