"""The offline concreteness lexicon: required words, multiword longest match, lemmatising."""

from __future__ import annotations

import pytest

from reeljudge.filmability import lexicon
from reeljudge.filmability.lexicon import coverage, lemmas, segment
from reeljudge.filmability.term_reading import term_concreteness

pytestmark = pytest.mark.usefixtures("offline_judge_data")  # judges offline: norms and bank vectors made once per run

UNFILMABLE = ["efficiency", "scalability", "closure", "API"]
FILMABLE = ["server room", "typing", "sunset", "frustrated person"]


@pytest.mark.parametrize("term", UNFILMABLE)
def test_spec_abstract_terms_are_unfilmable(term: str) -> None:
    tc = term_concreteness(term)
    assert tc.status == "abstract", tc
    assert tc.score is not None and tc.score < lexicon.DEFAULT_THRESHOLD


@pytest.mark.parametrize("term", FILMABLE)
def test_spec_concrete_terms_are_filmable(term: str) -> None:
    tc = term_concreteness(term)
    assert tc.status == "filmable", tc
    assert tc.score is not None and tc.score >= lexicon.DEFAULT_THRESHOLD


def test_published_norm_values_are_read_from_the_csv() -> None:
    words = lexicon.load_norms().words
    assert words["efficiency"] == pytest.approx(2.15)
    assert words["sunset"] == pytest.approx(4.54)
    assert words["server"] == pytest.approx(4.55)
    assert len(words) > 90_000  # Brysbaert lemmas plus Muraki multiword expressions


def test_multiword_longest_match_takes_the_rated_phrase() -> None:
    units = segment("computer screen code")
    assert [u.text for u in units] == ["computer screen", "code"]
    assert units[0].source == "norms" and units[0].rating == pytest.approx(4.83)


def test_multiword_head_word_makes_term_filmable() -> None:
    # Until issue 11 the most concrete word decided ("motion" 3.8), the documented limitation that let
    # "water usage" pass through "water"; now the head decides, here the curated shot style "motion blur".
    blur = term_concreteness("fast motion blur")
    assert blur.status == "filmable" and blur.anchor == "motion blur"
    person = term_concreteness("frustrated person")
    assert person.anchor == "person"
    assert term_concreteness("frustrated").status == "abstract"


def test_abstract_modifier_on_jargon_stays_unfilmable() -> None:
    assert term_concreteness("fast database").status == "abstract"
    assert term_concreteness("blazingly fast").status == "abstract"


def test_lemmatising_plural_to_rated_lemma() -> None:
    assert "server" in lemmas("servers")
    tc = term_concreteness("servers")
    assert tc.status == "filmable"
    assert tc.units[0].entry == "server" and tc.units[0].source == "norms-lemma"


def test_lemmatising_inflected_phrase_tail() -> None:
    units = segment("computer screens")
    assert len(units) == 1 and units[0].entry == "computer screen"


def test_typing_stays_filmable_although_its_lemma_is_abstract() -> None:
    # lemminflect's verb lemma "type" is rated 3.3 (the noun sense "a kind of"); the action is filmable
    assert "type" in lemmas("typing")
    assert term_concreteness("typing").status == "filmable"
    assert term_concreteness("developer typing fast").status == "filmable"


def test_jargon_missing_from_norms_is_decided_by_the_curated_list() -> None:
    for word in ("Kubernetes", "Redis", "recursion", "caching"):
        assert term_concreteness(word).status == "abstract", word
    assert term_concreteness("computer RAM").status == "filmable"


@pytest.mark.parametrize("term", ["", "   ", "数据库", "base de datos", "xqzvv"])
def test_terms_without_coverage_are_unknown_not_guessed(term: str) -> None:
    tc = term_concreteness(term)
    assert tc.status == "unknown" and tc.score is None


def test_coverage_tells_english_from_other_languages() -> None:
    assert coverage("Redis stores everything in memory") >= 0.8
    assert coverage("La base de datos guarda todo en memoria") < 0.5
    assert coverage("") == 0.0


def test_cached_norms_equal_parsed_csv(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("REELJUDGE_CACHE_DIR", str(tmp_path))
    lexicon.load_norms.cache_clear()
    try:
        first = lexicon.load_norms()
        assert list(tmp_path.glob("concreteness-*.pickle")), "parsed norms were not cached"
        lexicon.load_norms.cache_clear()
        second = lexicon.load_norms()
        assert second.words == first.words and second.phrases == first.phrases
    finally:
        lexicon.load_norms.cache_clear()
