"""The gate's three verdicts and their exit codes, the detectable-drop figure, verdict flips, like with like."""

from __future__ import annotations

import json
import math

import pytest

from reeljudge.cli import main
from reeljudge.errors import BadInputError
from reeljudge.gates import verdicts as V
from reeljudge.gates.compare import compare_results
from reeljudge.gates.flips import flip_limit
from reeljudge.gates.gatefile import GateSettings, gate_from_mapping
from reeljudge.gates.markdown import MARKER, render
from reeljudge.gates.results import CannotCompare, parse_results
from reeljudge.gates.run import Comparison, compare_paths
from reeljudge.identity import RecordedOptions
from reeljudge.options import verdict_options
from reeljudge.filmability.options import FilmabilityOptions
from support.results_fixtures import LIVE_GEMINI, OFFLINE, RunSpec, make_results, write_results

SIX = RunSpec(n_tests=6, judge=OFFLINE, noise=0.0, seed=1)


def _set_scores(data: dict, scores: dict[int, float], threshold: float = 0.6) -> dict:
    """Set the score (and every named score) of the given tests, and their pass by ``threshold``."""
    for row in data["results"]["results"]:
        t = row["testIdx"]
        if t in scores:
            value = scores[t]
            row["score"] = row["gradingResult"]["score"] = value
            row["namedScores"] = {k: value for k in row["namedScores"]}
            row["gradingResult"]["namedScores"] = dict(row["namedScores"])
            row["success"] = row["gradingResult"]["pass"] = value >= threshold
            row["gradingResult"]["reason"] = f"{'PASS' if value >= threshold else 'FAIL'} {value:.2f} (edited)"
    return data


def _report(base: dict, cand: dict, **gate):
    settings = gate_from_mapping(gate) if gate else GateSettings()
    return compare_results(parse_results(base), parse_results(cand), settings, "film")


def test_the_detectable_drop_is_tolerance_plus_z_times_the_standard_error_by_hand():
    diffs = [-0.7, -0.7, 0.0, 0.0, 0.0, 0.0]
    # by hand: mean −0.23333; squared deviations 2 × 0.21778 + 4 × 0.05444 = 0.65333; / (6 − 1) = 0.13067;
    # s = 0.36148; s / √6 = 0.14757; × 1.95996 = 0.28924; + tolerance 0.02 = 0.30924
    assert V.detectable_drop(diffs, 0.02, 0.95) == pytest.approx(0.30924, abs=5e-5)
    assert (V.evidence_text(6, V.detectable_drop(diffs, 0.02, 0.95))
            == "6 paired tests: drops smaller than 0.31 cannot be told from noise")
    # NaN: one test
    assert V.detectable_drop([0.1, float("nan")], 0.02, 0.95) != V.detectable_drop([0.1, float("nan")], 0.02, 0.95)
    assert V.detectable_drop([0.0] * 10, 0.05, 0.9) == 0.05  # no spread: only the tolerance
    assert V.normal_quantile(0.9) == pytest.approx(1.644854, abs=1e-6)


@pytest.mark.parametrize(("low", "high", "verdict"), [(-0.2, -0.05, "regression"), (-0.2, 0.1, "inconclusive"),
                                                       (-0.019, 0.3, "ok"), (0.03, 0.3, "improved"), (-0.02, 0.0, "ok")])
def test_a_metric_is_inconclusive_when_its_interval_straddles_minus_tolerance(low, high, verdict):
    assert V.metric_verdict(low, high, 0.02) == verdict


def test_each_verdict_has_its_own_exit_code(tmp_path, capsys):
    base = write_results(tmp_path / "base.json", RunSpec(seed=1))
    same = write_results(tmp_path / "same.json", RunSpec(seed=1))
    worse = write_results(tmp_path / "worse.json", RunSpec(seed=2, effects={"film_relevance": -0.1}))
    small = RunSpec(n_tests=6, judge=OFFLINE, noise=0.0)
    write_results(tmp_path / "small.json", small)
    (tmp_path / "noisy.json").write_text(json.dumps(_set_scores(make_results(small), {2: 0.62, 4: 0.7})))
    other = write_results(tmp_path / "other.json", RunSpec(seed=1, judge=OFFLINE))
    warn = tmp_path / "warn.yaml"
    warn.write_text("on_inconclusive: warn\n")
    cases = [(base, same, 0, "passed"), (base, worse, 1, "regression"), (base, other, 2, "could not compare"),
             (tmp_path / "small.json", tmp_path / "noisy.json", 3, "inconclusive")]
    for b, c, code, verdict in cases:
        js = tmp_path / "gate.json"
        assert main(["compare", str(b), str(c), "--json", str(js), "-q"]) == code, (c.name, capsys.readouterr().err)
        assert json.loads(js.read_text())["verdict"] == verdict
    assert main(["compare", str(tmp_path / "small.json"), str(tmp_path / "noisy.json"), "--gate", str(warn), "-q"]) == 0
    assert "inconclusive (exit 0)" in capsys.readouterr().err
    assert (V.exit_code("passed"), V.exit_code("regression"), V.exit_code("could not compare"),
            V.exit_code("inconclusive")) == (0, 1, 2, 3)
    assert V.worst([]) == "could not compare" and V.worst(["passed", "inconclusive"]) == "inconclusive"


def test_six_tests_with_two_newly_failing_fail_by_max_newly_failing_with_both_reasons():
    base = _set_scores(make_results(SIX), {i: 1.0 for i in range(6)})
    cand = _set_scores(make_results(SIX), {**{i: 1.0 for i in range(6)}, 1: 0.3, 4: 0.3})
    report = _report(base, cand)
    assert report.verdict == "regression" and report.exit_code == 1
    [group] = report.flips
    assert group.deterministic and group.limit == 0 and group.too_many_failing
    assert [f.label for f in group.flips] == ["narration-00001 [generator-a]", "narration-00004 [generator-a]"]
    assert group.flips[0].base_reason == "PASS 1.00 (edited)" and group.flips[0].candidate_reason == "FAIL 0.30 (edited)"
    assert "2 of 6 paired tests newly fail (max_newly_failing 0: offline or replayed judge" in report.reasons()[0]
    text = render(Comparison([report]))
    first = text.splitlines()[1]
    assert first.startswith("## reeljudge gate: ❌ regression — film: generator-a: 2 of 6 paired tests newly fail")
    assert "6 paired tests: drops smaller than" in text and "| newly failing | PASS 1.00 (edited) | FAIL 0.30 (edited) |" in text
    assert _report(base, cand, max_newly_failing=2).verdict != "regression"  # the gate file may allow them


def test_a_small_noisy_drop_without_flips_is_inconclusive_not_passed():
    base = _set_scores(make_results(SIX), {i: 0.9 for i in range(6)})
    cand = _set_scores(make_results(SIX), {**{i: 0.9 for i in range(6)}, 0: 0.8})  # one test a little worse, still passing
    report = _report(base, cand)
    assert not report.flips[0].flips and report.verdict == "inconclusive" and report.exit_code == 3
    score = next(r for r in report.rows if r.metric == "score")
    assert score.verdict == "inconclusive" and score.difference.low < -0.02 <= score.difference.high
    assert "straddles −0.02: cannot tell" in report.reasons()[0]
    assert render(Comparison([report])).splitlines()[1].startswith("## reeljudge gate: ❔ inconclusive (blocking) — film:")


def test_an_unchanged_candidate_passes():
    report = _report(make_results(SIX), make_results(SIX))
    assert report.verdict == "passed" and report.exit_code == 0 and not report.flips[0].flips


def test_a_live_judges_flips_are_held_against_the_reverse_flips_by_a_sign_test():
    settings = GateSettings()
    assert flip_limit(settings, 0, deterministic=False)[0] == 3  # F ≤ 1.96·√F  ⇔  F ≤ 3.84
    assert flip_limit(settings, 6, deterministic=False)[0] == 14  # 8 ≤ 1.96·√20 = 8.77; 9 > 1.96·√21 = 8.98
    assert flip_limit(settings, 6, deterministic=True) == (0, "offline or replayed judge: a flip is a fact, not noise")
    assert flip_limit(gate_from_mapping({"max_newly_failing": 5}), 0, deterministic=True)[0] == 5
    live = RunSpec(n_tests=6, noise=0.0)  # the live Gemini identity
    base = _set_scores(make_results(live), {i: 1.0 for i in range(6)})
    cand = _set_scores(make_results(live), {**{i: 1.0 for i in range(6)}, 1: 0.3, 4: 0.3})
    report = _report(base, cand)
    assert not report.flips[0].deterministic and not report.too_many_flips  # 2 ≤ 3: could be judging noise …
    assert report.verdict != "passed"  # … but the pass-rate interval cannot rule the drop out


@pytest.mark.parametrize("value", ["many", -1, "1.5"])
def test_max_newly_failing_is_auto_or_a_whole_number(value):
    with pytest.raises(BadInputError, match="max_newly_failing"):
        gate_from_mapping({"max_newly_failing": value})


def test_a_baseline_judged_by_another_judge_is_refused_with_the_reason():
    base, cand = make_results(RunSpec(seed=1)), make_results(RunSpec(seed=1, judge=OFFLINE))
    with pytest.raises(CannotCompare) as error:
        _report(base, cand)
    assert error.value.message == ("film · generator-a: baseline judged by gemini-2.5-flash (filmability, version rubric-a1), "
                                   "candidate by the offline judge (filmability, version 3-synthetic): not comparable")
    flagged = _report(base, cand, on_judge_change="flag")
    assert flagged.verdict == "inconclusive" and "not comparable (on_judge_change: flag)" in flagged.reasons()[0]
    other_model = make_results(RunSpec(seed=1, judge={**LIVE_GEMINI, "model": "gemini-2.5-pro"}))
    with pytest.raises(CannotCompare, match="baseline judged by gemini-2.5-flash .* candidate by gemini-2.5-pro"):
        _report(base, other_model)
    options = make_results(RunSpec(seed=1, judge={**LIVE_GEMINI, "options": RecordedOptions({"fps": 8})}))
    with pytest.raises(CannotCompare, match="^filmability: fps none → 8 in film: the judge's options changed"):
        _report(base, options)
    unrecorded = _report(make_results(RunSpec(seed=1, judge=None)), cand)  # results without identities: noted, compared
    assert any("records no judge identity" in n for n in unrecorded.notes)


def test_the_comment_of_a_10000_test_suite_stays_under_60_lines():
    providers = ("gen-a", "gen-b", "gen-c", "gen-d")
    base = make_results(RunSpec(n_tests=2500, providers=providers, seed=1, metrics=tuple(f"m{i}" for i in range(10))))
    cand = make_results(RunSpec(n_tests=2500, providers=providers, seed=2, metrics=tuple(f"m{i}" for i in range(10)),
                                effects={"m3": -0.05, "m7": -0.01}, not_judged=tuple(range(0, 2500, 97))))
    report = compare_results(parse_results(base), parse_results(cand), GateSettings(), "film")
    assert report.matched == 10000 and sum(len(g.flips) for g in report.flips) > 100
    text = render(Comparison([report]), report_url="https://example.invalid/run/1")
    lines = text.splitlines()
    assert len(lines) < 60, len(lines)
    assert lines[0] == MARKER and lines[1].startswith("## reeljudge gate: ❌ regression — film: `m3` (gen-")
    assert lines[-1] == "Full report (Markdown and JSON): https://example.invalid/run/1"
    assert not math.isnan(report.evidence()[0][2])


def test_a_summary_that_compared_nothing_says_nothing_about_metrics(tmp_path):
    """A gate that could not compare a suite must not also say every interval rules out a drop."""
    from reeljudge.gates.run import SuiteFailure

    calm = "metric moved beyond its tolerance"
    nothing = render(Comparison([SuiteFailure("film", "only 0 of the base's 4 tests are in the candidate")]))
    assert "could not compare" in nothing.splitlines()[1] and calm not in nothing, nothing
    base = _set_scores(make_results(SIX), {i: 0.9 for i in range(6)})
    same = _report(base, _set_scores(make_results(SIX), {i: 0.9 for i in range(6)}))
    assert "\nNo metric moved beyond its tolerance" in render(Comparison([same]))
    mixed = render(Comparison([same, SuiteFailure("gecko", "the candidate file is missing")]))
    assert "In the suites compared, no metric moved beyond its tolerance" in mixed and "\nNo metric" not in mixed


def _film(tmp_path, name: str, options: FilmabilityOptions, scores: dict[int, float] | None = None, **identity) -> None:
    """``<name>/broll.json``: six tests judged by the offline filmability judge with ``options`` (recorded as it records
    them), scores edited and judged by the options' threshold."""
    judge = {**OFFLINE, "options": verdict_options(options), **identity}
    scores = {**{t: 0.9 for t in range(6)}, **(scores or {})}
    data = _set_scores(make_results(RunSpec(n_tests=6, judge=judge, noise=0.0, seed=1)), scores, options.threshold)
    (tmp_path / name).mkdir()
    (tmp_path / name / "broll.json").write_text(json.dumps(data))


def test_a_lowered_threshold_is_named_never_counted_as_an_improvement_and_passes_only_when_the_gate_file_accepts_it(
        tmp_path):
    """A lowered threshold is an option that changes verdicts: the gate names it, and the tests it lets through are not
    read as newly passing (compared as like with like, they were)."""
    _film(tmp_path, "base", FilmabilityOptions(), {0: 0.6, 1: 0.6})  # two tests under 0.8: failing
    _film(tmp_path, "cand", FilmabilityOptions(threshold=0.5), {0: 0.6, 1: 0.6})  # the same scores, now passing
    named = "filmability: threshold 0.8 → 0.5 in broll"
    refused = compare_paths(tmp_path / "base", tmp_path / "cand", GateSettings())
    [suite] = refused.suites
    assert refused.verdict == "could not compare" and refused.exit_code == 2
    assert suite.message.startswith(f"{named}: the judge's options changed, so its verdicts are not comparable")
    assert render(refused).splitlines()[1].startswith(f"## reeljudge gate: ⚠️ could not compare — broll: {named}")
    flagged = compare_paths(tmp_path / "base", tmp_path / "cand", gate_from_mapping({"on_judge_change": "flag"}))
    assert flagged.verdict == "inconclusive" and f"{named} (on_judge_change: flag)" in flagged.suites[0].reasons()
    wrong = gate_from_mapping({"accept_option_changes": {"filmability.threshold": 0.4}})  # not the change it made
    assert compare_paths(tmp_path / "base", tmp_path / "cand", wrong).verdict == "could not compare"
    accepted = compare_paths(tmp_path / "base", tmp_path / "cand",
                             gate_from_mapping({"accept_option_changes": {"filmability.threshold": 0.5}}))
    [alone] = accepted.suites
    assert accepted.verdict == "passed" and alone.accepted == named and alone.passed == 6
    assert render(accepted).splitlines()[1] == (f"## reeljudge gate: ✅ passed — broll: {named}, accepted "
                                                "(accept_option_changes): judged by its own thresholds, not compared; the "
                                                "push to main records the new baseline")
    _film(tmp_path, "low", FilmabilityOptions(threshold=0.5), {0: 0.3})  # accepted, and its own thresholds still fail
    assert compare_paths(tmp_path / "base", tmp_path / "low",
                         gate_from_mapping({"accept_option_changes": {"filmability.threshold": 0.5}})).verdict == "failed"


def test_min_relevance_and_min_findability_are_named_too_and_an_identity_recorded_before_defaults_were_still_compares(
        tmp_path):
    _film(tmp_path, "base", FilmabilityOptions())
    _film(tmp_path, "cand", FilmabilityOptions(min_relevance=0, min_findability=0.5))
    [suite] = compare_paths(tmp_path / "base", tmp_path / "cand", GateSettings()).suites
    assert suite.message.startswith("filmability: min_findability 0 → 0.5, min_relevance 1 → 0 in broll")
    # a baseline of an older reeljudge recorded some options at their defaults and no defaults: the same judge
    legacy = {**OFFLINE, "options": RecordedOptions({"min_relevance": 1, "threshold": 0.8})}
    write_results(tmp_path / "old" / "broll.json", RunSpec(n_tests=6, judge=legacy, noise=0.0, seed=1))
    assert compare_paths(tmp_path / "old", tmp_path / "base", GateSettings()).verdict == "passed"
