"""The comment's words: the headline names the suite that decided (every suite when all passed); a suite
that did not pass says its own cause on its line; flip reasons keep the verdict line without what every test says."""

from __future__ import annotations

from reeljudge.gates.compare import compare_results
from reeljudge.gates.gatefile import GateSettings
from reeljudge.gates.markdown import flip_reason, render
from reeljudge.gates.results import parse_results
from reeljudge.gates.run import Comparison
from support.results_fixtures import OFFLINE, RunSpec, make_results

FOUR = RunSpec(n_tests=4, judge=OFFLINE, noise=0.0, seed=1, threshold=0.0)


def _suite(name: str, base: RunSpec, cand: RunSpec):
    return compare_results(parse_results(make_results(base)), parse_results(make_results(cand)), GateSettings(), name)


def test_a_passing_headline_names_every_suite_not_one_at_random():
    comparison = Comparison([_suite("ab", FOUR, FOUR), _suite("filmability", FOUR, FOUR), _suite("probes", FOUR, FOUR)])
    first = render(comparison).splitlines()[1]
    assert first == ("## reeljudge gate: ✅ passed — ab, filmability, probes: no gated metric dropped beyond its tolerance "
                     "and no test newly fails")


def test_a_clip_no_longer_judged_says_max_unjudged_on_its_suites_line():
    """The issue's case: a missing clip in one of four tests; no metric moved and no test newly failed, yet red."""
    missing = RunSpec(n_tests=4, judge=OFFLINE, noise=0.0, seed=1, threshold=0.0, not_judged=(2,))
    comparison = Comparison([_suite("ab", FOUR, FOUR), _suite("probes", FOUR, missing)])
    lines = render(comparison).splitlines()
    assert lines[1].startswith("## reeljudge gate: ❌ regression — probes: 1 test(s) judged in the base are not judged")
    cause = next(line for line in lines if line.startswith("- **probes**: ❌ regression because "))
    assert "1 test(s) judged in the base are not judged in the candidate (max_unjudged 0)" in cause
    assert lines.index(cause) < next(i for i, line in enumerate(lines) if line.startswith("- **probes** · "))
    assert any(line.startswith("- **ab** · generator-a: ✅ passed") for line in lines)
    probes = next(line for line in lines if line.startswith("- **probes** · generator-a: "))
    # its metrics and flips are fine: the cause is above
    assert "✅ passed" in probes and "0 of 3 paired tests newly fail" in probes


def test_flip_reasons_keep_the_verdict_line_and_its_first_failing_check_without_boilerplate():
    reason = ("FAIL 0.3 POOR (threshold 0.8; local judge): relevance 1/3, filmability 0/3, variety 0/1 = 1/7. unfilmable: "
              "efficiency, quality. findability not checked: Pexels not asked: no PEXELS_API_KEY in the environment; Pixabay "
              "not asked: no PIXABAY_API_KEY in the environment\nfilm_relevance: 1/3. loosely related")
    assert flip_reason(reason) == ("FAIL 0.3 POOR (threshold 0.8; local judge): relevance 1/3, filmability 0/3, "
                                   "variety 0/1 = 1/7. unfilmable: efficiency, quality")
    probes = ("FAIL video probes on clip.mp4: 1 of 9 checks failed; FAIL black_frames: 48 black frames\n"
              "✓ flicker: none\n✗ black_frames: 48")
    assert flip_reason(probes) == ("FAIL video probes on clip.mp4: 1 of 9 checks failed; FAIL black_frames: 48 black frames · "
                                   "✗ black_frames: 48")
    passing = "PASS 1.0 EXCELLENT (threshold 0.8; local judge): relevance 3/3. no unfilmable terms"
    assert flip_reason(passing) == "PASS 1.0 EXCELLENT (threshold 0.8; local judge): relevance 3/3"
