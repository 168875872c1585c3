"""The one retry policy: its rules on the tests' clock (``fake_clock``: it moves only when the code
sleeps), and each of its users (judge calls, Files API uploads and polling, Veo operations) under
scripted 429/5xx/timeouts from the fake server."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from support.clock import FakeClock
from support.fake_gemini import error_reply, json_reply, unanswered_reply
from reeljudge.errors import JudgeError
from reeljudge.retry import GaveUp, Problem, RetryPolicy, SystemClock, call, clock, deadline_in, poll, use_clock
from support.paths import ROOT

CLIP = ROOT / "datasets" / "clips" / "gen_clean.mp4"


class Flaky(Exception):
    def __init__(self, retryable: bool = True, hint: float | None = None) -> None:
        super().__init__("flaky")
        self.problem = Problem(retryable, f"flaky ({'retryable' if retryable else 'fatal'})", hint)


def failing(*failures: Exception, value: str = "ok"):
    seen: list[float] = []

    def fn(timeout: float) -> str:
        seen.append(timeout)
        if len(seen) <= len(failures):
            raise failures[len(seen) - 1]
        return value

    return fn, seen


def classify(exc: BaseException) -> Problem:
    return exc.problem if isinstance(exc, Flaky) else Problem(False, str(exc))


POLICY = RetryPolicy(max_attempts=4, timeout_s=5, deadline_s=60, backoff_initial_s=1, backoff_max_s=8)


def test_retryable_failures_are_retried_with_growing_jittered_backoff(fake_clock):
    fn, seen = failing(Flaky(), Flaky(), Flaky())
    assert call(fn, POLICY, classify) == ("ok", 4)
    assert len(fake_clock.sleeps) == 3 and all(0.5 * 2**i <= s <= 2**i for i, s in enumerate(fake_clock.sleeps))
    assert seen == [5, 5, 5, 5]  # each attempt gets the per-attempt timeout


def test_the_servers_retry_delay_is_honoured_and_capped(fake_clock):
    fn, _ = failing(Flaky(hint=3.0), Flaky(hint=100.0))
    call(fn, POLICY, classify)
    assert fake_clock.sleeps == [3.0, 8.0]


def test_a_failure_not_worth_retrying_gives_up_at_once(fake_clock):
    fn, seen = failing(Flaky(retryable=False))
    with pytest.raises(GaveUp) as caught:
        call(fn, POLICY, classify)
    assert (caught.value.why, caught.value.attempts, len(seen), fake_clock.sleeps) == ("not retryable", 1, 1, [])


def test_attempts_run_out():
    fn, seen = failing(*[Flaky()] * 10)
    with pytest.raises(GaveUp) as caught:
        call(fn, POLICY, classify)
    assert (caught.value.why, caught.value.attempts, len(seen)) == ("attempts", 4, 4)
    assert "gave up after 4 attempts: flaky (retryable)" in str(caught.value)


def test_the_deadline_bounds_waits_and_shortens_the_last_attempt(fake_clock):
    fn, seen = failing(*[Flaky(hint=4.0)] * 10)
    with pytest.raises(GaveUp) as caught:
        call(fn, RetryPolicy(max_attempts=10, timeout_s=5, deadline_s=10, backoff_max_s=8), classify)
    assert caught.value.why == "deadline" and fake_clock.now() < 10
    assert seen == [5, 5, 2]  # the third attempt only had 2 s left


def test_poll_waits_between_fetches_until_finished_and_retries_a_failed_fetch(fake_clock):
    states = iter(["PROCESSING", Flaky(), "PROCESSING", "ACTIVE"])

    def fetch(_timeout: float) -> str:
        state = next(states)
        if isinstance(state, Exception):
            raise state
        return state

    state, requests = poll(fetch, lambda s: s == "ACTIVE", POLICY, classify, interval_s=2, deadline=60,
                           first="PROCESSING")
    assert state == "ACTIVE" and requests == 4
    assert fake_clock.sleeps[0] == 2 and len(fake_clock.sleeps) == 4  # 3 intervals + 1 backoff


def test_poll_gives_up_at_the_deadline():
    with pytest.raises(GaveUp) as caught:
        poll(lambda _t: "RUNNING", lambda s: s == "DONE", POLICY, classify, interval_s=3, deadline=deadline_in(10))
    assert caught.value.why == "deadline" and caught.value.problem.timed_out and caught.value.attempts == 4


class Oversleeping(FakeClock):
    """A loaded machine: every sleep lasts half a second longer than asked."""

    def sleep(self, seconds: float) -> None:
        super().sleep(seconds + 0.5)


def test_a_deadline_that_passes_during_the_last_wait_is_the_polling_deadline():
    """A wait that overran the deadline left no time for the next fetch: that is the deadline passing
    while polling (timed out, the polls so far), not a failed fetch."""
    with use_clock(Oversleeping()):
        with pytest.raises(GaveUp) as caught:
            poll(lambda _t: "RUNNING", lambda s: s == "DONE", POLICY, classify, interval_s=1, deadline=deadline_in(10))
    assert (caught.value.why, caught.value.attempts, caught.value.problem.timed_out) == ("deadline", 7, True)
    assert caught.value.problem.text == "still not finished after 7 poll(s)"


def test_a_call_with_no_time_left_for_an_attempt_timed_out():
    with pytest.raises(GaveUp) as caught:
        call(lambda _t: "never", POLICY, classify, deadline=deadline_in(0))
    assert (caught.value.why, caught.value.attempts, caught.value.problem.timed_out) == ("deadline", 0, True)


def test_the_clock_in_force_is_the_installed_one_and_real_time_by_default(fake_clock):
    assert clock() is fake_clock  # conftest installs it for every test
    other = FakeClock(start=100.0)
    with use_clock(other):
        assert clock() is other and deadline_in(5) == 105.0
    assert clock() is fake_clock
    real = SystemClock()
    before = time.monotonic()
    real.sleep(0.01)
    assert real.now() - before >= 0.01
    code = "from reeljudge.retry import SystemClock, clock; print(type(clock()) is SystemClock)"
    shown = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert shown.stdout.strip() == "True", shown.stderr  # the product, outside the tests, keeps real time


# ---- user 1: judge calls ----------------------------------------------------------------------------


def _ask(settings_config=None):
    from reeljudge.gemini.client import JudgeClient
    from reeljudge.gemini.request import JudgeRequest
    from reeljudge.gemini.replies import json_parser
    from reeljudge.gemini.settings import load_settings

    client = JudgeClient(load_settings(settings_config or {}))
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    return client.ask(JudgeRequest(kind="probe", system="s", parts=("retry me",), schema=schema), json_parser(schema))


def test_judge_calls_retry_429_with_its_retry_delay_and_5xx(gemini_env, fake_clock):
    gemini_env.on("retry me", error_reply(429, "quota", retry_delay_s=0.02), error_reply(503), error_reply(500),
                  json_reply({"ok": True}))
    reply = _ask({"backoff_max_s": 1})
    assert reply.value == {"ok": True} and reply.attempts == 4 and len(gemini_env.calls()) == 4
    assert fake_clock.sleeps[0] == pytest.approx(0.02) and len(fake_clock.sleeps) == 3


def test_judge_calls_stop_at_the_deadline_counted_on_the_clock(gemini_env, fake_clock):
    gemini_env.on("retry me", error_reply(503, retry_delay_s=40))  # 40 s on the clock: no real wait
    with pytest.raises(JudgeError) as caught:
        _ask({"deadline_s": 100, "max_attempts": 100, "backoff_max_s": 40})
    assert caught.value.kind == "api_error" and "gave up after 3 attempt(s): the deadline passed" in caught.value.message
    assert fake_clock.sleeps == [40, 40] and len(gemini_env.calls()) == 3


def test_judge_calls_retry_a_timeout_then_give_up_naming_it(gemini_env):
    gemini_env.on("retry me", unanswered_reply())
    with pytest.raises(JudgeError) as caught:
        _ask({"timeout_s": 0.2, "max_attempts": 2})
    assert caught.value.kind == "timeout" and "gave up after 2 attempts: the request timed out" in caught.value.message


def test_judge_calls_do_not_retry_a_400(gemini_env):
    gemini_env.on("retry me", error_reply(400, "bad schema"))
    with pytest.raises(JudgeError, match="Gemini rejected the request: HTTP 400 INVALID_ARGUMENT: bad schema"):
        _ask()
    assert len(gemini_env.calls()) == 1


# ---- user 2: Files API uploads and polling ------------------------------------------------------


def _upload(fake):
    from reeljudge.gemini.client import JudgeClient
    from reeljudge.gemini.files import FileUploads
    from reeljudge.gemini.settings import load_settings
    from reeljudge.media.refs import content_ref, resolve_media

    client = JudgeClient(load_settings({}))
    return FileUploads(client, poll_s=0.01).uri_for(content_ref(resolve_media(str(CLIP))))


def test_files_api_upload_and_polling_retry_429_and_5xx(gemini_env):
    gemini_env.file_states = ["PROCESSING", "PROCESSING", "ACTIVE"]
    gemini_env.file_errors = [error_reply(429, "slow down", retry_delay_s=0.01)]
    uri = _upload(gemini_env)
    starts = [r for r in gemini_env.requests if r.path == "/upload/files:start"]
    assert uri.endswith("/files/" + uri.rsplit("/", 1)[-1]) and len(starts) == 2 and len(gemini_env.uploads()) == 1
    gemini_env.file_errors = [error_reply(503), error_reply(502)]
    gemini_env.files[uri.rsplit("/", 1)[-1]].states = ["PROCESSING", "PROCESSING", "ACTIVE"]
    gemini_env.files[uri.rsplit("/", 1)[-1]].gets = 0
    assert _upload(gemini_env) == uri  # the recorded upload is looked up (through two 5xx) and reused


def test_files_api_gives_up_after_max_attempts_naming_the_problem(gemini_env):
    gemini_env.file_errors = [error_reply(503, "files down")] * 10
    with pytest.raises(JudgeError) as caught:
        _upload(gemini_env)
    assert caught.value.kind == "api_error" and "HTTP 503" in caught.value.message and "files down" in caught.value.message
    assert len([r for r in gemini_env.requests if r.path == "/upload/files:start"]) == 4


# ---- user 3: Veo operations (start, poll, download) ----------------------------------------------


def _veo(monkeypatch, tmp_path, **config):
    from reeljudge.providers.veo.provider import call_api

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PROMPTFOO_CONFIG_DIR", str(tmp_path / "pf"))
    return call_api("a fox runs", {"config": {"poll_interval_s": 0.01, **config}}, {"vars": {}})


def test_veo_start_poll_and_download_retry_5xx_and_429(gemini_env, monkeypatch, tmp_path):
    gemini_env.script_operation(start_error=error_reply(429, "quota", retry_delay_s=0.01))  # the first start
    gemini_env.script_operation(poll_errors=[error_reply(503), error_reply(500)])  # the retried start's operation
    response = _veo(monkeypatch, tmp_path)
    assert "error" not in response, response
    ops = gemini_env.operation_requests()
    assert len(ops["start"]) == 2 and len(ops["poll"]) >= 3 and len(ops["download"]) == 1


def test_veo_download_gives_up_after_max_attempts(gemini_env, monkeypatch, tmp_path):
    gemini_env.script_operation(download_error=error_reply(503, "busy"))
    response = _veo(monkeypatch, tmp_path, max_attempts=3)
    assert "failed: HTTP 503 UNAVAILABLE: busy" in response["error"]
    assert len(gemini_env.operation_requests()["download"]) == 3
