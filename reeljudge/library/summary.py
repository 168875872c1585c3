"""The end-of-run report of a library probe run: faults found per probe, and clips that failed to probe."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from reeljudge.library.run import RunStats


@dataclass
class LibrarySummary:
    """Per-probe fault counts over the library's latest records, and the clips with errors."""

    probes: Sequence[str]
    probed: int = 0
    faulty: int = 0
    fault_counts: Counter[str] = field(default_factory=Counter)
    errors: list[tuple[str, str, str]] = field(default_factory=list)  # (ref, kind, message)

    @property
    def ok(self) -> bool:
        """True when every clip of the library was probed (faults found do not count against it)."""
        return not self.errors


def summarise(records: Iterable[dict[str, Any]], refs: set[str], probes: Sequence[str],
              options_hash: str, code_hash: str) -> LibrarySummary:
    """The summary of the latest record of each of ``refs`` made with these options and probes."""
    latest: dict[str, dict[str, Any]] = {}
    for record in records:
        if record.get("ref") in refs and record.get("options_hash") == options_hash and record.get("probes_code") == code_hash:
            latest[record["ref"]] = record
    summary = LibrarySummary(probes=probes)
    for ref in sorted(latest):
        record = latest[ref]
        if record.get("status") == "error":
            error = record.get("error") or {}
            summary.errors.append((ref, str(error.get("kind", "error")), str(error.get("message", ""))))
            continue
        summary.probed += 1
        faults = record.get("faults") or []
        summary.faulty += bool(faults)
        summary.fault_counts.update(faults)
    return summary


def report_lines(summary: LibrarySummary, stats: RunStats, library: str, unit: str = "clip", max_errors: int = 50) -> list[str]:
    """The printed report: the run, a table of faults per probe, and the clips that could not be probed."""
    lines = [
        f"{library}: {stats.items} {unit}s; {stats.engine}",
        f"this run: {stats.written - stats.errors} probed, {stats.done_before} already done, "
        f"{stats.errors} could not be probed, {len(stats.duplicates)} same content as another {unit} "
        f"({stats.elapsed_s:.1f} s, {stats.rate:.2f} {unit}s/s)",
    ]
    for ref, first in stats.duplicates[:10]:
        lines.append(f"  {ref}: same content as {first}, recorded once")
    width = max([len("probe")] + [len(p) for p in summary.probes])
    share = lambda n: f"{100.0 * n / summary.probed:5.1f}%" if summary.probed else "    -"  # noqa: E731
    lines.append(f"faults found in {summary.faulty} of {summary.probed} {unit}s probed:")
    lines.append(f"  {'probe':<{width}}  {unit}s failed  share")
    for probe in summary.probes:
        n = summary.fault_counts.get(probe, 0)
        lines.append(f"  {probe:<{width}}  {n:>{len(unit) + 7}}  {share(n)}")
    if summary.errors:
        lines.append(f"could not be probed ({len(summary.errors)}):")
        for ref, kind, message in summary.errors[:max_errors]:
            lines.append(f"  {message if message.startswith(ref) else ref + ': ' + message} ({kind})")
        if len(summary.errors) > max_errors:
            lines.append(f"  … and {len(summary.errors) - max_errors} more (status \"error\" in the output)")
    return lines
