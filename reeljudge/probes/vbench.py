"""VBench's temporal-flickering score, for reference: (255 − mean abs diff of consecutive frames) / 255."""

from __future__ import annotations

from reeljudge.probes.report import ProbeResult
from reeljudge.probes.signals import Signals


def probe_vbench_flicker(signals: Signals) -> ProbeResult:
    """VBench temporal flickering on analysis-size luma; meaningful for static scenes; never gates."""
    diffs = signals.diff_mean[1:]
    if not diffs:
        return ProbeResult("vbench_temporal_flickering", False, 0.0, "needs at least two frames", gating=False)
    value = sum((255.0 - d) / 255.0 for d in diffs) / len(diffs)
    return ProbeResult(
        "vbench_temporal_flickering",
        True,
        value,
        f"{value:.4f} over {len(diffs)} frame pairs (reference only; meant for static scenes)",
        gating=False,
        details={"pairs": len(diffs)},
    )
