"""Findability: clip counts from the Pexels and Pixabay video search APIs (a local fake of both, over HTTP)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from support.fake_stock import PEXELS_KEY, PIXABAY_KEY, FakeStock
from reeljudge.cache import JudgeCache
from reeljudge.assertions.filmability import get_assert
from reeljudge.filmability.findability import find_clips
from reeljudge.retry import RetryPolicy
from reeljudge.stock.search import SearchSettings, StockSearchError, count_clips
from reeljudge.stock.sources import PEXELS, PIXABAY

pytestmark = pytest.mark.usefixtures("offline_judge_data")  # judges offline: norms and bank vectors made once per run

REDIS_FAST = "Redis stores everything in memory, making it blazingly fast"
TERMS = ["server room", "computer RAM", "data center lights", "fast motion blur"]
COUNTS = {"server room": 812, "computer ram": 140, "data center lights": 37, "fast motion blur": 0}


# no reply races a timer
FAST = RetryPolicy(max_attempts=3, timeout_s=60, deadline_s=240, backoff_initial_s=0.01, backoff_max_s=0.05)


def _settings(tmp_path: Path, **kw) -> SearchSettings:
    return SearchSettings(cache_dir=str(tmp_path / "cache"), policy=kw.pop("policy", FAST), **kw)


def _cache(tmp_path: Path, mode: str = "readwrite") -> JudgeCache:
    return JudgeCache(tmp_path / "cache", mode)


def _env(stock: FakeStock, **keys: str) -> dict[str, str]:
    return {"PEXELS_API_BASE_URL": stock.url, "PIXABAY_API_BASE_URL": stock.url, **keys}


BOTH = {"PEXELS_API_KEY": PEXELS_KEY, "PIXABAY_API_KEY": PIXABAY_KEY}


# ---- the wire ------------------------------------------------------------------------------------


def test_pexels_request_and_reply_shapes(stock: FakeStock, tmp_path: Path) -> None:
    stock.counts = {"server room": 812}
    got = count_clips(PEXELS, "Server  Room", key=PEXELS_KEY, base_url=stock.url,
                      settings=_settings(tmp_path), cache=_cache(tmp_path))
    assert (got.source, got.query, got.total, got.cached) == ("pexels", "server room", 812, False)
    call = stock.calls("pexels")[0]
    assert call.headers["Authorization"] == PEXELS_KEY and call.params == {"query": "server room", "per_page": "1", "page": "1"}
    assert got.rate_limit["limit"] == "20000" and int(got.rate_limit["reset"]) > 1_700_000_000  # a UNIX time


def test_pixabay_request_and_reply_shapes(stock: FakeStock, tmp_path: Path) -> None:
    stock.counts = {"server room": 812}
    got = count_clips(PIXABAY, "server room", key=PIXABAY_KEY, base_url=stock.url,
                      settings=_settings(tmp_path), cache=_cache(tmp_path))
    assert got.total == 500  # totalHits: what the API hands out, capped at 500
    call = stock.calls("pixabay")[0]
    assert call.params == {"key": PIXABAY_KEY, "q": "server room", "per_page": "3"}
    assert "Authorization" not in call.headers and got.rate_limit["limit"] == "100"


def test_counts_are_cached_without_the_key_and_refreshed_when_old(stock: FakeStock, tmp_path: Path) -> None:
    stock.counts = {"server room": 5}
    for term in ("server room", "SERVER ROOM", " server   room "):
        got = count_clips(PEXELS, term, key=PEXELS_KEY, base_url=stock.url, settings=_settings(tmp_path), cache=_cache(tmp_path))
        assert got.total == 5
    assert len(stock.calls()) == 1
    stored = "".join(p.read_text() for p in (tmp_path / "cache").rglob("*.json"))
    assert '"total": 5' in stored and PEXELS_KEY not in stored and stock.url not in stored
    count_clips(PEXELS, "server room", key=PEXELS_KEY, base_url=stock.url, settings=_settings(tmp_path, max_age_h=0),
                cache=_cache(tmp_path))
    assert len(stock.calls()) == 2


def test_replay_cache_never_calls_and_a_miss_says_so(stock: FakeStock, tmp_path: Path) -> None:
    stock.counts = {"sunset": 9}
    count_clips(PEXELS, "sunset", key=PEXELS_KEY, base_url=stock.url, settings=_settings(tmp_path), cache=_cache(tmp_path))
    replay = _cache(tmp_path, "replay")
    assert count_clips(PEXELS, "sunset", key=None, base_url=stock.url,
                       settings=_settings(tmp_path, max_age_h=0), cache=replay).cached
    with pytest.raises(StockSearchError, match="replay.*no Pexels count is cached for 'sunrise'") as info:
        count_clips(PEXELS, "sunrise", key=PEXELS_KEY, base_url=stock.url, settings=_settings(tmp_path), cache=replay)
    assert info.value.kind == "cache_miss" and len(stock.calls()) == 1


@pytest.mark.parametrize(
    "source, key, status, kind, words",
    [(PEXELS, "wrong-key", None, "stock_search_error", "rejected the API key in PEXELS_API_KEY (HTTP 401)"),
     (PIXABAY, "wrong-key", None, "stock_search_error", "Pixabay answered HTTP 400: [ERROR 400] Invalid or missing API key"),
     (PEXELS, PEXELS_KEY, 429, "rate_limited", "Pexels rate limit reached (HTTP 429)"),
     (PIXABAY, PIXABAY_KEY, 429, "rate_limited", "Pixabay rate limit reached (HTTP 429): API rate limit exceeded"),
     (PIXABAY, PIXABAY_KEY, 503, "stock_search_error", "Pixabay answered HTTP 503")],
)
def test_failures_name_the_source_and_what_happened(stock: FakeStock, tmp_path: Path, source, key, status, kind, words) -> None:
    if status:
        stock.fail(source.name, status, times=10)
    with pytest.raises(StockSearchError) as info:
        count_clips(source, "sunset", key=key, base_url=stock.url, settings=_settings(tmp_path), cache=_cache(tmp_path))
    assert info.value.kind == kind and words in info.value.message
    assert not list((tmp_path / "cache").rglob("*.json")), "a failure must not be cached"


@pytest.mark.parametrize("source, status", [(PEXELS, 429), (PIXABAY, 429), (PEXELS, 503), (PIXABAY, 502)])
def test_rate_limits_and_outages_are_retried_by_the_shared_policy(stock: FakeStock, tmp_path: Path, source, status) -> None:
    stock.counts = {"sunset": 7}
    stock.fail(source.name, status, times=2)
    got = count_clips(source, "sunset", key=PEXELS_KEY if source is PEXELS else PIXABAY_KEY, base_url=stock.url,
                      settings=_settings(tmp_path), cache=_cache(tmp_path))
    assert got.total == 7 and [c.status for c in stock.calls()] == [status, status, 200]


def test_retries_stop_at_the_policy_and_say_so(stock: FakeStock, tmp_path: Path) -> None:
    stock.fail("pixabay", 429, times=10)
    with pytest.raises(StockSearchError, match="gave up after 3 attempts: Pixabay rate limit reached") as info:
        count_clips(PIXABAY, "sunset", key=PIXABAY_KEY, base_url=stock.url, settings=_settings(tmp_path), cache=_cache(tmp_path))
    assert info.value.kind == "rate_limited" and len(stock.calls()) == 3
    stock.fail("pexels", 401)
    with pytest.raises(StockSearchError, match="rejected the API key"):
        count_clips(PEXELS, "sunset", key=PEXELS_KEY, base_url=stock.url, settings=_settings(tmp_path), cache=_cache(tmp_path))
    assert len(stock.calls("pexels")) == 1, "a rejected key is not retried"


def test_unreachable_server_and_unreadable_reply(tmp_path: Path, stock: FakeStock) -> None:
    with pytest.raises(StockSearchError, match="Pexels could not be reached"):
        count_clips(PEXELS, "sunset", key=PEXELS_KEY, base_url="http://127.0.0.1:9", settings=_settings(tmp_path),
                    cache=_cache(tmp_path))
    stock.fail("pexels", 200)  # a 200 whose body is not a search result
    with pytest.raises(StockSearchError, match="not a search result"):
        count_clips(PEXELS, "sunset", key=PEXELS_KEY, base_url=stock.url, settings=_settings(tmp_path), cache=_cache(tmp_path))


def test_pixabay_query_limit_is_checked_before_asking(stock: FakeStock, tmp_path: Path) -> None:
    with pytest.raises(StockSearchError, match="at most 100 characters") as info:
        count_clips(PIXABAY, "x " * 60, key=PIXABAY_KEY, base_url=stock.url, settings=_settings(tmp_path), cache=_cache(tmp_path))
    assert info.value.kind == "query_too_long" and not stock.calls()


# ---- the signal ----------------------------------------------------------------------------------


def _find(tmp_path: Path, env: dict[str, str], mode: str = "auto", **kw):
    return find_clips(TERMS, mode=mode, sources=kw.pop("sources", ("pexels", "pixabay")), min_clips=kw.pop("min_clips", 1),
                      settings=_settings(tmp_path), env=env)


def test_both_sources_counted_per_term(stock: FakeStock, tmp_path: Path) -> None:
    stock.counts = COUNTS
    f = _find(tmp_path, _env(stock, **BOTH))
    assert f.status == "checked" and f.sources == ("pexels", "pixabay")
    assert [t.counts for t in f.terms][0] == {"pexels": 812, "pixabay": 500}
    assert f.score == 0.75 and f.not_found == ["fast motion blur"]
    assert "3 of 4 terms return at least 1 clip(s); no results: 'fast motion blur'" in f.reason()
    assert "'server room' 1,312 (Pexels 812, Pixabay 500)" in f.per_term()
    assert (f.requested, f.cached) == (8, 0)
    again = _find(tmp_path, _env(stock, **BOTH))
    assert (again.requested, again.cached) == (0, 8) and again.score == 0.75


def test_min_clips_raises_the_bar(stock: FakeStock, tmp_path: Path) -> None:
    stock.counts = COUNTS
    f = _find(tmp_path, _env(stock, **BOTH), min_clips=300)  # RAM: 140 + 140 over both sources
    assert f.not_found == ["computer RAM", "data center lights", "fast motion blur"]


def test_without_keys_the_signal_is_absent_and_says_so(stock: FakeStock, tmp_path: Path) -> None:
    f = _find(tmp_path, _env(stock))
    assert f.status == "absent" and f.score is None and not stock.calls()
    assert "no PEXELS_API_KEY" in f.reason() and "no PIXABAY_API_KEY" in f.reason()
    with pytest.raises(StockSearchError, match="findability is required but Pexels not asked: no PEXELS_API_KEY"):
        _find(tmp_path, _env(stock), mode="required")
    assert _find(tmp_path, _env(stock, **BOTH), mode="off").reason() == "findability off" and not stock.calls()


def test_one_key_asks_one_source(stock: FakeStock, tmp_path: Path) -> None:
    stock.counts = COUNTS
    f = _find(tmp_path, _env(stock, PIXABAY_API_KEY=PIXABAY_KEY))
    assert f.sources == ("pixabay",) and not stock.calls("pexels")
    assert "Pexels not asked: no PEXELS_API_KEY" in f.reason()


def test_a_failing_source_is_dropped_in_auto_and_fails_when_required(stock: FakeStock, tmp_path: Path) -> None:
    stock.counts = COUNTS
    stock.fail("pixabay", 429, times=100)
    f = _find(tmp_path, _env(stock, **BOTH))
    assert f.sources == ("pexels",) and f.score == 0.75
    assert "Pixabay did not answer: gave up after 3 attempts: Pixabay rate limit reached (HTTP 429)" in f.reason()
    assert len(stock.calls("pixabay")) == 3, "a source that gave up is not asked again for the other terms"
    with pytest.raises(StockSearchError, match="Pixabay rate limit reached"):
        find_clips(["sunrise"], mode="required", sources=("pexels", "pixabay"), min_clips=1,
                   settings=_settings(tmp_path), env=_env(stock, **BOTH))


def test_all_sources_failing_leaves_the_signal_absent(stock: FakeStock, tmp_path: Path) -> None:
    f = _find(tmp_path, _env(stock, PEXELS_API_KEY="wrong", PIXABAY_API_KEY="wrong"))
    assert f.status == "absent" and "Pexels did not answer" in f.reason() and "Pixabay did not answer" in f.reason()


# ---- the assertion ------------------------------------------------------------------------------


def _context(config: dict | None = None) -> dict:
    return {"vars": {"narration": REDIS_FAST}, "config": config or {}, "test": {"description": "redis"}}


def test_assertion_shows_findability_per_term_and_as_named_score(stock_env: FakeStock) -> None:
    stock_env.counts = COUNTS
    result = get_assert(json.dumps(TERMS), _context({"judge": "local"}))
    assert result["namedScores"]["film_findability"] == 0.75
    assert result["namedScores"]["film_score"] == 1.0 and result["pass"] is True  # findability informs, does not gate
    assert "'fast motion blur' 0 (Pexels 0, Pixabay 0) — no results" in result["metadata"]["breakdown"]["film_findability"]
    assert "no results: 'fast motion blur'" in result["reason"]
    assert result["metadata"]["findability"]["not_found"] == ["fast motion blur"]


def test_assertion_without_keys_judges_and_says_findability_was_not_checked_in_metadata(stock: FakeStock) -> None:
    """No stock key at all: the same for every test of the run, so metadata says it, not each test's reason (issue 38)."""
    result = get_assert(json.dumps(TERMS), _context({"judge": "local"}))
    assert result["pass"] is True and "film_findability" not in result["namedScores"]
    assert "findability" not in result["reason"]
    found = result["metadata"]["findability"]
    assert found["status"] == "absent" and found["no_keys"] is True and not stock.calls()
    assert "Pexels not asked: no PEXELS_API_KEY in the environment" in found["notes"]


def test_assertion_findability_required_without_keys_fails() -> None:
    result = get_assert(json.dumps(TERMS), _context({"judge": "local", "findability": "required"}))
    assert result["pass"] is False and result["score"] == 0.0
    assert "did not judge (no_credentials)" in result["reason"] and "PEXELS_API_KEY" in result["reason"]


def test_min_findability_gates_the_test(stock_env: FakeStock) -> None:
    stock_env.counts = COUNTS
    result = get_assert(json.dumps(TERMS), _context({"judge": "local", "min_findability": 0.9}))
    assert result["pass"] is False and result["reason"].startswith("FAIL 1.0")
    assert "0.75 is under min_findability 0.9" in result["reason"]


def test_min_findability_without_keys_does_not_pass_unchecked() -> None:
    result = get_assert(json.dumps(TERMS), _context({"judge": "local", "min_findability": 0.5}))
    assert result["pass"] is False and "no_credentials" in result["reason"]


@pytest.mark.parametrize(
    "config, words",
    [({"findability": "sometimes"}, "must be one of auto, off, required"),
     ({"findability_sources": ["pexels", "shutterstock"]}, "'findability_sources' item 2 must be one of pexels, pixabay"),
     ({"min_findability": 2}, "'min_findability' must be at most 1"),
     ({"findability": "off", "min_findability": 0.5}, "min_findability is set but findability is 'off'"),
     ({"findabilty": "off"}, "unknown option 'findabilty' for filmability; did you mean 'findability'?")],
)
def test_bad_findability_options_are_named(config: dict, words: str) -> None:
    result = get_assert(json.dumps(TERMS), _context({"judge": "local", **config}))
    assert result["pass"] is False and "bad_input" in result["reason"] and words in result["reason"]


def test_findability_env_switch(stock_env: FakeStock, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REELJUDGE_FINDABILITY", "off")
    result = get_assert(json.dumps(TERMS), _context({"judge": "local"}))
    assert "findability off" in result["reason"] and not stock_env.calls()
    assert os.environ["PEXELS_API_KEY"] == PEXELS_KEY


def test_python_face_defaults_and_bad_arguments(stock: FakeStock, monkeypatch: pytest.MonkeyPatch) -> None:
    from reeljudge.errors import BadInputError

    stock.counts = {"sunset": 3}
    for name, value in _env(stock, **BOTH).items():
        monkeypatch.setenv(name, value)
    f = find_clips(["sunset", "efficiency"])
    assert f.score == 0.5 and f.not_found == ["efficiency"]
    with pytest.raises(BadInputError, match="sources among pexels, pixabay"):
        find_clips(["sunset"], sources=("getty",))
