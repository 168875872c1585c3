"""Shared fixtures: a clean environment (no real keys ever used), the fake Gemini and stock-API servers,
one embedded PostgreSQL per process, the probes corpus and the texture corpus's test split written once per
run, the offline embedding model and the offline judge's derived data (made once per run).

The tests live in folders by area (``tests/<area>/test_*.py``: no ``__init__.py``, so module names stay
unique across folders); shared support is ``tests/support`` (``support.<module>``: this file's folder is
on ``sys.path``). A test module imports nothing from a test module of another folder
(``tests/house/test_tests_layout.py``): what two areas share goes to ``tests/support``. The fast lane
(``npm run test:fast``) leaves out markers ``e2e`` (runs promptfoo), ``browser`` (runs Chromium) and ``slow``
(runs set-up, builds the wheel and npm tarball, clones, runs the workflow harness, builds or judges a corpus,
starts a cluster or a process pool: what dominated the lane's time, measured in docs/decisions.md): any test that
starts a promptfoo process carries ``e2e``; a test that uses a fixture of :data:`SLOW_FIXTURES` is ``slow`` by it.

``npm test`` runs the tests in parallel (pytest-xdist, ``scripts/test.sh``), so every test must be
safe next to any other, in another process, in any order:

- files only under ``tmp_path`` / ``tmp_path_factory`` (never a fixed folder, never into the repository);
- servers on port 0 or ``support.ab_study.free_port()`` (never a fixed port), on 127.0.0.1;
- expensive set-up shared by the whole run through ``support.run_once.once_per_run`` (built once under a
  file lock, then read-only), like the wheel, npm tarball and user project of ``support/user_project.py``;
- a module- or session-scoped fixture that runs promptfoo follows the process's ``REELJUDGE_PROMPTFOO``
  (the pass selects the release); tests see it too: ``clean_env`` keeps it;
- no outcome depends on how fast or loaded the machine is: every deadline, backoff and poll interval
  of the code the test runs in its own process is measured on :class:`support.clock.FakeClock`
  (fixture ``fake_clock``, for every test), which moves only when that code sleeps; a fake server
  that must not answer holds the request until the client gives up (``fake_gemini.unanswered_reply``);
  a reply that must arrive has a per-attempt timeout far above any stall of a loaded machine. That
  timeout is an HTTP client's real timer, and the retry policy gives an attempt at most the time left
  before the deadline: a test's deadlines are long (100 s, not 0.5 s), which costs nothing on the clock;
- nothing leaves 127.0.0.1: every HTTP(S) client the tests start (promptfoo and the Node it runs, npm,
  uv, google-genai's httpx, urllib) is sent to a local port that refuses connections
  (``support.offline_network``), except for loopback hosts. promptfoo posts a "telemetry disabled" event
  to r.promptfoo.app even with ``PROMPTFOO_DISABLE_TELEMETRY=1``; with this it is refused here.
"""

from __future__ import annotations

import atexit
import gc
import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

import pytest

from reeljudge.retry import use_clock
from support import promptfoo_run, runner_order
from support.clock import FakeClock
from support.fake_gemini import FakeGemini
from support.fake_stock import PEXELS_KEY, PIXABAY_KEY, FakeStock
from support.offline_network import refuse_outside_traffic

CREDENTIAL_VARS = (
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GOOGLE_GEMINI_BASE_URL",
    "GOOGLE_VERTEX_BASE_URL",
    "PEXELS_API_KEY",
    "PIXABAY_API_KEY",
    "PEXELS_API_BASE_URL",
    "PIXABAY_API_BASE_URL",
)


refuse_outside_traffic()


#: session fixtures whose set-up dominated the fast lane (docs/decisions.md): the probes corpus, the texture
#: corpus's test split (written and probed), the wheel, npm tarball and the user project built on them
SLOW_FIXTURES = frozenset({"corpus_v0", "texture_test_split", "artifacts"})


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``slow`` every test that uses a fixture of :data:`SLOW_FIXTURES` (before ``-m`` selects)."""
    for item in items:
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


def pytest_configure(config: pytest.Config) -> None:
    """Register :mod:`support.runner_order` (the order the parallel runner takes the selected tests in), and
    have this process skip the interpreter's last garbage collection when it exits.

    Python's finalization collects every object still alive; in a worker that ran a few hundred tests
    (parsed norms, decoded frames, servers' leftovers) that took 2 s, during which the run waited for it
    (measured in docs/decisions.md). ``gc.freeze`` at exit moves those objects out of the collector's
    reach; they are still freed as the interpreter tears down, and every other exit handler still runs.
    """
    config.pluginmanager.register(runner_order, "reeljudge-runner-order")
    atexit.register(gc.freeze)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Tell the promptfoo runners of ``support`` which test runs: they refuse one not marked ``e2e``."""
    promptfoo_run.RUNNING_MARKERS = {mark.name for mark in item.iter_markers()}


@pytest.fixture(scope="session", autouse=True)
def one_tls_context() -> Iterator[None]:
    """The default TLS contexts of httpx and of google-genai built once per process, not once per client.

    Every server of the tests speaks plain HTTP on 127.0.0.1, yet each client loads the CA bundle into a new
    TLS context (24 ms of CPU each): ``httpx.get`` makes one per call, and each google-genai client two of its
    own (for its HTTP client and its websocket), with ``ssl.create_default_context``; the tests make
    thousands (552 in the Gecko, A/B judge, batch and provider tests alone: 13 s of CPU). A client that asks for
    its own verification (a CA of its own, no verification, a client certificate) still builds its own context.
    """
    import ssl
    import types

    import google.genai._api_client as genai_client
    import httpx._transports.default as transports  # the one place httpx builds a default context

    build = transports.create_ssl_context
    shared = lru_cache(maxsize=2)(lambda trust_env: build(verify=True, cert=None, trust_env=trust_env))

    def create(verify: Any = True, cert: Any = None, trust_env: bool = True) -> Any:
        return shared(trust_env) if verify is True and cert is None else build(verify=verify, cert=cert, trust_env=trust_env)

    genai_default = lru_cache(maxsize=4)(lambda cafile, capath: ssl.create_default_context(cafile=cafile, capath=capath))

    def genai_create(*args: Any, **kwargs: Any) -> ssl.SSLContext:
        if args or set(kwargs) - {"cafile", "capath"}:  # not the default google-genai builds: its own
            return ssl.create_default_context(*args, **kwargs)
        return genai_default(kwargs.get("cafile"), kwargs.get("capath"))

    genai_ssl = types.SimpleNamespace(**{**vars(ssl), "create_default_context": genai_create})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(transports, "create_ssl_context", create)
        patch.setattr(genai_client, "ssl", genai_ssl)  # google-genai's own name for the module: no one else's
        yield


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """No test sees a real credential, a user's reeljudge settings, or the project's cache.

    ``REELJUDGE_PROMPTFOO`` stays: it selects the promptfoo release the end-to-end tests run on.
    """
    for name in list(os.environ):
        if name in CREDENTIAL_VARS or (name.startswith("REELJUDGE_") and name != "REELJUDGE_PROMPTFOO"):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("REELJUDGE_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture(autouse=True)
def fake_clock() -> Iterator[FakeClock]:
    """The clock of every deadline, backoff and poll interval in this process during the test: one
    that moves only when the code under test sleeps (``clock.sleeps`` lists the waits it asked for)."""
    with use_clock(FakeClock()) as clock:
        yield clock


@pytest.fixture(scope="module")
def measure_once() -> Iterator[None]:
    """For a module's tests: each clip decoded and measured once per process (``support.measure_once``)."""
    from support.measure_once import measuring_once

    with measuring_once():
        yield


@pytest.fixture
def fake() -> Iterator[FakeGemini]:
    """A running fake Gemini server, stopped after the test."""
    with FakeGemini() as server:
        yield server


@pytest.fixture
def stock() -> Iterator[FakeStock]:
    """A running fake of the Pexels and Pixabay video search APIs, stopped after the test."""
    with FakeStock() as server:
        yield server


@pytest.fixture
def stock_env(stock: FakeStock, monkeypatch: pytest.MonkeyPatch) -> FakeStock:
    """A user with (fake) Pexels and Pixabay keys, pointed at the fake stock APIs."""
    monkeypatch.setenv("PEXELS_API_KEY", PEXELS_KEY)
    monkeypatch.setenv("PIXABAY_API_KEY", PIXABAY_KEY)
    monkeypatch.setenv("PEXELS_API_BASE_URL", stock.url)
    monkeypatch.setenv("PIXABAY_API_BASE_URL", stock.url)
    return stock


@pytest.fixture
def gemini_env(fake: FakeGemini, monkeypatch: pytest.MonkeyPatch) -> FakeGemini:
    """The environment of a user with a (fake) key, pointed at the fake server, with fast retries.

    The per-attempt timeout stays the default (60 s): a reply the test expects must never lose a
    race with the HTTP client's timer on a loaded machine; a test of timeouts sets ``timeout_s``
    and an ``unanswered_reply``."""
    monkeypatch.setenv("GEMINI_API_KEY", "test-key-not-real")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", fake.url)
    monkeypatch.setenv("REELJUDGE_BACKOFF_INITIAL_S", "0.01")
    monkeypatch.setenv("REELJUDGE_BACKOFF_MAX_S", "0.05")
    return fake


@pytest.fixture
def vertex_env(gemini_env: FakeGemini, monkeypatch: pytest.MonkeyPatch) -> FakeGemini:
    """A Vertex user (project, location, application-default credentials) pointed at the fake."""
    import google.auth
    import google.oauth2.credentials

    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "proj")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "us-central1")
    monkeypatch.setenv("GOOGLE_VERTEX_BASE_URL", gemini_env.url)
    monkeypatch.setattr(
        google.auth, "default", lambda **_: (google.oauth2.credentials.Credentials(token="fake-token"), "proj")
    )
    return gemini_env


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """One embedded PostgreSQL server for this test process, started on first use; its URL.

    Tests never use it directly: each takes a new, empty database (``postgres_database``).
    """
    from support.postgres import postgres_server

    with postgres_server() as url:
        yield url


@pytest.fixture
def postgres_database(postgres_url: str) -> str:
    """A new, empty database on this process's PostgreSQL server; its URL."""
    from support.postgres import new_database

    return new_database(postgres_url)


@pytest.fixture(scope="session")
def corpus_v0(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Variant 0 of the probes corpus (``support.corpus``): clip name → its file, written once per test run
    (the corpus and findings tests share it, whichever processes they run in), then read-only."""
    from support.corpus import write_corpus
    from support.run_once import once_per_run

    def build(folder: Path) -> dict[str, Path]:
        return {clip.name: path for _, clip, path in write_corpus(folder, (0,))}

    return once_per_run(tmp_path_factory, "probes-corpus-v0", build)


@pytest.fixture(scope="session")
def texture_test_split(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict]]:
    """The texture corpus's test split (``reeljudge.synth.texture_corpus``, 180 clips), written and probed
    once per test run (the probes' and the offline A/B judge's tests share it): clip name → probe →
    its result as plain data (``passed``, ``gating``, ``reason``, ``details``)."""
    from support.run_once import once_per_run
    from support.textures import probe_texture_split

    return once_per_run(tmp_path_factory, "texture-corpus-test", lambda folder: probe_texture_split(folder, "test"))


@pytest.fixture(scope="session")
def offline_judge_data(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The offline judge's norms and background bank vectors in this process, made once per test run and read
    by every process (``support.offline_judge``): a module that judges offline uses it (``usefixtures``)."""
    from support.offline_judge import warm_offline_judge

    warm_offline_judge(tmp_path_factory)


@pytest.fixture(scope="module")
def model():
    """The offline judge's embedding model, loaded once per test module."""
    from reeljudge.filmability.embeddings import get_embedder

    return get_embedder()
