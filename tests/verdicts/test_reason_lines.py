"""How a verdict reads in promptfoo's viewer: a failing cell shows its whole reason in red, so
its failing parts come first and the parts that are checks say whether they passed; a failed list's
line never says GOOD or EXCELLENT beside FAIL."""

from __future__ import annotations

from reeljudge.filmability.judge import FilmabilityVerdict
from reeljudge.filmability.score_table import Breakdown, score_breakdown
from reeljudge.promptfoo.results import grading_result
from reeljudge.probes.report import ProbeResult, ProbesVerdict
from reeljudge.promptfoo.results import verdict_result


def _verdict(relevance: int, filmability: int, variety: int, **extra) -> FilmabilityVerdict:
    b = Breakdown(relevance, filmability, variety)
    return FilmabilityVerdict(["a", "b"], b, score_breakdown(b), extra.pop("threshold", 0.8), "local", **extra)


def test_a_failed_list_never_reads_good_or_excellent_beside_fail():
    off_topic = _verdict(0, 3, 1, min_relevance=1)  # 4 points: 0.8 GOOD by the table alone
    assert not off_topic.passed and off_topic.score == 0.8
    line = grading_result(passed=off_topic.passed, score=off_topic.score, reason=off_topic.reason())["reason"]
    assert line.startswith("FAIL 0.8 off-topic (threshold 0.8; local judge)") and "GOOD" not in line and "EXCELLENT" not in line
    strict = _verdict(3, 3, 1, threshold=1.01)
    assert strict.reason().startswith("1.0 under the threshold (threshold 1.01")
    assert _verdict(0, 1, 0).reason().startswith("0.3 POOR") and _verdict(3, 2, 1).reason().startswith("1.0 EXCELLENT")


def test_a_failing_cell_lists_its_failing_checks_first_and_marks_the_passing_ones():
    parts = {"flicker": "no flicker", "black_frames": "frames 0-47 black", "technical": "24 fps", "cuts": "no cut"}
    status = {"flicker": True, "black_frames": False, "cuts": True}
    failing = grading_result(passed=False, score=0.0, reason="2 of 3", breakdown=parts, part_status=status)["reason"].splitlines()
    assert (failing
            == ["FAIL 2 of 3", "✗ black_frames: frames 0-47 black", "✓ flicker: no flicker",
                "technical: 24 fps", "✓ cuts: no cut"])
    passing = grading_result(passed=True, score=1.0, reason="ok", breakdown=parts, part_status={k: True for k in status})
    assert passing["reason"].splitlines()[1:] == ["✓ flicker: no flicker", "✓ black_frames: frames 0-47 black",
                                                  "technical: 24 fps",
                                                 "✓ cuts: no cut"]
    assert passing["metadata"]["breakdown"] == parts  # the parts' own texts, unmarked, for the gate and exports


def test_the_probes_result_marks_each_probe_and_leaves_reported_ones_unmarked():
    results = [ProbeResult("flicker", True, 1.0, "no flicker"), ProbeResult("black_frames", False, 0.1, "48 black frames"),
               ProbeResult("dynamic_degree", True, 0.5, "moves", gating=False)]
    reason = verdict_result(ProbesVerdict(results, None, clip="clip.mp4"))["reason"].splitlines()
    assert reason[1] == "✗ black_frames: 48 black frames" and reason[2] == "✓ flicker: no flicker"
    assert reason[3].startswith("dynamic_degree: (reported, not checked)")
