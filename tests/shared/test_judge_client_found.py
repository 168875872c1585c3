"""A long-lived judge client (the warm worker's) keeps only the newest entries ``is_cached`` found."""

from __future__ import annotations

from pathlib import Path

from support.fake_gemini import json_reply
from reeljudge.gemini.client import FOUND_KEPT, JudgeClient
from reeljudge.gemini.replies import json_parser
from reeljudge.gemini.request import JudgeRequest
from reeljudge.gemini.settings import load_settings

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


def _request(n: int) -> JudgeRequest:
    return JudgeRequest(kind="probe", system="s", parts=(f"question <{n}>",), schema=SCHEMA)


def test_checks_never_followed_by_an_ask_do_not_grow_the_client(gemini_env, tmp_path: Path) -> None:
    total = FOUND_KEPT * 3
    for n in range(total):
        gemini_env.on(f"question <{n}>", json_reply({"n": n}))
    settings = load_settings({"cache_dir": str(tmp_path)})
    first = JudgeClient(settings)
    for n in range(total):
        assert first.ask(_request(n), json_parser(SCHEMA)).value == {"n": n}
    assert len(gemini_env.calls()) == total

    warm = JudgeClient(settings)
    assert all(warm.is_cached(_request(n)) for n in range(total))  # e.g. A/B orders whose pair failed before asking
    assert len(warm._found) == FOUND_KEPT
    assert warm.is_cached(_request(total - 1)) and len(warm._found) == FOUND_KEPT  # found again: still one entry
    for n in (total - 1, 0):  # the newest from what was found, the oldest read from the cache again
        reply = warm.ask(_request(n), json_parser(SCHEMA))
        assert reply.value == {"n": n} and reply.cache_hit
    assert len(gemini_env.calls()) == total  # no call to the judge
