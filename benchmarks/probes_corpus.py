"""Benchmark: the probes' precision and recall per probe over the generated corpus.

    python -m benchmarks.probes_corpus [--variants 0 1 2] [--keep DIR] [--verbose]

Writes the corpus (``support.corpus``: clean hard negatives and one-fault clips, in
three variants that change seed, frame rate, size, fault strength and encoder settings) into a
temporary folder (or ``--keep DIR``, reused when present), runs every probe with default options
on every clip, and counts per gating probe:

* a true positive when the probe fails a clip that carries its fault and reports a frame range
  overlapping the fault's frames (± 2 frames); a failure elsewhere counts as a false alarm *and*
  a miss;
* a false alarm when it fails a clip that does not carry its fault (clean or another fault);
* a miss when it passes a clip that carries its fault.

It prints precision and recall per probe, the clips that failed wrongly or were missed, the
flicker rates found against the rates made, the dynamic-degree property against the clips whose
motion is clear-cut, and the two goals: no clean hard negative fails any probe, every fault
class is found.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # test support: support.*

FAULT_PROBES = ("technical", "black_frames", "frozen_frames", "scene_cuts", "flicker", "camera_shake", "black_and_white")


def probe_corpus(folder: Path, variants: tuple[int, ...]) -> list[dict[str, Any]]:
    """Write the corpus into ``folder`` and probe every clip; one row per clip."""
    from reeljudge.errors import MediaError
    from reeljudge.probes import probe_clip
    from support.corpus import write_corpus

    rows = []
    for variant, clip, path in write_corpus(folder, variants):
        start = time.perf_counter()
        try:
            results = {r.name: r for r in probe_clip(path, prompt=clip.prompt)}
        except MediaError as error:
            results = {"technical": _undecodable(str(error))}
        rows.append({"variant": variant, "clip": clip, "results": results, "seconds": time.perf_counter() - start})
    return rows


def _undecodable(reason: str) -> Any:
    from reeljudge.probes.report import ProbeResult

    return ProbeResult("technical", False, 0.0, reason)


def tally(rows: list[dict[str, Any]]) -> tuple[dict[str, dict[str, int]], list[str]]:
    """Per gating probe: true positives, false alarms, misses, true negatives; and a line per mistake."""
    from support.corpus import found_at

    counts: dict[str, dict[str, int]] = {p: defaultdict(int) for p in FAULT_PROBES}
    mistakes = []
    for row in rows:
        clip, results = row["clip"], row["results"]
        label = f"v{row['variant']} {clip.name}"
        for probe in FAULT_PROBES:
            result = results.get(probe)
            failed = result is not None and result.gating and not result.passed
            expected = [e for e in clip.expected if e.probe == probe]
            if expected and failed and all(found_at(result.details, e) for e in expected):
                counts[probe]["tp"] += 1
            elif expected and failed:
                counts[probe]["fp"] += 1
                counts[probe]["fn"] += 1
                mistakes.append(f"WRONG PLACE {probe} on {label}: {result.reason}")
            elif expected:
                counts[probe]["fn"] += 1
                mistakes.append(f"MISSED {probe} on {label}: {result.reason if result else 'not run'}")
            elif failed:
                counts[probe]["fp"] += 1
                mistakes.append(f"FALSE ALARM {probe} on {label} ({clip.group}): {result.reason}")
            else:
                counts[probe]["tn"] += 1
    return counts, mistakes


def _ratio(num: int, den: int) -> str:
    return f"{num / den:.2f}" if den else "  – "


def print_table(counts: dict[str, dict[str, int]]) -> None:
    """Precision and recall per probe."""
    print(f"{'probe':<18} {'TP':>4} {'FP':>4} {'FN':>4} {'TN':>4}  {'precision':>9} {'recall':>6}")
    for probe, c in counts.items():
        tp, fp, fn, tn = c["tp"], c["fp"], c["fn"], c["tn"]
        print(f"{probe:<18} {tp:>4} {fp:>4} {fn:>4} {tn:>4}  {_ratio(tp, tp + fp):>9} {_ratio(tp, tp + fn):>6}")


def flicker_rates(rows: list[dict[str, Any]]) -> list[str]:
    """Made versus reported flicker rates, one line per periodic flicker clip."""
    lines = []
    for row in rows:
        made = [e.hz for e in row["clip"].expected if e.probe == "flicker" and e.hz]
        if not made:
            continue
        runs = row["results"]["flicker"].details.get("runs", [])
        found = [r.get("hz") for r in runs]
        ok = any(f is not None and abs(f - made[0]) <= 0.2 * made[0] for f in found)
        lines.append(f"v{row['variant']} {row['clip'].name:<22} made {made[0]:>5.1f} Hz  reported {found}  "
                     f"{'ok' if ok else 'WRONG'}")
    return lines


def motion_property(rows: list[dict[str, Any]]) -> tuple[int, int, list[str]]:
    """Dynamic degree's ``moves`` against the clips whose motion is clear-cut: (right, judged, wrong lines)."""
    right = judged = 0
    wrong = []
    for row in rows:
        truth = row["clip"].moves
        if truth is None or "dynamic_degree" not in row["results"]:
            continue
        judged += 1
        moves = row["results"]["dynamic_degree"].details.get("moves")
        right += moves == truth
        if moves != truth:
            wrong.append(f"v{row['variant']} {row['clip'].name}: moves={moves}, expected {truth}")
    return right, judged, wrong


def goals(rows: list[dict[str, Any]], counts: dict[str, dict[str, int]]) -> list[str]:
    """The done-when checks: clean clips pass every probe; every fault class is found in every variant."""
    from support.corpus import found_at

    clean_failures = [
        f"v{r['variant']} {r['clip'].name}: {', '.join(n for n, x in r['results'].items() if x.gating and not x.passed)}"
        for r in rows
        if r["clip"].group == "clean" and any(x.gating and not x.passed for x in r["results"].values())
    ]
    missed = sorted(
        {
            r["clip"].name
            for r in rows
            for e in r["clip"].expected
            if r["results"].get(e.probe) is None or r["results"][e.probe].passed or not found_at(r["results"][e.probe].details, e)
        }
    )
    clean = sum(1 for r in rows if r["clip"].group == "clean")
    classes = {r["clip"].name for r in rows if r["clip"].group == "fault"}
    return [
        f"no clean hard negative fails a probe: {clean - len(clean_failures)}/{clean} clean clips pass -> "
        + ("met" if not clean_failures else "MISSED (" + "; ".join(clean_failures) + ")"),
        f"every fault class found (every variant, right frames): {len(classes) - len(missed)}/{len(classes)} classes -> "
        + ("met" if not missed else "MISSED (" + ", ".join(missed) + ")"),
    ]


def main(argv: list[str] | None = None) -> int:
    """Generate (or reuse) the corpus, probe it, print the per-probe table and the goals."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", type=int, nargs="*", default=[0, 1, 2])
    parser.add_argument("--keep", type=Path, help="write (or reuse) the corpus in this folder")
    parser.add_argument("--verbose", action="store_true", help="print every clip's failing probes")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="reeljudge-corpus-") as tmp:
        folder = args.keep or Path(tmp)
        t0 = time.perf_counter()
        rows = probe_corpus(folder, tuple(args.variants))
        elapsed = time.perf_counter() - t0
    clean = sum(1 for r in rows if r["clip"].group == "clean")
    print(f"corpus: {len(rows)} clips ({clean} clean hard negatives, {len(rows) - clean} with a fault), "
          f"variants {args.variants}, made and probed in {elapsed:.0f} s")
    if args.verbose:
        for row in rows:
            failed = {n: r.reason for n, r in row["results"].items() if r.gating and not r.passed}
            print(f"  v{row['variant']} {row['clip'].name:<22} {row['clip'].group:<5} failed: {failed or '-'}")
    counts, mistakes = tally(rows)
    print_table(counts)
    for line in mistakes:
        print("  " + line)
    print("flicker rates:")
    for line in flicker_rates(rows):
        print("  " + line)
    right, judged, wrong = motion_property(rows)
    print(f"dynamic degree (a property, never a failure by default): right on {right}/{judged} clear-cut clips")
    for line in wrong:
        print("  " + line)
    for line in goals(rows, counts):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
