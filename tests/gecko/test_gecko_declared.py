"""Rubrics as data: declared qas used as is, export to YAML and reuse through questions_file; the pair check."""

from __future__ import annotations

import json

import pytest
import yaml

from support.fake_gemini import text_reply
from reeljudge.cli import main as cli_main
from reeljudge import score_gecko
from reeljudge.assertions.gecko import get_assert
from reeljudge.gecko.pairs import JudgedRow, check_pairs, suite_tests
from reeljudge.gecko.questions import declared_questions
from support.gecko_scripts import script_prompt, verdict_text
from reeljudge.errors import BadInputError
from support.paths import ROOT

CLIP = str(ROOT / "datasets" / "clips" / "gen_clean.mp4")
QAS = [
    {"question": "What moves across the frame?", "choices": ["a disc", "a bird", "a car"], "answer": "a disc", "tag": "object"},
    {"question": "Does the camera pan?", "choices": ["a) yes", "b) no"], "answer": "A", "tag": "camera"},
]


def test_declared_qas_are_used_as_is_without_generation_or_filter(gemini_env):
    questions = declared_questions(QAS, test="t")
    assert questions[0].choices == ["a) a disc", "b) a bird", "c) a car"] and questions[0].answer == "a"
    assert questions[1].tag == "style"
    gemini_env.on("Answer every question", text_reply(verdict_text(questions, [True, False])))
    verdict = score_gecko("A disc over a texture", CLIP, qas=QAS, threshold=0.5)
    assert verdict.judged and verdict.passed and verdict.score == 0.5 and verdict.coverage == 1.0
    assert verdict.per_tag == {"object": 1.0, "style": 0.0}
    assert [q.verdict for q in verdict.questions] == ["a", next(l for l in "abc" if l != questions[1].answer)]
    assert verdict.outcome.question_set.source == "declared" and len(gemini_env.calls()) == 1


@pytest.mark.parametrize(
    "bad, message",
    [([{"question": "q", "choices": ["x"], "answer": "a"}], "at least 2"),
     ([{"question": "q", "choices": ["x", "y"], "answer": "c"}], "not one of"),
     ([{"choices": ["x", "y"], "answer": "a"}], "no question"),
     ("not: [valid", "not valid YAML"),
     ("just text", "non-empty list")],
)
def test_malformed_declared_qas_fail_naming_the_test(bad, message):
    with pytest.raises(BadInputError, match=message):
        declared_questions(bad, test="t")


def test_generated_rubrics_export_to_yaml_and_are_reused_from_the_file(gemini_env, tmp_path, capsys):
    prompt = "A disc gliding over a colourful texture"
    kept = script_prompt(gemini_env, prompt, matched=True)
    get_assert(CLIP, {"vars": {"prompt": prompt, "video": CLIP}, "config": {}})
    out = tmp_path / "question_sets.yaml"
    assert cli_main(["gecko", "export-questions", "-o", str(out)]) == 0
    entries = yaml.safe_load(out.read_text())
    assert len(entries) == 1 and entries[0]["prompt"] == prompt and entries[0]["media_kind"] == "video"
    assert [q["question"] for q in entries[0]["qas"]] == [q.question for q in kept]
    assert entries[0]["dropped"][0]["check"] == "not_supported_by_prompt"
    calls = len(gemini_env.calls())
    other_clip = str(ROOT / "datasets" / "clips" / "gen_cut.mp4")
    result = get_assert(other_clip, {"vars": {"prompt": prompt, "video": other_clip}, "config": {"questions_file": str(out)}})
    assert result["metadata"].get("questions_source") == "file" and result["pass"] is True, result["reason"]
    assert len(gemini_env.calls()) == calls + 1  # only the VQA call


def test_pair_check_passes_ordered_pairs_and_flags_reversed_or_unjudged_ones():
    def row(media, expect, score, error=None):
        return JudgedRow(f"{media}-{expect}", media, f"{media}.mp4", f"prompt {expect}", expect, score, error)

    good = check_pairs([row("a", "match", 0.9), row("a", "mismatch", 0.2), row("b", "match", 0.7), row("b", "mismatch", 0.5)])
    assert good.ok and good.checked_pairs == 2
    bad = check_pairs([row("a", "match", 0.4), row("a", "mismatch", 0.4)])
    assert not bad.ok and "not above" in bad.violations[0]
    unjudged = check_pairs([row("a", "match", None, "no_credentials"), row("a", "mismatch", 0.1)])
    assert not unjudged.ok and "did not judge" in unjudged.problems[0]
    assert not check_pairs([row("a", "match", 0.9)]).ok  # nothing paired: nothing proven


def test_check_pairs_cli_exits_1_on_a_reversed_pair(tmp_path, capsys):
    def result(expect, score):
        meta = {"judge": "gecko", "media": {"sha256": "abc", "name": "c.mp4"}, "prompt": expect, "expect": expect, "score": score}
        return {"testCase": {"description": expect}, "success": True, "gradingResult": {"componentResults": [{"metadata": meta}]}}

    path = tmp_path / "results.json"
    path.write_text(json.dumps({"results": {"results": [result("match", 0.3), result("mismatch", 0.6)]}}))
    assert cli_main(["gecko", "check-pairs", str(path)]) == 1
    assert "OUT OF ORDER" in capsys.readouterr().out


def test_suites_agree_with_their_datasets_and_configs_point_at_real_files():
    for dataset, suite, config in (
        ("local_pairs.yaml", "gecko.yaml", "promptfooconfig.gecko.yaml"),
        ("notebook_pairs.yaml", "gecko_vertex.yaml", "promptfooconfig.gecko-vertex.yaml"),
    ):
        pairs = yaml.safe_load((ROOT / "datasets" / "gecko" / dataset).read_text())
        assert yaml.safe_load((ROOT / "tests" / "suites" / suite).read_text()) == suite_tests(pairs)
        cfg = yaml.safe_load((ROOT / config).read_text())
        assert cfg["tests"] == f"file://tests/suites/{suite}"
        assert (ROOT / cfg["defaultTest"]["assert"][0]["value"].removeprefix("file://")).is_file()
    notebook = yaml.safe_load((ROOT / "datasets" / "gecko" / "notebook_pairs.yaml").read_text())
    assert len(notebook) == 5 and all(p["clip"].startswith("gs://cloud-samples-data/") for p in notebook)
    assert all((ROOT / p["clip"]).is_file()
               for p in yaml.safe_load((ROOT / "datasets" / "gecko" / "local_pairs.yaml").read_text()))


def test_benchmark_counts_match_the_method(monkeypatch, capsys):
    from benchmarks import gecko_calls

    assert gecko_calls.main(["--videos", "2"]) == 0
    out = capsys.readouterr().out
    assert "generate 2, filter 2, vqa 4 = 8 judge calls; uploads 2" in out
    assert "re-run: 0 judge calls, 0 uploads, 0 file lookups" in out


def test_pair_check_on_a_file_that_is_not_promptfoo_results_exits_2_naming_it(tmp_path, capsys):
    bad = tmp_path / "results.json"
    bad.write_text('{"results": {"results": [')
    assert cli_main(["gecko", "check-pairs", str(bad)]) == 2
    assert "not valid JSON (truncated?)" in capsys.readouterr().err
    bad.write_text('{"hello": 1}')
    assert cli_main(["gecko", "check-pairs", str(bad)]) == 2
    assert "not a promptfoo results file" in capsys.readouterr().err
