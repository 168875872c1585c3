"""``benchmarks/probes.py`` runs, in a smoke size: every phase of every clip (decode, the probes, the floor,
the 4K clip's decode without deblocking and its full-decode probes) and the goal lines.

The benchmark died in its floor phase once (it read an option the grouping of the thresholds had moved:
``options.analysis_short_side``) and nothing ran it; this runs it whole, on clips of half a second
(4K: a quarter), each phase once. Marked slow: it encodes a 4K clip and starts ten interpreters.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.paths import ROOT

pytestmark = pytest.mark.slow


def test_the_probes_benchmark_runs_every_phase_of_every_clip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks import probes

    monkeypatch.chdir(ROOT)  # each phase runs in a child ``python -m benchmarks.probes``
    assert probes.main(["--seconds", "0.5", "--seconds-4k", "0.25", "--repeat", "1", "--keep", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for clip, phases, frames in (("trivial", ("decode", "probes", "floor"), 12), ("realistic", ("decode", "probes", "floor"), 12),
                                 ("4k", ("decode", "decode_skip", "probes", "probes_full"), 6)):
        for phase in phases:
            assert f"[{clip}] {phase:<12}: {frames} frames, " in out, (clip, phase, out)
    assert "[trivial] CPU ceiling of floor " in out and "[realistic] CPU ceiling of floor " in out
    assert "speed goal realistic: " in out and "memory goal " in out and "4K: skip_loop_filter saves " in out
    assert "decoder skipped: skip_loop_filter" in out  # the 4K probes skipped deblocking, as the probes do at 4K
    assert sorted(p.name for p in tmp_path.glob("*.mp4")) == ["realistic_0.25s_4k24.mp4", "realistic_0.5s_1080p24.mp4",
                                                              "trivial_0.5s_1080p24.mp4"]
