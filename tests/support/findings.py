"""Every probe finding on the probes corpus and the example clips, as data a test compares against.

``PYTHONPATH=tests python -m support.findings write FILE`` probes corpus variants 0–2 and every clip in
``datasets/clips`` and writes, per clip, every probe's verdict, score, reason and details, the
clip's decode facts, and a summary of each per-frame signal series (count, mean, spread, minimum,
median, maximum; thumbnails by their per-frame mean). ``check FILE`` does the same and lists every
difference: verdicts, reasons, frames, times and decode facts exactly, scores, measured amounts,
byte sizes and signal summaries within the tolerances of ``support.tolerance``, so the
reference holds on any machine while a changed rule or measurement still shows.

``rewrite-findings FILE`` rewrites only the findings, and only when every decode fact and signal
summary still matches: a later change to a probe's logic (not to the measurements) can update its
findings while the test still proves the signals are those of the reference. Clips new to the
corpus (none in the reference) are added with the findings and signals of the code that rewrites
them. How far the values move under other thread and CPU settings is measured by
``support.findings_spread``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any, Iterator

from support.corpus import PROMPT, REPO, write_corpus
from support.tolerance import differences

CLIPS_DIR = REPO / "datasets" / "clips"
VARIANTS = (0, 1, 2)


def _summary(values: Any) -> dict[str, float]:
    """Count, mean, standard deviation, minimum, median and maximum of a series (6 significant digits)."""
    import numpy as np

    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        return {"count": 0}
    stats = {"mean": x.mean(), "sd": x.std(), "min": x.min(), "median": float(np.median(x)), "max": x.max()}
    return {"count": int(x.size), **{name: float(f"{value:.6g}") for name, value in stats.items()}}


#: per-pair evidence the analysis weighs rather than a measurement of the picture: decisions (realigned,
#: one_way) and the correlated shift, whose extremes on cut and black pairs are the position of noise
NOT_SUMMARISED = {"realigned", "one_way", "shift_x", "shift_y", "shift_peak", "shift_rival"}


def signal_summaries(signals: Any) -> dict[str, Any]:
    """A summary per per-frame series of a Signals (thumbnails by their mean; not the ``NOT_SUMMARISED``
    evidence), plus the dynamic-degree pairs."""
    out: dict[str, Any] = {}
    for name, values in sorted(vars(signals).items()):
        if name == "info" or name in NOT_SUMMARISED or not isinstance(values, list):
            continue
        if name == "thumbs":
            values = [float(thumb.mean()) for thumb in values]
        elif name == "dd_pairs":
            values = [flow for _, _, flow in values]
        out[name] = _summary(values)
    out["dd_interval"] = signals.dd_interval
    return out


def clip_findings(path: Path, prompt: str) -> dict[str, Any]:
    """Every probe's finding on one clip, its decode facts and its signal digests (or the media error)."""
    from reeljudge.errors import MediaError
    from reeljudge.probes import ProbeOptions, probe_signals
    from reeljudge.probes.signals import measure

    options = ProbeOptions()
    try:
        signals = measure(path, options)
    except MediaError as error:
        return {"error": str(error).replace(str(path), path.name)}
    results = probe_signals(signals, options, prompt)
    found = {r.name: {"passed": r.passed, "score": r.score, "gating": r.gating, "reason": r.reason, "details": r.details}
             for r in results}
    return {"info": signals.info.as_metadata(), "findings": _plain(found), "signals": signal_summaries(signals)}


def _plain(value: Any) -> Any:
    """A JSON round trip, so stored and fresh findings compare alike (tuples as lists, numpy scalars as numbers)."""
    return json.loads(json.dumps(value, default=lambda v: v.item() if hasattr(v, "item") else str(v)))


def every_clip(folder: Path, variants: tuple[int, ...] = VARIANTS) -> Iterator[tuple[str, Path, str]]:
    """(key, path, prompt) for every corpus clip of these variants (written into ``folder``) and example clip."""
    for variant, clip, path in write_corpus(folder, variants):
        yield f"v{variant}_{clip.name}", path, clip.prompt
    for path in sorted(CLIPS_DIR.glob("*.mp4")):
        yield f"example_{path.stem}", path, PROMPT


def all_findings(folder: Path, variants: tuple[int, ...] = VARIANTS) -> dict[str, Any]:
    """Findings of every clip of these variants and every example clip, keyed by clip."""
    return {key: clip_findings(path, prompt) for key, path, prompt in every_clip(folder, variants)}


def write(path: Path, table: dict[str, Any]) -> None:
    """Store a findings table as JSON, one clip a line."""
    lines = [f"{json.dumps(key)}: {json.dumps(table[key], sort_keys=True, separators=(',', ':'))}" for key in sorted(table)]
    path.write_text("{\n" + ",\n".join(lines) + "\n}\n")


def main(argv: list[str] | None = None) -> int:
    """Write, check or rewrite-findings of a reference file."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=["write", "check", "rewrite-findings"])
    parser.add_argument("file", type=Path)
    parser.add_argument("--corpus", type=Path, help="write (or reuse) the corpus clips here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="reeljudge-findings-") as tmp:
        fresh = all_findings(args.corpus or Path(tmp))
    if args.action == "write":
        write(args.file, fresh)
        return 0
    reference = json.loads(args.file.read_text())
    lines = differences(reference, fresh)
    if args.action == "rewrite-findings":
        changed = [line for line in lines if " signals." in line or " info." in line or line.endswith("only in reference")]
        if changed:
            print("\n".join(["signals differ; findings not rewritten:", *changed]))
            return 1
        added = sorted(set(fresh) - set(reference))
        if added:
            print("clips new to the corpus, added with today's findings and signals: " + ", ".join(added))
        write(args.file, fresh)
        return 0
    print("\n".join(lines) or "every finding and signal equals the reference")
    return 1 if lines else 0


if __name__ == "__main__":
    raise SystemExit(main())
