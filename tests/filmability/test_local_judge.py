"""The offline judge: the spec's worked examples land in their bands; odd input gets explicit results."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from reeljudge.filmability.embeddings import EmbeddingModelError, get_embedder
from reeljudge.filmability.judge_local import LocalJudgeOptions, judge_terms_locally
from reeljudge.filmability.score_table import score_breakdown

pytestmark = pytest.mark.usefixtures("offline_judge_data")  # judges offline: norms and bank vectors made once per run

REDIS_FAST = "Redis stores everything in memory, making it blazingly fast"
CLOSURES = "You need to understand how closures work"
REDIS = "Redis stores everything in memory"


def test_spec_excellent_example_scores_3_3_1(model) -> None:
    j = judge_terms_locally(REDIS_FAST, ["server room", "computer RAM", "data center lights", "fast motion blur"])
    b = j.breakdown
    assert (b.relevance, b.filmability, b.variety) == (3, 3, 1)
    assert score_breakdown(b).score == 1.0
    assert b.unfilmable_terms == []


def test_spec_good_example_is_capped_at_0_8(model) -> None:
    b = judge_terms_locally(CLOSURES, ["developer coding", "computer screen code", "programmer thinking"]).breakdown
    assert (b.relevance, b.filmability, b.variety) == (2, 3, 1)
    assert score_breakdown(b).score == 0.8


def test_spec_poor_example_is_in_the_0_3_band(model) -> None:
    b = judge_terms_locally(REDIS, ["performance", "efficiency", "caching", "fast database"]).breakdown
    assert b.filmability == 0 and b.variety == 0 and b.points <= 1
    assert score_breakdown(b).score == 0.3
    assert sorted(b.unfilmable_terms) == sorted(["performance", "efficiency", "caching", "fast database"])


def test_criterion_reasons_name_terms_and_numbers(model) -> None:
    b = judge_terms_locally(REDIS, ["performance", "efficiency", "caching", "fast database"]).breakdown
    assert set(b.criterion_reasons) == {"relevance", "filmability", "variety"}
    assert "'efficiency' 2.15" in b.criterion_reasons["filmability"]
    assert "0/3" in b.criterion_reasons["filmability"]
    assert "caching" in b.criterion_reasons["relevance"]
    assert "efficiency" in b.reason


def test_unrelated_filmable_terms_get_no_relevance(model) -> None:
    b = judge_terms_locally("Add fresh basil just before serving the pasta", ["server room", "computer RAM", "typing"]).breakdown
    assert b.relevance == 0 and b.filmability == 3


def test_related_filmable_terms_outscore_unrelated_ones(model) -> None:
    good = judge_terms_locally("Add fresh basil just before serving the pasta", ["basil leaves", "pasta plate", "chef cooking"])
    assert good.breakdown.relevance == 3


def test_near_duplicate_terms_get_no_variety(model) -> None:
    b = judge_terms_locally(REDIS, ["server room", "server rooms", "a server room"]).breakdown
    assert b.variety == 0 and "too similar" in b.criterion_reasons["variety"]


def test_details_are_json_serialisable_and_name_the_model(model) -> None:
    j = judge_terms_locally(REDIS_FAST, ["server room", "computer RAM"])
    data = json.loads(json.dumps(j.details))
    assert data["model"]["name"].startswith("sentence-transformers/all-MiniLM-L6-v2")
    assert data["model"]["version"]
    assert data["terms"][0]["term"] == "server room" and data["terms"][0]["status"] == "filmable"
    assert {"similarity", "match", "level", "best_chunk"} <= set(data["relevance"][1])


def test_empty_terms_give_zero_with_a_reason() -> None:
    b = judge_terms_locally(REDIS, []).breakdown
    assert b.points == 0 and "no search terms" in b.reason


def test_empty_narration_gives_zero_relevance_with_reason(model) -> None:
    b = judge_terms_locally("", ["sunset", "beach"]).breakdown
    assert b.relevance == 0 and "no narration" in b.criterion_reasons["relevance"]
    assert b.filmability == 3


def test_non_english_input_is_not_judged() -> None:
    """Issue 35: the offline judge reads English; Spanish terms (or a Spanish narration) are not judged, never POOR."""
    from reeljudge.errors import JudgeError

    with pytest.raises(JudgeError, match="not judged: the offline judge reads English") as caught:
        judge_terms_locally("La base de datos guarda todo en memoria", ["base de datos", "memoria rápida"])
    assert caught.value.kind == "not_english" and "narration's words" in str(caught.value)
    with pytest.raises(JudgeError, match="terms' words are in its English lexicon"):
        judge_terms_locally("A dog runs on the beach at sunset", ["perro corriendo en la playa", "atardecer en el mar"])


def test_spanish_terms_fail_as_not_judged_through_the_python_face() -> None:
    import reeljudge

    verdict = reeljudge.judge_terms("A dog runs on the beach at sunset", ["perro corriendo en la playa", "atardecer en el mar",
                                                                           "arena dorada"], judge="local")
    assert verdict.judged is False and verdict.passed is False
    assert verdict.reason.startswith("not judged: the offline judge reads English")


def test_two_hundred_terms_are_judged(model) -> None:
    terms = [f"{w} {n}" for n in ("close-up", "at night", "in the rain", "from above") for w in
             ("server", "laptop", "keyboard", "cable", "office", "river", "tree", "street", "car", "hand") * 5]
    assert len(terms) == 200
    j = judge_terms_locally(REDIS_FAST, terms)
    assert j.breakdown.filmability == 3
    assert len(j.details["terms"]) == 200 and len(j.details["relevance"]) == 200


def test_options_thresholds_change_the_mapping(model) -> None:
    strict = LocalJudgeOptions(concreteness_threshold=4.9)
    b = judge_terms_locally(REDIS_FAST,
                            ["server room", "computer RAM", "data center lights", "fast motion blur"], options=strict).breakdown
    assert b.filmability < 3


def test_unknown_backend_raises_a_reeljudge_error() -> None:
    with pytest.raises(EmbeddingModelError, match="unknown embedding backend"):
        get_embedder("no-such-model")


def test_importing_the_judge_loads_no_heavy_modules() -> None:
    code = (
        "import sys, reeljudge.filmability.judge_local, reeljudge.filmability.generators.visual;"
        "print(sorted(m for m in ('numpy','onnxruntime','tokenizers','lemminflect','nltk') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
