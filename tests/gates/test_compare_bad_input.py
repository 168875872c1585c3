"""``reeljudge compare`` on input it cannot compare: a clear message and exit 2, never a pass."""

from __future__ import annotations

import json

import pytest

from reeljudge.cli import main
from reeljudge.errors import BadInputError
from reeljudge.gates.gatefile import GateSettings, gate_from_mapping, load_gate
from reeljudge.gates.results import read_results
from support.results_fixtures import RunSpec, make_results, write_results


def _exit_and_stderr(capsys, *argv: str) -> tuple[int, str]:
    code = main(["compare", *argv, "-q"])
    return code, capsys.readouterr().err


def test_truncated_json_names_the_file_and_says_truncated(tmp_path, capsys):
    base = write_results(tmp_path / "base.json", RunSpec())
    cut = tmp_path / "cut.json"
    cut.write_text(base.read_text()[:5000])
    code, err = _exit_and_stderr(capsys, str(base), str(cut))
    assert code == 2
    assert "cut.json: not valid JSON" in err and "truncated?" in err


def test_json_that_is_not_promptfoo_results(tmp_path, capsys):
    base = write_results(tmp_path / "base.json", RunSpec())
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"name": "reeljudge", "version": "0.1.0"}))
    code, err = _exit_and_stderr(capsys, str(base), str(other))
    assert code == 2
    assert "other.json: not a promptfoo results file (no results.results list; top-level keys: name, version)" in err
    other.write_text(json.dumps([1, 2]))
    assert "top level is a list" in _exit_and_stderr(capsys, str(base), str(other))[1]
    other.write_text(json.dumps({"results": {"results": [{"foo": 1}]}}))
    assert "results.results[0] is not a promptfoo test result" in _exit_and_stderr(capsys, str(base), str(other))[1]
    assert ("missing.json: cannot read (No such file or directory)" in _exit_and_stderr(capsys, str(base),
                                                                                        str(tmp_path / "missing.json"))[1])


def test_zero_judged_tests(tmp_path, capsys):
    base = write_results(tmp_path / "base.json", RunSpec(n_tests=20))
    none = write_results(tmp_path / "none.json", RunSpec(n_tests=20, not_judged=tuple(range(20))))
    code, err = _exit_and_stderr(capsys, str(base), str(none))
    assert code == 2
    assert "candidate results" in err and "none of its 20 test results was judged" in err and "cache_miss" in err


def test_results_of_different_configs(tmp_path, capsys):
    base = write_results(tmp_path / "base.json", RunSpec(n_tests=50))
    other_suite = make_results(RunSpec(n_tests=50, providers=("clips",), description="video probes suite"))
    for row in other_suite["results"]["results"]:
        row["testCase"]["description"] = "clip-" + row["testCase"]["description"]
    (tmp_path / "video.json").write_text(json.dumps(other_suite))
    code, err = _exit_and_stderr(capsys, str(base), str(tmp_path / "video.json"))
    assert code == 2
    assert "only 0 of the base's 50 tests are in the candidate" in err and "different configs" in err
    assert "config descriptions differ: base 'synthetic filmability suite', candidate 'video probes suite'" in err
    assert "groups differ: base generator-a; candidate clips" in err


def test_a_missing_candidate_suite_cannot_be_compared(tmp_path, capsys):
    write_results(tmp_path / "base" / "video.json", RunSpec())
    write_results(tmp_path / "base" / "filmability.json", RunSpec())
    write_results(tmp_path / "cand" / "filmability.json", RunSpec())
    code, err = _exit_and_stderr(capsys, str(tmp_path / "base"), str(tmp_path / "cand"))
    assert code == 2 and "video: the base has video.json but the candidate run wrote none" in err
    code, err = _exit_and_stderr(capsys, str(tmp_path / "base"), str(tmp_path / "cand" / "filmability.json"))
    assert code == 2 and "not a mix" in err


def test_gate_file_unknown_key_has_a_did_you_mean(tmp_path, capsys):
    gate = tmp_path / "gate.yaml"
    gate.write_text("tolerence: 0.05\n")
    base = write_results(tmp_path / "base.json", RunSpec())
    code, err = _exit_and_stderr(capsys, str(base), str(base), "--gate", str(gate))
    assert code == 2 and "unknown option 'tolerence' for gate file" in err and "did you mean 'tolerance'?" in err


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"tolerance": 2}, "gate file option 'tolerance' must be at most 1, got 2"),
        ({"tolerance": "low"}, "gate file option 'tolerance' must be a number, got 'low'"),
        ({"tolerances": [0.1]}, "gate file option 'tolerances' must be a mapping"),
        ({"tolerances": {"score": -0.1}}, "tolerances.score must be a number from 0 to 1, got -0.1"),
        ({"tolerances": {"score": "much"}}, "'tolerances' entry 'score' must be a number, got 'much'"),
        ({"confidence": 0.3}, "gate file option 'confidence' must be at least 0.5"),
        ({"resamples": 10}, "gate file option 'resamples' must be at least 100"),
        ({"max_unjudged": -1}, "gate file option 'max_unjudged' must be at least 0"),
        ({"max_unjudged": True}, "gate file option 'max_unjudged' must be a whole number"),
        ({"group_by": "test"}, "gate file option 'group_by' must be one of provider, none"),
        ({"wrost": 3}, "unknown option 'wrost' for gate file; did you mean 'worst'?"),
        ([1, 2], "gate file config must be a mapping of options"),
    ],
)
def test_gate_file_values_are_checked(data, message):
    with pytest.raises(BadInputError) as error:
        gate_from_mapping(data)
    assert message in error.value.message


def test_gate_file_defaults_and_metric_typos(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert load_gate(None) == GateSettings()  # no file: the defaults
    (tmp_path / "reeljudge.gate.yaml").write_text("tolerances: {film_relevnce: 0.1, gecko_*: 0.03}\n")
    settings = load_gate(None)
    assert settings.tolerance_for("pass_rate") == 0.05  # defaults kept beside the file's entries
    assert settings.tolerance_for("gecko_color") == 0.03 and settings.tolerance_for("other") == 0.02
    base = write_results(tmp_path / "base.json", RunSpec())
    code, err = _exit_and_stderr(capsys, str(base), str(base))
    assert code == 2 and "metric 'film_relevnce' is in neither results file; did you mean 'film_relevance'?" in err
    (tmp_path / "reeljudge.gate.yaml").write_text("tolerances: {gecko_*: 0.03}\n")
    assert _exit_and_stderr(capsys, str(base), str(base))[0] == 0  # another suite's metric: only a note
    (tmp_path / "reeljudge.gate.yaml").write_text("tolerance: [\n")
    code, err = _exit_and_stderr(capsys, str(base), str(base))
    assert code == 2 and "not valid YAML" in err


def test_reading_a_real_shape_keeps_the_not_judged_reason():
    data = make_results(RunSpec(n_tests=3, not_judged=(1,)))
    data["results"]["results"][2]["failureReason"] = 2
    data["results"]["results"][2]["error"] = "Provider call failed: ECONNREFUSED"
    run = read_results_from(data)
    assert [c.judged for c in run.cells] == [True, False, False]
    assert run.cells[1].reason.startswith("FAIL filmability did not judge (cache_miss)")
    assert run.cells[2].reason == "error: Provider call failed: ECONNREFUSED"
    assert not run.cells[1].success and not run.cells[2].success


def read_results_from(data):
    from reeljudge.gates.results import parse_results

    return parse_results(data)


def test_read_results_on_a_folder_or_binary(tmp_path):
    blob = tmp_path / "blob.json"
    blob.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(BadInputError, match="cannot read"):
        read_results(blob)


def test_a_result_row_is_read_through_the_wings_one_view():
    """The one typed view of promptfoo's rows: vars from the test case when the row has none, the
    grading tree to any depth, a provider error, and an afterAll hook's rows read the same way."""
    from reeljudge.promptfoo.results_file import ResultRow, hook_rows

    inner = {"pass": False, "reason": "probe failed", "assertion": {"type": "python", "metric": "flow"},
             "metadata": {"judge": "video_probes"}}
    raw = {"testCase": {"description": "kite", "vars": {"prompt": "a kite"}, "metadata": {"family": "t2v"}},
           "provider": {"id": "file://p.py", "label": "veo"}, "prompt": {"raw": "{{prompt}}"}, "promptIdx": 1,
           "success": False, "score": 0.25, "error": "quota", "failureReason": 2,
           "gradingResult": {"pass": False, "reason": "All assertions passed", "componentResults": [
               {"pass": False, "reason": "outer", "componentResults": [inner, {}]}]}}
    row = ResultRow.of(raw)
    assert (row.description, dict(row.vars), row.provider, row.prompt_label, row.prompt_index) == (
        "kite", {"prompt": "a kite"}, "veo", "{{prompt}}", 1)
    assert row.test_metadata["family"] == "t2v" and row.test_index is None and row.failed_with_error and row.error == "quota"
    nodes = row.gradings()
    assert [n.reason for n in nodes] == ["All assertions passed", "outer", "probe failed"]
    assert (nodes[2].passed, nodes[2].metric, nodes[2].assertion_type, nodes[2].metadata["judge"]) == (False, "flow",
                                                                                                       "python", "video_probes")
    assert ResultRow.of({"success": True}).gradings() == [] and ResultRow.of({"success": True}).description is None
    assert [r.description for r in hook_rows({"results": [raw, "not a row"]})] == ["kite"]
    cell = read_results_from({"results": {"results": [raw]}}).cells[0]
    assert (cell.judged, cell.reason, cell.metric_reasons) == (False, "error: quota", {"flow": "probe failed"})
