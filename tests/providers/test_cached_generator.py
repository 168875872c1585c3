"""A team's own Python provider under ``@cached_generator``: an unchanged prompt, vars and config call it once.

promptfoo's own response cache never hits for a Python provider (measured below: the bare provider is called again on
the second run with promptfoo's cache on), so the gate's "no call paid twice" rests on this decorator and the judge
cache it writes to.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml

from reeljudge.providers.cached import cached_generator
from support.paths import ROOT
from support.promptfoo_run import rows, run_promptfoo_eval

PROVIDER = '''import json
from reeljudge.providers.cached import cached_generator


def _terms(prompt):
    with open({log!r}, "a") as fh:
        fh.write(prompt + "\\n")
    return {{"output": json.dumps([prompt.lower() + " close-up"])}}


@cached_generator
def call_api(prompt, options, context):
    return _terms(prompt)


def bare(prompt, options, context):
    return _terms(prompt)
'''


def _suite(folder: Path, narrations: list[str], function: str = "call_api") -> Path:
    (folder / "terms.py").write_text(PROVIDER.format(log=str(folder / "calls.log")))
    config = folder / "promptfooconfig.yaml"
    config.write_text(yaml.safe_dump({"prompts": ["{{narration}}"], "providers": [f"file://terms.py:{function}"],
                                      "tests": [{"vars": {"narration": n}} for n in narrations]}))
    return config


def _eval(folder: Path, config: Path, run: str, *, promptfoo_cache: bool = False) -> dict:
    env = {"REELJUDGE_CACHE_DIR": str(folder / "judge-cache"), "REELJUDGE_CACHE": "readwrite"}
    code, results, output = run_promptfoo_eval(str(config), folder / run, env=env)
    assert code == 0 and results, output[-3000:]
    return results


def _calls(folder: Path) -> list[str]:
    log = folder / "calls.log"
    return log.read_text().splitlines() if log.exists() else []


NARRATIONS = ["Sear the steak", "Board up the windows", "Bring in the harvest"]


@pytest.mark.e2e
def test_an_unchanged_test_calls_no_generator_and_a_changed_one_calls_it_once(tmp_path):
    config = _suite(tmp_path, NARRATIONS)
    first = _eval(tmp_path, config, "first")
    assert sorted(_calls(tmp_path)) == sorted(NARRATIONS)
    assert [r["response"]["metadata"]["cache_hit"] for r in rows(first)] == [False] * 3
    second = _eval(tmp_path, config, "second")
    assert len(_calls(tmp_path)) == 3  # no new call
    assert [r["response"]["metadata"]["cache_hit"] for r in rows(second)] == [True] * 3
    assert sorted(r["response"]["output"] for r in rows(second)) == sorted(r["response"]["output"] for r in rows(first))
    config = _suite(tmp_path, [*NARRATIONS[:2], "Raise the baton"])  # one narration changed (the file is the same)
    third = _eval(tmp_path, config, "third")
    assert _calls(tmp_path)[3:] == ["Raise the baton"]
    counted = subprocess.run(["node", str(ROOT / "action" / "calls.js"), "--json", str(tmp_path / "third")],
                             capture_output=True, text=True, check=True)
    assert json.loads(counted.stdout)["generator"] == {"made": 1, "replayed": 2}
    assert len(rows(third)) == 3


@pytest.mark.e2e
def test_promptfoos_own_cache_calls_a_bare_python_provider_again(tmp_path):
    """The fact the decorator exists for: promptfoo keys a Python provider's answer by the vars, and adds the eval's id
    to them (``__evalId``): run twice with promptfoo's cache on, it calls again."""
    config = _suite(tmp_path, NARRATIONS[:1], function="bare")
    env = {"REELJUDGE_CACHE_DIR": str(tmp_path / "judge-cache")}
    for run in ("first", "second"):
        out = tmp_path / f"{run}.json"
        proc = subprocess.run(["bash", "scripts/promptfoo.sh", "eval", "-c", str(config), "-o", str(out), "--no-progress-bar"],
                              cwd=ROOT, capture_output=True, text=True, timeout=600,
                              env={**os.environ, "PROMPTFOO_CONFIG_DIR": str(tmp_path / "promptfoo"),
                                   "PROMPTFOO_CACHE_PATH": str(tmp_path / "promptfoo-cache"), **env})
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert _calls(tmp_path) == NARRATIONS[:1] * 2


def test_an_error_answer_is_never_kept_and_replay_mode_says_what_is_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("REELJUDGE_CACHE_DIR", str(tmp_path / "cache"))
    answers = iter([{"error": "the upstream model is down"}, {"output": "terms"}])

    @cached_generator(version="2")
    def call_api(prompt, options, context):
        return next(answers)

    context = {"vars": {"narration": "x"}}
    assert call_api("x", {"config": {}}, context) == {"error": "the upstream model is down", "metadata": {"cache_hit": False}}
    assert call_api("x", {"config": {}}, context)["metadata"] == {"cache_hit": False}  # the error was not kept: called
    assert call_api("x", {"config": {}}, context) == {"output": "terms", "metadata": {"cache_hit": True}}
    monkeypatch.setenv("REELJUDGE_CACHE", "replay")
    missed = call_api("x", {"config": {"temperature": 1}}, context)  # another config: another answer
    assert missed["error"].startswith("cache mode is 'replay' and no output of ") and "call_api" in missed["error"]


def test_an_async_provider_is_cached_too(tmp_path, monkeypatch):
    monkeypatch.setenv("REELJUDGE_CACHE_DIR", str(tmp_path / "cache"))
    made = []

    @cached_generator
    async def call_api(prompt, options, context):
        made.append(prompt)
        return {"output": prompt.upper()}

    first = asyncio.run(call_api("kite", {}, {"vars": {}}))
    second = asyncio.run(call_api("kite", {}, {"vars": {}}))
    assert made == ["kite"] and first["output"] == second["output"] == "KITE"
    assert (first["metadata"]["cache_hit"], second["metadata"]["cache_hit"]) == (False, True)
