"""No baseline is not a failure: a suite whose base folder has no results file for it is judged
alone, by its own tests' verdicts and the gate file's pass-rate rule; exit 0 or 1, never 2."""

from __future__ import annotations

import json

from reeljudge.cli import main
from reeljudge.gates.alone import NO_BASELINE
from reeljudge.gates.gatefile import gate_from_mapping
from support.results_fixtures import RunSpec, write_results


def _compare(tmp_path, *args: str) -> tuple[int, dict, str]:
    (tmp_path / "base").mkdir(exist_ok=True)
    js, md = tmp_path / "gate.json", tmp_path / "gate.md"
    code = main(["compare", str(tmp_path / "base"), str(tmp_path / "cand"), "--json", str(js),
                 "--markdown", str(md), "-q", *args])
    return code, json.loads(js.read_text()), md.read_text()


def test_an_empty_base_folder_judges_the_head_alone_and_passes_when_every_test_passes(tmp_path, capsys):
    write_results(tmp_path / "cand" / "filmability.json", RunSpec(seed=2, n_tests=6, threshold=0.0))
    write_results(tmp_path / "cand" / "probes.json", RunSpec(seed=3, n_tests=4, threshold=0.0))
    code, report, comment = _compare(tmp_path)
    assert code == 0 and report["verdict"] == "passed" and report["exit_code"] == 0
    assert [(s["name"], s["verdict"], s["baseline"], s["tests"]) for s in report["suites"]] == [
        ("filmability", "passed", None, 6), ("probes", "passed", None, 4)]
    assert comment.splitlines()[1] == f"## reeljudge gate: ✅ passed — filmability, probes: {NO_BASELINE}"
    assert f"- **probes**: ✅ passed · {NO_BASELINE} · 4 of 4 tests pass (100%; min_pass_rate 100%)" in comment
    assert f"filmability: {NO_BASELINE}" in capsys.readouterr().err


def test_a_failing_test_fails_the_first_run_with_exit_1_and_the_failing_tests_listed(tmp_path):
    write_results(tmp_path / "cand" / "filmability.json", RunSpec(seed=2, n_tests=6, threshold=0.6))
    code, report, comment = _compare(tmp_path)
    [suite] = report["suites"]
    failing = [t["test"] for t in suite["failing"]]
    assert code == 1 and report["verdict"] == "failed" and failing and suite["passed"] == 6 - len(failing)
    first = comment.splitlines()[1]
    assert first.startswith(f"## reeljudge gate: ❌ failed — filmability: no baseline yet, judged by its own thresholds: "
                            f"{6 - len(failing)} of 6 tests pass") and f"{failing[0]} fails: FAIL" in first
    assert all(f"| filmability | {name} | failing |" in comment for name in failing)


def test_a_test_not_judged_never_passes_and_nothing_judged_is_exit_1_not_2(tmp_path):
    write_results(tmp_path / "cand" / "gecko.json", RunSpec(seed=2, n_tests=3, threshold=0.0, not_judged=(1,)))
    code, report, comment = _compare(tmp_path)
    assert code == 1 and report["suites"][0]["not_judged"][0]["test"].startswith("narration-00001")
    assert "| gecko | narration-00001 [generator-a] | not judged | FAIL filmability did not judge (cache_miss)" in comment
    write_results(tmp_path / "cand" / "gecko.json", RunSpec(seed=2, n_tests=3, threshold=0.0, not_judged=(0, 1, 2)))
    code, report, comment = _compare(tmp_path)
    assert code == 1 and report["verdict"] == "failed" and "0 of 3 tests pass (0%; min_pass_rate 100%): no test passed" in comment


def test_the_pass_rate_rule_is_the_gate_files_per_suite(tmp_path):
    write_results(tmp_path / "cand" / "filmability.json", RunSpec(seed=2, n_tests=20, threshold=0.6))
    write_results(tmp_path / "cand" / "probes.json", RunSpec(seed=2, n_tests=20, threshold=0.6))
    code, report, _ = _compare(tmp_path)
    rate = report["suites"][0]["pass_rate"]
    assert code == 1 and 0.5 < rate < 1
    (tmp_path / "gate.yaml").write_text(f"min_pass_rate: 0.5\nmin_pass_rates:\n  probe*: {rate + 0.01:.3f}\n")
    code, report, comment = _compare(tmp_path, "--gate", str(tmp_path / "gate.yaml"))
    assert (code == 1 and [(s["name"], s["verdict"]) for s in report["suites"]]
            == [("filmability", "passed"), ("probes", "failed")])
    assert comment.splitlines()[1].startswith("## reeljudge gate: ❌ failed — probes: ")
    settings = gate_from_mapping({"min_pass_rates": {"probes": 0.9, "p*": 0.1}})
    assert (settings.min_pass_rate_for("probes"), settings.min_pass_rate_for("pix"),
            settings.min_pass_rate_for("x")) == (0.9, 0.1, 1.0)


def test_a_suite_missing_from_the_candidate_still_cannot_be_compared(tmp_path):
    write_results(tmp_path / "base" / "filmability.json", RunSpec(seed=1, n_tests=6))
    write_results(tmp_path / "cand" / "probes.json", RunSpec(seed=2, n_tests=6, threshold=0.0))
    code, report, _ = _compare(tmp_path)
    assert (code == 2 and {s["name"]: s["verdict"] for s in report["suites"]}
            == {"filmability": "could not compare", "probes": "passed"})
