"""Benchmark: the probes on the texture corpus (repeating surfaces, slow pans, faults planted in them).

    python -m benchmarks.probes_textures [--split train test] [--keep DIR] [--verbose] [--markdown]

Writes the clips of ``reeljudge.synth.texture_corpus`` (the ``real_*`` families from the committed
Big Buck Bunny excerpt) into a temporary folder (or ``--keep DIR``, reused when present), runs every
probe with default options, and prints per split: true positives, false alarms, misses per probe
(as ``benchmarks.probes_corpus`` counts them: a fault counts where the probe names frames
overlapping it, ± 2), every mistake with its reason, a table of the clean clips per family and
camera motion (how many of the split's settings pass), where the planted faults were found, and
the two goals: no clean clip fails a probe, every planted fault is found at its frames.
``--markdown`` prints the tables as Markdown (docs/probes.md holds the test split's).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # test support: support.*

EXCERPT = Path(__file__).resolve().parents[1] / "datasets" / "clips" / "bbb_excerpt.mp4"  # CC BY 3.0
MOTIONS = ("pan0.5", "pan1", "pan1.5", "pan2", "pan3", "pan4", "alias", "tilt", "zoom", "rotate")


def probe_split(folder: Path, split: str) -> list[dict[str, Any]]:
    """Write one split into ``folder`` and probe every clip; one row per clip (as ``probes_corpus`` rows)."""
    from reeljudge.errors import MediaError
    from reeljudge.probes import probe_clip
    from reeljudge.probes.report import ProbeResult
    from reeljudge.synth.texture_corpus import write_texture_corpus

    rows = []
    for clip, path in write_texture_corpus(folder / split, (split,), EXCERPT):  # type: ignore[arg-type]
        try:
            results = {r.name: r for r in probe_clip(path, prompt=clip.prompt)}
        except MediaError as error:
            results = {"technical": ProbeResult("technical", False, 0.0, str(error))}
        row_clip = SimpleNamespace(name=clip.name, group=clip.group, expected=clip.planted, family=clip.family, what=clip.what)
        rows.append({"variant": split, "clip": row_clip, "results": results})
    return rows


def motion_of(name: str) -> str:
    """The camera motion a clean clip's name says (``A_bricks_pan1.5_ball`` → ``pan1.5``)."""
    for part in name.split("_"):
        if part in MOTIONS:
            return part
    return "fault"


def failed(row: dict[str, Any]) -> list[str]:
    """The gating probes that failed on a row's clip."""
    return [n for n, r in row["results"].items() if r.gating and not r.passed]


def clean_table(rows: list[dict[str, Any]], markdown: bool) -> list[str]:
    """Per family and camera motion: how many of the split's clean clips pass every probe (``2/2``)."""
    families = list(dict.fromkeys(r["clip"].family for r in rows))
    cells: dict[tuple[str, str], list[bool]] = {}
    for row in rows:
        if row["clip"].group == "clean":
            cells.setdefault((row["clip"].family, motion_of(row["clip"].name)), []).append(not failed(row))
    sep = " | " if markdown else " "
    head = sep.join(["family".ljust(13)] + [m.rjust(6) for m in MOTIONS])
    lines = [f"| {head} |" if markdown else head]
    if markdown:
        lines.append("|" + "---|" * (len(MOTIONS) + 1))
    for family in families:
        marks = []
        for motion in MOTIONS:
            done = cells.get((family, motion), [])
            marks.append(f"{sum(done)}/{len(done)}".rjust(6) if done else "–".rjust(6))
        line = sep.join([family.ljust(13)] + marks)
        lines.append(f"| {line} |" if markdown else line)
    return lines


def fault_lines(rows: list[dict[str, Any]]) -> list[str]:
    """One line per planted fault: where it was planted and what the probe reported."""
    from support.corpus import detected_ranges, found_at

    lines = []
    for row in rows:
        for planted in row["clip"].expected:
            result = row["results"].get(planted.probe)
            ok = result is not None and not result.passed and found_at(result.details, planted)
            extra = [n for n in failed(row) if n != planted.probe]
            where = detected_ranges(result.details) if result is not None else []
            lines.append(f"{'found ' if ok else 'MISSED'} {row['clip'].name:<28} {planted.probe:<13} planted "
                         f"{planted.start}–{planted.end}, reported {where or ('(whole clip)' if ok else '-')}"
                         + (f"; ALSO FAILED {extra}" if extra else ""))
    return lines


def main(argv: list[str] | None = None) -> int:
    """Probe the chosen splits and print the tables, the mistakes and the goals."""
    from benchmarks.probes_corpus import goals, print_table, tally

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", nargs="*", choices=["train", "test"], default=["train", "test"])
    parser.add_argument("--keep", type=Path, help="write (or reuse) the clips in this folder")
    parser.add_argument("--verbose", action="store_true", help="print every planted fault's finding")
    parser.add_argument("--markdown", action="store_true", help="print the clean-clip table as Markdown")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="reeljudge-textures-") as tmp:
        folder = args.keep or Path(tmp)
        for split in args.split:
            t0 = time.perf_counter()
            rows = probe_split(folder, split)
            clean = sum(1 for r in rows if r["clip"].group == "clean")
            print(f"\n== {split}: {len(rows)} clips ({clean} clean, {len(rows) - clean} with a planted fault), "
                  f"made and probed in {time.perf_counter() - t0:.0f} s")
            counts, mistakes = tally(rows)
            print_table(counts)
            for line in mistakes:
                print("  " + line)
            print("clean clips passing every probe, per family and camera motion (settings passing / settings):")
            for line in clean_table(rows, args.markdown):
                print("  " + line)
            faults = fault_lines(rows)
            for line in faults if args.verbose else [f for f in faults if not f.startswith("found ") or "ALSO" in f]:
                print("  " + line)
            for line in goals(rows, counts):
                print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
