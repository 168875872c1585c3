"""Bad input gets a clear failing result naming the test, the var and the problem."""

import json

import pytest

from support.fake_gemini import json_reply
from support.promptfoo_run import ROOT, rows, run_promptfoo_eval
from reeljudge.assertions.filmability import get_assert

pytestmark = pytest.mark.usefixtures("offline_judge_data")  # judges offline: norms and bank vectors made once per run

TERMS = json.dumps(["server room", "engineer typing"])


def ctx(vars_, **config):
    return {"vars": vars_, "config": config, "test": {"description": "bad-input-case"}}


def test_missing_narration_var_names_test_var_and_present_vars():
    result = get_assert(TERMS, ctx({"script": "x"}))
    assert result["pass"] is False and result["metadata"]["error_kind"] == "bad_input"
    assert "'bad-input-case'" in result["reason"] and "'narration'" in result["reason"] and "script" in result["reason"]


def test_custom_narration_var_is_used():
    result = get_assert(TERMS, ctx({"line": ""}, narration_var="line"))
    assert "var 'line' is empty" in result["reason"]


@pytest.mark.parametrize("output,fragment", [("", "no search terms"), ("[]", "no search terms"),
                                             ('{"answer": 1}', "no list of terms")])
def test_empty_or_unparseable_output_fails_clearly(output, fragment):
    result = get_assert(output, ctx({"narration": "A sunset over the sea"}))
    assert result["pass"] is False and fragment in result["reason"] and "bad-input-case" in result["reason"]


def test_two_hundred_terms_fail_with_the_limit_and_how_to_raise_it():
    result = get_assert(json.dumps([f"shot {i}" for i in range(200)]), ctx({"narration": "A sunset"}))
    assert result["pass"] is False and "200 search terms" in result["reason"] and "max_terms" in result["reason"]


def test_a_20kb_narration_fails_with_its_length():
    result = get_assert(TERMS, ctx({"narration": "word " * 4096}))
    assert result["pass"] is False and "20480 characters" in result["reason"] and "max_narration_chars" in result["reason"]


def test_a_bad_setting_fails_naming_it():
    result = get_assert(TERMS, ctx({"narration": "A sunset"}, judge="chatgpt"))
    assert result["pass"] is False and "'judge'" in result["reason"]


def test_non_english_goes_to_the_gemini_judge_as_data(gemini_env):
    value = {"breakdown": {"relevance": 3, "filmability": 3, "variety": 1}, "unfilmableTerms": [], "reason": "ok"}
    gemini_env.on("Grade these search terms", json_reply(value))
    narration = "Redis guarda todo en memoria, por eso es rapidísimo"
    result = get_assert(json.dumps(["sala de servidores", "memoria RAM"]), ctx({"narration": narration}, judge="gemini"))
    assert result["pass"] is True
    assert "rapidísimo" in gemini_env.calls()[0].text and "sala de servidores" in gemini_env.calls()[0].text


def test_non_english_with_the_local_judge_is_explained_not_passed():
    narration = "Redis guarda todo en memoria, por eso es rapidísimo"
    result = get_assert(json.dumps(["sala de servidores", "memoria del ordenador"]), ctx({"narration": narration}, judge="local"))
    assert result["pass"] is False
    assert "english" in json.dumps(result).lower()


@pytest.mark.e2e
def test_bad_tests_do_not_spoil_the_rest_of_the_run(tmp_path):
    config = tmp_path / "bad.yaml"
    config.write_text(
        "prompts: ['{{terms}}']\nproviders: [echo]\n"
        "defaultTest:\n  assert:\n    - type: python\n"
        f"      value: file://{ROOT / 'assertions' / 'filmability.py'}\n"
        "      config: {judge: local}\n"
        "tests:\n"
        "  - description: no-narration\n    vars: {terms: 'sunset, beach'}\n"
        "  - description: empty-output\n    vars: {narration: 'The sun sets over the beach', terms: ''}\n"
        "  - description: good\n    vars: {narration: 'The sun sets over the beach', terms: 'sunset over the sea, waves on a "
        "beach, couple walking on sand'}\n"
    )
    code, results, output = run_promptfoo_eval(str(config), tmp_path, env={"REELJUDGE_CACHE_DIR": str(tmp_path / "c")})
    cells = {c["testCase"]["description"]: c for c in rows(results)}
    assert set(cells) == {"no-narration", "empty-output", "good"}, output[-2000:]
    assert "has no var 'narration'" in cells["no-narration"]["gradingResult"]["reason"]
    assert "no search terms" in cells["empty-output"]["gradingResult"]["reason"]
    assert cells["good"]["success"] is True, cells["good"]["gradingResult"]


def test_the_offline_reason_line_says_each_thing_once():
    """The line names the unfilmable terms once (the offline judge's own summary restated the breakdown and
    the list: 'unfilmable: trust, … judge: Offline judge: relevance 1/3, … Not filmable: trust, ….. findability'),
    keeps what only that summary said (terms with no lexicon coverage) and doubles no full stop."""
    result = get_assert(json.dumps(["trust", "reputation", "loyalty"]),
                        ctx({"narration": "Trust takes years to build and seconds to lose"}))
    reason = result["reason"].splitlines()[0]  # the verdict line (the criteria's own lines follow it)
    assert result["pass"] is False and "local judge" in reason and "unfilmable: trust, reputation, loyalty" in reason, reason
    assert reason.count("reputation") == 1 and reason.count("relevance 1/3") == 1 and ".." not in reason, reason
    odd = get_assert(json.dumps(["zxqvbl", "sunset over the sea"]), ctx({"narration": "A sunset over the sea"}))
    assert "no lexicon coverage (unknown, e.g. non-English or jargon): zxqvbl" in odd["reason"], odd["reason"]
