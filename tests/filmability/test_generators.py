"""Offline baseline generators and their promptfoo provider entries."""

from __future__ import annotations

import json

import pytest
import yaml

from reeljudge.filmability.term_reading import term_concreteness
from reeljudge.filmability.generators.keywords import keyword_terms
from reeljudge.filmability.generators.visual import visual_terms
from support.entries import load_entry
from support.paths import ROOT

pytestmark = pytest.mark.usefixtures("offline_judge_data")  # judges offline: norms and bank vectors made once per run

NARRATIONS = yaml.safe_load((ROOT / "datasets" / "narrations.yaml").read_text(encoding="utf-8"))


def _provider(name: str):
    return load_entry(ROOT / "providers" / f"terms_{name}.py")


def test_dataset_has_enough_tech_and_general_narrations() -> None:
    assert len(NARRATIONS) >= 25
    assert sum(n["topic"] == "tech" for n in NARRATIONS) >= 15
    assert sum(n["topic"] != "tech" for n in NARRATIONS) >= 10
    assert len({n["id"] for n in NARRATIONS}) == len(NARRATIONS)
    texts = {n["narration"] for n in NARRATIONS}
    assert "Redis stores everything in memory, making it blazingly fast" in texts
    assert "You need to understand how closures work" in texts
    assert "Redis stores everything in memory" in texts


@pytest.mark.parametrize("generate", [keyword_terms, visual_terms])
def test_generators_are_deterministic_and_non_empty(generate) -> None:
    assert len(NARRATIONS) >= 25
    for item in NARRATIONS:
        first = generate(item["narration"])
        assert first == generate(item["narration"])
        assert 1 <= len(first) <= 4 and len(set(first)) == len(first), (item["id"], first)


def test_generators_differ_and_visual_is_more_filmable() -> None:
    differ = 0
    keyword_filmable = visual_filmable = total_k = total_v = 0
    for item in NARRATIONS:
        k, v = keyword_terms(item["narration"]), visual_terms(item["narration"])
        differ += k != v
        keyword_filmable += sum(term_concreteness(t).status == "filmable" for t in k)
        visual_filmable += sum(term_concreteness(t).status == "filmable" for t in v)
        total_k, total_v = total_k + len(k), total_v + len(v)
    assert differ == len(NARRATIONS)
    assert visual_filmable / total_v > keyword_filmable / total_k + 0.3


def test_visual_generator_expands_abstract_words_into_scenes() -> None:
    terms = visual_terms("Redis stores everything in memory, making it blazingly fast")
    assert "computer RAM" in terms and "fast motion blur" in terms
    assert keyword_terms("Redis stores everything in memory") == ["redis stores", "memory"]


@pytest.mark.parametrize("name", ["keywords", "visual"])
def test_provider_returns_json_terms_for_the_narration_var(name: str) -> None:
    out = _provider(name).call_api("prompt", {}, {"vars": {"narration": "Autumn turns the forest red and gold"}})
    terms = json.loads(out["output"])
    assert isinstance(terms, list) and terms and all(isinstance(t, str) for t in terms)


@pytest.mark.parametrize("name", ["keywords", "visual"])
def test_provider_uses_configured_var_and_names_it_when_missing(name: str) -> None:
    mod = _provider(name)
    ok = mod.call_api("p", {"config": {"narration_var": "text"}}, {"vars": {"text": "Git keeps every version"}})
    assert json.loads(ok["output"])
    missing = mod.call_api("p", {"config": {"narration_var": "text"}}, {"vars": {"narration": "x"}})
    assert "error" in missing and "'text'" in missing["error"] and "output" not in missing
