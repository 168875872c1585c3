"""End to end: ``promptfoo eval`` on the project's default config, Gemini path (fake) and offline path."""

from __future__ import annotations

import json
import os

import pytest

from support.fake_gemini import error_reply, json_reply
from support.promptfoo_run import rows, run_promptfoo_eval

pytestmark = pytest.mark.e2e

GOOD_TERMS = ["server room", "engineer typing", "sunset over a data center"]
SPANISH_A = ["servidor en la nube", "programadora escribiendo código", "pantalla con funciones"]
SPANISH_B = ["módulos de memoria", "sala de servidores", "luces del centro de datos"]
CRITERIA = ("film_score", "film_relevance", "film_filmability", "film_variety")


def _judgement(r: int, f: int, v: int) -> dict:
    return {
        "breakdown": {"relevance": r, "filmability": f, "variety": v},
        "criterionReasons": {"relevance": "scripted", "filmability": "scripted", "variety": "scripted"},
        "unfilmableTerms": [] if f == 3 else ["scripted abstract term"],
        "points": r + f + v,
        "score": 1.0,
        "reason": "scripted by the fake",
    }


def test_gemini_generator_and_judge_through_promptfoo(fake, tmp_path):
    # the generator writes Spanish for two narrations: the offline judge does not read it, so the cascade asks Gemini
    fake.on(lambda body, text: "Grade these search terms" not in text and "closures" in text, json_reply({"terms": SPANISH_A}))
    fake.on(lambda body, text: "Grade these search terms" not in text and "blazingly" in text, json_reply({"terms": GOOD_TERMS}))
    fake.on(lambda body, text: "Grade these search terms" not in text, json_reply({"terms": SPANISH_B}))
    fake.on(lambda body, text: "closures" in text, error_reply(503, "scripted outage"))
    fake.on(lambda body, text: "memoria" in text, json_reply(_judgement(3, 3, 1)))
    fake.on(None, json_reply(_judgement(1, 1, 0)))
    env = {
        "GEMINI_API_KEY": "test-key-not-real",
        "GOOGLE_GEMINI_BASE_URL": fake.url,
        "REELJUDGE_CACHE_DIR": str(tmp_path / "cache"),
        "REELJUDGE_MAX_ATTEMPTS": "2",
        "REELJUDGE_BACKOFF_INITIAL_S": "0.01",
    }
    code, results, output = run_promptfoo_eval("promptfooconfig.yaml", tmp_path, "--filter-first-n", "3", env=env)
    assert code == 100, output[-3000:]  # some cells fail by script: promptfoo's "pass rate under threshold"
    cells = rows(results)
    assert len(cells) == 9  # 3 narrations × 3 providers
    decided, outage = {"local": 0, "gemini": 0}, 0
    for cell in cells:  # judge: auto with a key is the cascade (issue 47)
        narration, grading = cell["vars"]["narration"], cell["gradingResult"]
        if "503" in grading["reason"]:  # the offline judge deferred it to Gemini, which is out for this narration
            assert narration.startswith("You need to underst") and cell["success"] is False, grading["reason"]
            outage += 1
            continue
        assert set(CRITERIA) <= set(cell["namedScores"]), cell["namedScores"]
        ours = grading["componentResults"][0]["metadata"]
        who = ours["cascade"]["decided_by"]
        assert ours["judge_identity"]["engine"] == who
        assert cell["namedScores"].get("film_unsure", 0.0) == float(ours["cascade"].get("why") == "unsure")
        decided[who] += 1
        if who == "gemini":  # scored from the fake's scripted breakdown
            expected = 1.0 if json.loads(cell["response"]["output"]) == SPANISH_B else 0.6
            assert cell["namedScores"]["film_score"] == expected and cell["success"] is (expected == 1.0)
    assert decided["local"] >= 1 and decided["gemini"] >= 1 and outage >= 1, decided
    spanish = [c for c in cells if c["response"]["output"] and SPANISH_B[0] in c["response"]["output"]]
    assert len(spanish) == 1 and spanish[0]["gradingResult"]["componentResults"][0]["metadata"]["cascade"]["why"] == "not_english"
    judge_calls = [c for c in fake.calls() if "Grade these search terms" in c.text]
    assert len(judge_calls) == decided["gemini"] + 2 * outage  # Gemini only for what the offline judge deferred
    assert all("<narration>" in c.text for c in judge_calls)


def test_offline_main_job_scores_both_generators_per_criterion(tmp_path):
    env = {"REELJUDGE_CACHE_DIR": str(tmp_path / "cache")}
    code, results, output = run_promptfoo_eval(
        "promptfooconfig.yaml", tmp_path, "--filter-providers", "^offline", "--filter-first-n", "3", env=env
    )
    assert code in (0, 100), output[-3000:]
    cells = rows(results)
    assert {c["provider"]["label"] for c in cells} == {"offline-keywords", "offline-visual"}
    assert len(cells) == 6
    for cell in cells:
        assert set(CRITERIA) <= set(cell["namedScores"])
        ours = cell["gradingResult"]["componentResults"][0]  # promptfoo wraps our result as a component
        assert "local judge" in ours["reason"] and ours["namedScores"]["film_score"] == cell["namedScores"]["film_score"]
        assert list(ours["metadata"]["breakdown"]) == list(CRITERIA[1:])  # each criterion's reason, under the verdict line
        # the viewer counts one check: the verdict (PASS or FAIL, never both)
        assert len(cell["gradingResult"]["componentResults"]) == 1
        assert "findability" not in ours["reason"]  # no stock key at all: the same for every test, said in metadata (issue 38)
        assert "Pexels not asked: no PEXELS_API_KEY in the environment" in ours["metadata"]["findability"]["notes"]
        assert "film_findability" not in cell["namedScores"]
    assert not any(k.startswith("GEMINI") for k in os.environ)


def test_findability_through_promptfoo_against_fake_stock_apis(stock, tmp_path):
    from support.fake_stock import PEXELS_KEY, PIXABAY_KEY

    stock.default_count = 25
    stock.counts = {"redis stores": 0}  # the keyword baseline's first term for the Redis narrations
    env = {
        "REELJUDGE_CACHE_DIR": str(tmp_path / "cache"),
        "PEXELS_API_KEY": PEXELS_KEY,
        "PIXABAY_API_KEY": PIXABAY_KEY,
        "PEXELS_API_BASE_URL": stock.url,
        "PIXABAY_API_BASE_URL": stock.url,
    }
    code, results, output = run_promptfoo_eval(
        "promptfooconfig.yaml", tmp_path, "--filter-providers", "^offline", "--filter-first-n", "2", env=env
    )
    assert code in (0, 100), output[-3000:]
    cells = rows(results)
    assert len(cells) == 4
    for cell in cells:
        ours = cell["gradingResult"]["componentResults"][0]
        terms = ours["metadata"]["terms"]
        expected = sum(stock.count_for(t) > 0 for t in terms) / len(terms)
        assert cell["namedScores"]["film_findability"] == expected, (terms, cell["namedScores"])
        assert "film_findability" in ours["metadata"]["breakdown"]
        assert "findability (Pexels, Pixabay)" in ours["reason"]
    keyword_cells = [c for c in cells if c["provider"]["label"] == "offline-keywords"]
    assert any("no results: 'redis stores'" in c["gradingResult"]["componentResults"][0]["reason"] for c in keyword_cells)
    asked = {(c.source, c.query) for c in stock.calls()}
    assert ("pexels", "redis stores") in asked and ("pixabay", "redis stores") in asked
    assert all(c.status == 200 for c in stock.calls())


def test_the_marathon_list_fails_through_promptfoo_with_the_reason(fake, tmp_path):
    """Issue 27: concrete but unrelated stock shots scored 0.8 by the table alone and passed."""
    from support.promptfoo_run import ROOT

    fake.on(lambda body, text: "birthday cake" in text, json_reply({**_judgement(0, 3, 1), "score": 0.8, "points": 4}))
    config = tmp_path / "marathon.yaml"
    config.write_text(
        "prompts: ['{{terms}}']\nproviders: [echo]\n"
        "defaultTest:\n  assert:\n    - type: python\n"
        f"      value: file://{ROOT / 'assertions' / 'filmability.py'}\n"
        "      config: {judge: gemini}\n"
        "tests:\n"
        "  - description: marathon\n"
        "    vars: {narration: 'Marathon runners hit the wall around mile twenty',"
        " terms: 'birthday cake, cat sleeping on a sofa, snowy mountains'}\n"
        "  - description: table-alone\n"
        "    vars: {narration: 'Marathon runners hit the wall around mile twenty',"
        " terms: 'birthday cake, cat sleeping on a sofa, snowy mountains'}\n"
        "    assert:\n    - type: python\n"
        f"      value: file://{ROOT / 'assertions' / 'filmability.py'}\n"
        "      config: {judge: gemini, min_relevance: 0}\n"
    )
    env = {"GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url,
           "REELJUDGE_CACHE_DIR": str(tmp_path / "cache")}
    code, results, output = run_promptfoo_eval(str(config), tmp_path, env=env)
    assert code == 100, output[-3000:]
    cells = {c["testCase"]["description"]: c for c in rows(results)}
    marathon = cells["marathon"]
    assert marathon["success"] is False and marathon["namedScores"]["film_score"] == 0.8
    assert "relevance 0/3 is under min_relevance 1" in marathon["gradingResult"]["reason"], marathon["gradingResult"]
    # the same list with min_relevance 0 in its own assertion: the table alone, which passed it
    ours = [c for c in cells["table-alone"]["gradingResult"]["componentResults"] if "min_relevance" not in c.get("reason", "")]
    assert any(c["pass"] and "PASS 0.8" in c.get("reason", "") for c in ours), cells["table-alone"]["gradingResult"]
