"""The one retry policy: its rules on a scripted clock, and each of its users (judge calls, Files API
uploads and polling, Veo operations) under scripted 429/5xx/timeouts from the fake server."""

from __future__ import annotations


import pytest

from support.fake_gemini import error_reply, json_reply, slow_reply, text_reply
from reeljudge.errors import JudgeError
from reeljudge.retry import GaveUp, Problem, RetryPolicy, call, poll
from support.paths import ROOT

CLIP = ROOT / "datasets" / "clips" / "gen_clean.mp4"


class Clock:
    """A clock that only moves when the code under test sleeps."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


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


def test_retryable_failures_are_retried_with_growing_jittered_backoff():
    clock = Clock()
    fn, seen = failing(Flaky(), Flaky(), Flaky())
    assert call(fn, POLICY, classify, sleep=clock.sleep, clock=clock) == ("ok", 4)
    assert len(clock.sleeps) == 3 and all(0.5 * 2**i <= s <= 2**i for i, s in enumerate(clock.sleeps))
    assert seen == [5, 5, 5, 5]  # each attempt gets the per-attempt timeout


def test_the_servers_retry_delay_is_honoured_and_capped():
    clock = Clock()
    fn, _ = failing(Flaky(hint=3.0), Flaky(hint=100.0))
    call(fn, POLICY, classify, sleep=clock.sleep, clock=clock)
    assert clock.sleeps == [3.0, 8.0]


def test_a_failure_not_worth_retrying_gives_up_at_once():
    clock = Clock()
    fn, seen = failing(Flaky(retryable=False))
    with pytest.raises(GaveUp) as caught:
        call(fn, POLICY, classify, sleep=clock.sleep, clock=clock)
    assert (caught.value.why, caught.value.attempts, len(seen), clock.sleeps) == ("not retryable", 1, 1, [])


def test_attempts_run_out():
    clock = Clock()
    fn, seen = failing(*[Flaky()] * 10)
    with pytest.raises(GaveUp) as caught:
        call(fn, POLICY, classify, sleep=clock.sleep, clock=clock)
    assert (caught.value.why, caught.value.attempts, len(seen)) == ("attempts", 4, 4)
    assert "gave up after 4 attempts: flaky (retryable)" in str(caught.value)


def test_the_deadline_bounds_waits_and_shortens_the_last_attempt():
    clock = Clock()
    fn, seen = failing(*[Flaky(hint=4.0)] * 10)
    with pytest.raises(GaveUp) as caught:
        call(fn, RetryPolicy(max_attempts=10, timeout_s=5, deadline_s=10, backoff_max_s=8), classify, sleep=clock.sleep, clock=clock)
    assert caught.value.why == "deadline" and clock.now < 10
    assert seen == [5, 5, 2]  # the third attempt only had 2 s left


def test_poll_waits_between_fetches_until_finished_and_retries_a_failed_fetch():
    clock = Clock()
    states = iter(["PROCESSING", Flaky(), "PROCESSING", "ACTIVE"])

    def fetch(_timeout: float) -> str:
        state = next(states)
        if isinstance(state, Exception):
            raise state
        return state

    state, requests = poll(fetch, lambda s: s == "ACTIVE", POLICY, classify, interval_s=2, deadline=60,
                           first="PROCESSING", sleep=clock.sleep, clock=clock)
    assert state == "ACTIVE" and requests == 4
    assert clock.sleeps[0] == 2 and len(clock.sleeps) == 4  # 3 intervals + 1 backoff


def test_poll_gives_up_at_the_deadline():
    clock = Clock()
    with pytest.raises(GaveUp) as caught:
        poll(lambda _t: "RUNNING", lambda s: s == "DONE", POLICY, classify, interval_s=3, deadline=10,
             sleep=clock.sleep, clock=clock)
    assert caught.value.why == "deadline" and caught.value.problem.timed_out and caught.value.attempts == 4


# ---- user 1: judge calls ----------------------------------------------------------------------------


def _ask(settings_config=None):
    from reeljudge.gemini.client import JudgeClient
    from reeljudge.gemini.request import JudgeRequest
    from reeljudge.gemini.replies import json_parser
    from reeljudge.gemini.settings import load_settings

    sleeps: list[float] = []
    client = JudgeClient(load_settings(settings_config or {}), sleep=sleeps.append)
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    reply = client.ask(JudgeRequest(kind="probe", system="s", parts=("retry me",), schema=schema), json_parser(schema))
    return reply, sleeps


def test_judge_calls_retry_429_with_its_retry_delay_and_5xx(gemini_env):
    gemini_env.on("retry me", error_reply(429, "quota", retry_delay_s=0.02), error_reply(503), error_reply(500),
                  json_reply({"ok": True}))
    reply, sleeps = _ask({"backoff_max_s": 1})
    assert reply.value == {"ok": True} and reply.attempts == 4 and len(gemini_env.calls()) == 4
    assert sleeps[0] == pytest.approx(0.02) and len(sleeps) == 3


def test_judge_calls_retry_a_timeout_then_give_up_naming_it(gemini_env):
    gemini_env.on("retry me", slow_reply(3, text_reply('{"ok": true}')))
    with pytest.raises(JudgeError) as caught:
        _ask({"timeout_s": 0.5, "max_attempts": 2})
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

    client = JudgeClient(load_settings({}), sleep=lambda s: None)
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
