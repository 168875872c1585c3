"""The warm path: the same suite through the plain Python assertions and through the warm entries
(assertions/<judge>.js → one long-lived worker) gives the same results, reasons and failures; a
worker that dies fails the test it was judging and says so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from support.fake_gemini import blocked_reply, json_reply
from support.promptfoo_run import comparable, rows, run_promptfoo_eval
from support.filmability_scripts import judgement
from support.gecko_scripts import script_prompt
from reeljudge.warm import worker
from support.paths import ROOT



def suite(kind: str) -> dict:
    """A suite over every judge; ``kind`` python uses assertions/<judge>.py, warm assertions/<judge>.js."""
    ext, type_ = (".py", "python") if kind == "python" else (".js", "javascript")

    def judge(name, **config):
        return {"type": type_, "value": f"file://{ROOT / 'assertions' / name}{ext}", **({"config": config} if config else {})}

    clip = str(ROOT / "datasets" / "clips" / "gen_clean.mp4")
    black = str(ROOT / "datasets" / "clips" / "gen_black.mp4")
    local = [
        ("local good", "Redis stores everything in memory, making it fast",
         '["server room", "computer RAM", "data center lights"]'),
        ("local abstract", "Redis stores everything in memory", '["performance", "efficiency", "caching"]'),
        ("local unicode", "Le café ferme à minuit", "café terrace, night street, closing shutters"),
    ]
    tests = [{"description": d, "vars": {"narration": n, "terms": t}, "assert": [judge("filmability", judge="local")]}
             for d, n, t in local]
    tests += [
        {"description": "local missing var", "vars": {"terms": "server room"}, "assert": [judge("filmability", judge="local")]},
        {"description": "bad option", "vars": {"narration": "x", "terms": "server room"},
         "assert": [judge("filmability", treshold=0.5)]},
        {"description": "gemini judged", "vars": {"narration": "Servers hum in a cold room", "terms": "server rack, cold aisle"},
         "assert": [judge("filmability", judge="gemini")]},
        {"description": "gemini blocked", "vars": {"narration": "BLOCK this one", "terms": "server rack"},
         "assert": [judge("filmability", judge="gemini")]},
        {"description": "probes clean", "vars": {"terms": "x", "clip": clip}, "assert": [judge("video_probes")]},
        {"description": "probes black", "vars": {"terms": "x", "clip": black},
         "assert": [judge("video_probes", expect_fail=True)]},
        {"description": "probes missing clip", "vars": {"terms": "x", "clip": str(ROOT / "nope.mp4")},
         "assert": [judge("video_probes")]},
        {"description": "gecko", "vars": {"terms": "x", "video": clip, "prompt": "A disc gliding over a colourful texture"},
         "assert": [judge("gecko", validity_filter=True)]},
    ]
    return {"description": f"warm vs plain ({kind})", "prompts": ["{{terms}}"], "providers": ["echo"], "tests": tests}


def run_suite(kind: str, tmp_path: Path, fake, *args: str) -> dict:
    config = tmp_path / f"{kind}.yaml"
    config.write_text(yaml.safe_dump(suite(kind), sort_keys=False))
    env = {"GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url,
           "REELJUDGE_CACHE_DIR": str(tmp_path / f"cache-{kind}"),
           "REELJUDGE_MAX_ATTEMPTS": "1"}
    code, results, output = run_promptfoo_eval(str(config), tmp_path / kind, "-j", "4", *args, env=env)
    assert code in (0, 100), output[-3000:]
    return {r["testCase"]["description"]: r for r in rows(results)}


@pytest.mark.e2e
def test_warm_entries_give_the_same_results_reasons_and_failures_as_the_python_assertions(fake, tmp_path):
    fake.on("Servers hum", json_reply(judgement(3, 3, 1)))
    fake.on("BLOCK this one", blocked_reply("PROHIBITED_CONTENT"))
    script_prompt(fake, "A disc gliding over a colourful texture", matched=True)
    (tmp_path / "python").mkdir()
    (tmp_path / "warm").mkdir()
    plain = run_suite("python", tmp_path, fake)
    calls_plain = len(fake.calls())
    warm = run_suite("warm", tmp_path, fake)
    assert len(fake.calls()) == 2 * calls_plain  # each run judged everything itself (separate caches)
    assert set(plain) == set(warm) and len(plain) == 11
    for name in plain:
        a, b = plain[name]["gradingResult"], warm[name]["gradingResult"]
        assert b["componentResults"][0]["assertion"]["type"] == "javascript"
        assert comparable(a) == comparable(b), name
        assert plain[name]["success"] == warm[name]["success"] and plain[name]["score"] == warm[name]["score"]
    assert warm["local good"]["success"] and not warm["local abstract"]["success"]
    assert "did not judge (bad_input)" in warm["local missing var"]["gradingResult"]["reason"]
    assert "unknown option 'treshold'" in warm["bad option"]["gradingResult"]["reason"]
    assert "did not judge (blocked)" in warm["gemini blocked"]["gradingResult"]["reason"]
    assert warm["probes black"]["success"] and not warm["probes missing clip"]["success"]


def entry_pair(folder: Path, name: str, body: str) -> Path:
    """A Python entry and its warm JavaScript entry in ``folder``."""
    (folder / f"{name}.py").write_text(body)
    js = folder / f"{name}.js"
    js.write_text(f"module.exports = require({json.dumps(str(ROOT / 'reeljudge' / 'warm' / 'client.js'))}).entry(__filename);\n")
    return js


# t6's provider: once the worker t5 ended has died (pid in the var's file; at most 60 s), the prompt as
# the output. So t6 is judged after that death whatever the machine's speed (a fixed delay raced the kill).
AFTER_DEATH = """const fs = require('node:fs');
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };
module.exports = class {
  id() { return 'after-death'; }
  async callApi(prompt, context) {
    const file = context.vars.after_death;
    if (file) {
      const pid = Number(fs.readFileSync(file, 'utf8'));
      for (let i = 0; i < 6000 && alive(pid); i += 1) await new Promise((r) => setTimeout(r, 10));
    }
    return { output: String(prompt) };
  }
};
"""


@pytest.mark.e2e
def test_a_worker_that_dies_fails_the_test_it_was_judging_and_the_next_test_gets_a_new_worker(tmp_path):
    js = entry_pair(tmp_path, "dies", (
        "import os, pathlib, signal, threading\n"
        "def get_assert(output, context):\n"
        "    if context['vars'].get('die'):\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
        "    if context['vars'].get('die_after'):\n"
        "        pathlib.Path(context['vars']['die_after']).write_text(str(os.getpid()))\n"
        "        threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGKILL)).start()\n"
        "    if context['vars'].get('raise'):\n"
        "        raise ValueError('a bug in the judge')\n"
        "    return {'pass': True, 'score': 1.0, 'reason': f'judged in pid {os.getpid()}'}\n"
    ))
    (tmp_path / "after_death.js").write_text(AFTER_DEATH)
    pid_file = str(tmp_path / "t5.pid")
    tests = [{"description": f"t{n}", "vars": {"n": n, "die": n == 2, "raise": n == 4, "die_after": pid_file if n == 5 else "",
                                              "after_death": pid_file if n == 6 else ""}} for n in range(1, 7)]
    config = {"prompts": ["{{n}}"], "providers": [f"file://{tmp_path / 'after_death.js'}"],
              "defaultTest": {"assert": [{"type": "javascript", "value": f"file://{js}"}]}, "tests": tests}
    path = tmp_path / "dies.yaml"
    path.write_text(yaml.safe_dump(config))
    code, results, output = run_promptfoo_eval(str(path), tmp_path, "-j", "1")
    assert results, output[-3000:]
    by = {r["testCase"]["description"]: r for r in rows(results)}
    assert by["t1"]["success"] and by["t3"]["success"] and by["t5"]["success"], output[-2000:]
    died = by["t2"]["gradingResult"]
    assert not by["t2"]["success"] and died["score"] == 0
    assert "dies did not judge (warm_worker) in test 't2'" in died["reason"] and "was killed by SIGKILL" in died["reason"]
    pid = lambda t: by[t]["gradingResult"]["componentResults"][0]["reason"]  # noqa: E731
    assert pid("t1").startswith("judged in pid") and pid("t1") != pid("t3") == pid("t5")  # a new worker after the death
    assert by["t6"]["success"] and pid("t6") != pid("t5")  # a worker that died between tests costs no test
    raised = by["t4"]["gradingResult"]
    assert not by["t4"]["success"] and "Error running Python script: ValueError: a bug in the judge" in raised["reason"]
    assert "Traceback" in raised["reason"]


@pytest.mark.e2e
def test_warm_entries_refuse_promptfoo_inversion_and_assertion_threshold(tmp_path):
    js = entry_pair(tmp_path, "ok",
                    "def get_assert(output, context):\n    return {'pass': False, 'score': 0.2, 'reason': 'no'}\n")
    tests = [
        {"description": "inverted", "vars": {"n": 1}, "assert": [{"type": "not-javascript", "value": f"file://{js}"}]},
        {"description": "threshold", "vars": {"n": 2},
         "assert": [{"type": "javascript", "value": f"file://{js}", "threshold": 0.1}]},
    ]
    path = tmp_path / "refuse.yaml"
    path.write_text(yaml.safe_dump({"prompts": ["{{n}}"], "providers": ["echo"], "tests": tests}))
    _, results, output = run_promptfoo_eval(str(path), tmp_path)
    by = {r["testCase"]["description"]: r for r in rows(results)}
    assert not by["inverted"]["success"] and "not- prefix" in json.dumps(by["inverted"]), output[-2000:]
    assert not by["threshold"]["success"] and "assertion-level threshold" in json.dumps(by["threshold"])


def test_worker_runs_an_entry_once_loaded_and_reports_exceptions(tmp_path):
    entry = tmp_path / "counter.py"
    entry.write_text("CALLS = []\ndef get_assert(output, context):\n    CALLS.append(output)\n    if output == 'boom':\n        "
                     "raise RuntimeError('boom')\n    return {'pass': True, 'score': len(CALLS), 'reason': output}\n")
    first = worker.run({"entry": str(entry), "args": ["a", {}]})
    second = worker.run({"entry": str(entry), "args": ["b", {}]})
    assert first == {"ok": True, "data": {"pass": True, "score": 1, "reason": "a"}}
    assert second["data"]["score"] == 2  # the module stayed loaded: warm
    failed = worker.run({"entry": str(entry), "args": ["boom", {}]})
    assert failed["ok"] is False and failed["error"] == "RuntimeError: boom" and "Traceback" in failed["traceback"]
    missing = worker.run({"entry": str(tmp_path / "nope.py"), "args": []})
    assert missing["ok"] is False and "no Python entry file" in missing["error"]


def test_worker_exits_when_its_parent_closes_stdin(tmp_path):
    socket = tmp_path / "w.sock"
    proc = subprocess.Popen([sys.executable, "-m", "reeljudge.warm.worker", "--socket", str(socket)], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline().startswith(b"READY ")
    assert oct(os.stat(socket).st_mode & 0o777) == "0o600"
    proc.stdin.close()
    assert proc.wait(timeout=10) == 0


def test_worker_serves_the_adapters_by_their_names_and_nothing_else():
    from reeljudge.assertions.video_probes import get_assert

    clip = str(ROOT / "datasets" / "clips" / "gen_black.mp4")
    args = ["", {"vars": {"clip": clip}, "config": {"probes": ["black_frames"]}, "test": {"description": "black"}}]
    direct = get_assert(*args)
    assert direct["pass"] is False and "black_frames" in direct["reason"]
    assert worker.run({"module": "reeljudge.assertions.video_probes", "args": args}) == {"ok": True, "data": direct}
    # the adapters' old names (reeljudge.<judge>.assertion) are refused like any other module
    for name in ("reeljudge.probes.assertion", "reeljudge.probes.report", "reeljudge.assertions", "os",
                 "reeljudge.assertions.video_probes.os"):
        refused = worker.run({"module": name, "args": args})
        assert refused["ok"] is False and refused["error"].startswith("ImportError: the warm worker serves the adapters"), refused
