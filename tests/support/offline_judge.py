"""The offline filmability judge's derived data, made once per test run and read by every process.

The judge's first judgment in a process parses the concreteness and perception norms and embeds the
background bank (a few seconds of CPU); the product keeps them in the process and in the judge cache, so
the next process reads them. Every test has a fresh, empty cache folder (``clean_env``), so without this
each pytest worker would parse and embed them again. Here the first process that needs them does it into
a run-wide cache folder (``once_per_run``, under a file lock), and each process loads them from there
through the product's own readers (the norms' pickles, the bank's cache record in a ``replay`` cache):
bit for bit what it would have computed (``tests/filmability/test_background.py``,
``tests/filmability/test_lexicon.py``), and nothing written into any test's cache.

The tests of those caches themselves empty the process's copies first and use their own folders.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.run_once import once_per_run

#: the run folder's name for the store
STORE = "offline-judge-data"


def load_into_process(folder: str, mode: str) -> None:
    """Load the norms, perceptual strengths and background bank vectors from the judge cache at ``folder``
    into this process (``mode`` ``readwrite``: compute and store what is missing; ``replay``: only read)."""
    from reeljudge.cache import CACHE_DIR_ENV, CACHE_MODE_ENV, open_cache
    from reeljudge.filmability import lexicon
    from reeljudge.filmability.background import bank_vectors
    from reeljudge.filmability.embeddings import get_embedder
    from reeljudge.filmability.relevance import narration_chunks

    with pytest.MonkeyPatch.context() as env:  # the norms' pickles live in the cache folder the environment names
        env.setenv(CACHE_DIR_ENV, folder)
        env.delenv(CACHE_MODE_ENV, raising=False)
        lexicon.load_norms()
        lexicon.load_perception()
    bank_vectors(get_embedder(), narration_chunks, open_cache(folder, mode))


def warm_offline_judge(tmp_path_factory: pytest.TempPathFactory) -> None:
    """This process's offline judge data, from the run's store (built first if no process has)."""

    def build(folder: Path) -> str:
        load_into_process(str(folder), "readwrite")
        return str(folder)

    load_into_process(once_per_run(tmp_path_factory, STORE, build), "replay")
