"""The background narrations (issue 35): shipped in the package, embedded once, kept in the one judge cache."""

from __future__ import annotations

import numpy as np
import pytest

from reeljudge.cache import open_cache
from reeljudge.filmability import background
from reeljudge.filmability.background import KIND, bank_digest, bank_vectors, read_bank
from reeljudge.filmability.relevance import narration_chunks
from reeljudge.package_data import background_narrations_path


def test_the_bank_is_package_data_of_a_few_hundred_narrations_across_many_domains() -> None:
    assert background_narrations_path().is_file()
    bank = read_bank()
    assert 300 <= len(bank) <= 500
    assert len({n.domain for n in bank}) >= 40
    assert len({n.text for n in bank}) == len(bank)  # no narration twice
    assert {n.domain for n in bank} >= background.SOFTWARE_DOMAINS


def test_a_malformed_line_is_an_error_naming_it() -> None:
    with pytest.raises(ValueError, match="line 2: expected 'domain | narration'"):
        read_bank("# comment\nno separator here\n")


class Counting:
    """The real model, counting the phrases it is asked to embed."""

    def __init__(self, model) -> None:
        self.model, self.info, self.phrases = model, model.info, 0

    def embed(self, texts):
        self.phrases += len(texts)
        return self.model.embed(texts)


@pytest.mark.slow  # embeds the whole background bank
def test_vectors_are_embedded_once_then_read_from_the_judge_cache_bit_for_bit(model, tmp_path, monkeypatch) -> None:
    cache = open_cache(str(tmp_path / "cache"), "readwrite")
    monkeypatch.setattr(background, "_MEMO", {})
    first = Counting(model)
    made = bank_vectors(first, narration_chunks, cache)
    assert first.phrases > 1000 and len(made.starts) == len(read_bank())
    identity = {"model": model.info.as_dict(), "bank": bank_digest(read_bank()), "format": background.RECORD_FORMAT}
    assert cache.get_record(KIND, identity) is not None
    monkeypatch.setattr(background, "_MEMO", {})  # a new process: nothing in memory
    second = Counting(model)
    read = bank_vectors(second, narration_chunks, cache)
    assert second.phrases == 0  # read from the cache, not embedded again
    assert np.array_equal(read.chunks, made.chunks) and np.array_equal(read.starts, made.starts)
    assert np.array_equal(read.sentences, made.sentences)
    again = Counting(model)
    assert bank_vectors(again, narration_chunks, cache) is read and again.phrases == 0  # the process keeps them


@pytest.mark.slow  # embeds the whole background bank
def test_a_cache_record_that_does_not_fit_is_embedded_anew(model, tmp_path, monkeypatch) -> None:
    cache = open_cache(str(tmp_path / "cache"), "readwrite")
    identity = {"model": model.info.as_dict(), "bank": bank_digest(read_bank()), "format": background.RECORD_FORMAT}
    cache.put_record(KIND, identity, {"dim": 384, "starts": [0, 1], "chunks": "AAAA"})
    monkeypatch.setattr(background, "_MEMO", {})
    counting = Counting(model)
    vectors = bank_vectors(counting, narration_chunks, cache)
    assert counting.phrases > 1000 and len(vectors.starts) == len(read_bank())
