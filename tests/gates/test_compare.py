"""``reeljudge compare``: paired intervals per metric, not-judged tests apart, added/removed, worst drops."""

from __future__ import annotations

import json

import numpy as np
import pytest

from reeljudge.cli import main
from reeljudge.gates.compare import compare_results
from reeljudge.gates.gatefile import GateSettings, gate_from_mapping
from reeljudge.gates.markdown import MARKER, render
from reeljudge.gates.results import parse_results
from reeljudge.gates.run import Comparison, comparison_json
from reeljudge.stats.bootstrap import bootstrap_column_means, bootstrap_mean
from support.results_fixtures import RunSpec, make_results, write_results


def _compare(base: RunSpec, cand: RunSpec, **gate):
    settings = gate_from_mapping(gate) if gate else GateSettings()
    return compare_results(parse_results(make_results(base)), parse_results(make_results(cand)), settings, "suite")


def _row(report, metric, group="generator-a"):
    return next(r for r in report.rows if r.metric == metric and r.group == group)


def test_planted_regression_on_one_metric_fails_the_gate_and_only_that_metric_regresses():
    report = _compare(RunSpec(seed=1), RunSpec(seed=2, effects={"film_relevance": -0.08}))
    assert report.exit_code == 1
    relevance = _row(report, "film_relevance")
    assert relevance.verdict == "regression"
    assert relevance.difference.high < -0.02 and relevance.difference.contains(-0.08)
    for metric in ("film_filmability", "film_variety"):
        assert _row(report, metric).verdict == "ok"
    assert all(w.metric == "film_relevance" for w in report.worst)  # regressed metric's drops come first
    text = render(Comparison([report]))
    assert text.startswith(MARKER) and "❌ regression" in text
    d = relevance.difference
    assert f"[{d.low:+.3f}, {d.high:+.3f}]".replace("-", "−") in text  # the comment shows the interval


def test_noise_only_passes_with_every_interval_within_tolerance():
    report = _compare(RunSpec(seed=1), RunSpec(seed=3))
    assert report.exit_code == 0 and not report.regressions
    assert all(r.difference.high >= -r.tolerance and abs(r.difference.estimate) < r.tolerance for r in report.rows)
    assert "✅ passed" in render(Comparison([report]))


def test_identical_runs_give_zero_width_intervals():
    report = _compare(RunSpec(seed=5), RunSpec(seed=5))
    assert report.matched == 200 and report.exit_code == 0
    assert all(r.difference.low == r.difference.high == 0 for r in report.rows)


def test_a_regression_below_tolerance_passes_and_tolerances_are_per_metric():
    base, cand = RunSpec(seed=1), RunSpec(seed=2, effects={"film_variety": -0.05})
    assert _row(_compare(base, cand), "film_variety").verdict == "regression"
    report = _compare(base, cand, tolerances={"film_*": 0.08})
    assert _row(report, "film_variety").verdict == "ok" and report.exit_code in (0, 1)
    ignored = _compare(base, cand, ignore=["film_variety", "score"])
    assert _row(ignored, "film_variety").verdict == "regression (not gated)"
    assert not any(r.metric == "film_variety" for r in ignored.regressions)


def test_tests_not_judged_in_the_candidate_are_apart_and_never_passes():
    report = _compare(RunSpec(seed=1), RunSpec(seed=1, not_judged=(3, 7, 11)))
    assert [t for t, _ in report.unjudged_candidate] == [f"narration-{i:05d} [generator-a]" for i in (3, 7, 11)]
    assert all("did not judge (cache_miss)" in reason for _, reason in report.unjudged_candidate)
    assert _row(report, "pass_rate").difference.n_units == 197  # left out of the differences, not a 0 or a 1
    assert _row(report, "score").difference.estimate == 0.0
    assert report.exit_code == 1 and report.too_many_unjudged  # same scores otherwise: the unjudged tests fail it
    allowed = _compare(RunSpec(seed=1), RunSpec(seed=1, not_judged=(3, 7, 11)), max_unjudged=3)
    assert allowed.exit_code == 0
    text = render(Comparison([report]))
    assert "3 newly not judged" in text and "narration-00007" in text and "did not judge (cache_miss)" in text


def test_tests_not_judged_in_the_base_only_do_not_fail_the_gate():
    report = _compare(RunSpec(seed=1, not_judged=(0, 1)), RunSpec(seed=1, not_judged=(1,)))
    assert [t for t, _ in report.unjudged_base] == ["narration-00000 [generator-a]"]
    assert [t for t, _ in report.unjudged_both] == ["narration-00001 [generator-a]"]
    assert report.exit_code == 0


def test_added_and_removed_tests_are_listed():
    report = _compare(RunSpec(n_tests=100, seed=1), RunSpec(n_tests=110, seed=1))
    assert report.added == [f"narration-{i:05d} [generator-a]" for i in range(100, 110)] and not report.removed
    report = _compare(RunSpec(n_tests=100, seed=1), RunSpec(n_tests=90, seed=1))
    assert len(report.removed) == 10 and report.matched == 90


def test_each_provider_is_gated_on_its_own():
    base = RunSpec(seed=1, providers=("gen-a", "gen-b", "gen-c"))
    cand = RunSpec(seed=2, providers=("gen-a", "gen-b", "gen-c"))
    regressed = make_results(cand)
    for row in regressed["results"]["results"]:  # only gen-b gets worse on relevance
        if row["provider"]["label"] == "gen-b":
            row["namedScores"]["film_relevance"] = max(0.0, row["namedScores"]["film_relevance"] - 0.1)
    report = compare_results(parse_results(make_results(base)), parse_results(regressed), GateSettings())
    assert {(r.group, r.metric) for r in report.regressions} == {("gen-b", "film_relevance")}
    assert report.exit_code == 1


def test_repeats_of_a_test_are_one_unit():
    once = make_results(RunSpec(n_tests=50, seed=1))
    twice = make_results(RunSpec(n_tests=50, seed=2))
    twice["results"]["results"] += make_results(RunSpec(n_tests=50, seed=3))["results"]["results"]
    report = compare_results(parse_results(once), parse_results(twice), GateSettings())
    assert report.matched == 50 and _row(report, "score").difference.n_units == 50


def test_worst_drops_carry_the_components_reason():
    report = _compare(RunSpec(seed=1), RunSpec(seed=2, effects={"film_relevance": -0.2}), worst=3)
    assert len(report.worst) == 3
    worst = report.worst[0]
    assert worst.base - worst.candidate == max(w.base - w.candidate for w in report.worst)
    assert worst.reason.startswith("film_relevance: ") and worst.base_reason.startswith("film_relevance: ")


def test_cli_writes_markdown_and_json_and_exits_by_verdict(tmp_path, capsys):
    base = write_results(tmp_path / "base.json", RunSpec(seed=1))
    bad = write_results(tmp_path / "bad.json", RunSpec(seed=2, effects={"film_filmability": -0.1}))
    good = write_results(tmp_path / "good.json", RunSpec(seed=2))
    md, js = tmp_path / "out" / "gate.md", tmp_path / "out" / "gate.json"
    assert main(["compare", str(base), str(bad), "--markdown", str(md), "--json", str(js), "-q"]) == 1
    report = json.loads(js.read_text())
    assert report["verdict"] == "regression" and report["exit_code"] == 1
    metrics = {m["metric"]: m for m in report["suites"][0]["metrics"]}
    assert metrics["film_filmability"]["verdict"] == "regression"
    assert metrics["film_filmability"]["difference"]["high"] < -0.02
    assert md.read_text().startswith(MARKER)
    assert main(["compare", str(base), str(good), "-q"]) == 0
    assert capsys.readouterr().out == ""


def test_folders_are_compared_suite_by_suite(tmp_path):
    for side, seed in (("base", 1), ("cand", 2)):
        write_results(tmp_path / side / "filmability.json", RunSpec(seed=seed))
        write_results(tmp_path / side / "video.json", RunSpec(seed=seed, metrics=("probe_flicker",)))
    write_results(tmp_path / "cand" / "gecko.json", RunSpec(seed=2, threshold=0.0))  # a new suite: no baseline, every test passes
    js = tmp_path / "gate.json"
    assert main(["compare", str(tmp_path / "base"), str(tmp_path / "cand"), "--json", str(js), "-q"]) == 3
    report = json.loads(js.read_text())
    assert [s["name"] for s in report["suites"]] == ["filmability", "gecko", "video"]
    # one noisy metric on 200 tests: its pass_rate interval cannot rule out a drop of 0.05; the new suite judged alone
    assert ([s["verdict"] for s in report["suites"]] == ["passed", "passed", "inconclusive"] and report["verdict"]
            == "inconclusive")
    assert report["suites"][1]["baseline"] is None and report["suites"][1]["pass_rate"] == 1.0
    (tmp_path / "warn.yaml").write_text("on_inconclusive: warn\n")
    assert main(["compare", str(tmp_path / "base"), str(tmp_path / "cand"), "--gate", str(tmp_path / "warn.yaml"), "-q"]) == 0
    assert report["notes"] == []
    json.loads(js.read_text())  # valid JSON with NaN written as null
    assert comparison_json(Comparison())["exit_code"] == 2  # nothing compared is never a pass


def test_joint_column_bootstrap_matches_the_per_column_bootstrap():
    data = np.random.default_rng(3).normal(0.0, 0.1, (500, 3))
    data[::7, 1] = np.nan  # a metric some tests lack
    joint = bootstrap_column_means(data, n_resamples=4000)
    for j in (0, 2):
        alone = bootstrap_mean(data[:, j], n_resamples=4000)
        assert joint[j].estimate == pytest.approx(alone.estimate)
        assert joint[j].low == pytest.approx(alone.low, abs=0.002) and joint[j].high == pytest.approx(alone.high, abs=0.002)
    column = data[~np.isnan(data[:, 1]), 1]
    assert joint[1].n_units == column.size and joint[1].estimate == pytest.approx(column.mean())
    assert bootstrap_column_means(data, n_resamples=500) == bootstrap_column_means(data, n_resamples=500)
