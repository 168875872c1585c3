"""The two test commands lose no test: ``npm test`` selects every collected test, and the fast lane
(``npm run test:fast``) is every test but those marked ``e2e``, ``browser`` or ``slow``, so the fast lane
and the three markers together are the whole suite. The selection is written once, in scripts/test.sh."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from support.paths import ROOT

LEFT_OUT = ("e2e", "browser", "slow")


def fast_lane_expression() -> str:
    """The fast lane's ``-m`` expression, as scripts/test.sh declares it."""
    found = re.findall(r'^FAST_LANE="([^"]+)"$', (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8"), re.M)
    assert len(found) == 1, "scripts/test.sh declares FAST_LANE once"
    return found[0]


def pytest_lines() -> list[str]:
    """Every line of scripts/test.sh that starts pytest, in order, from pytest's own arguments on."""
    return [line.split("-m pytest", 1)[1].strip()
            for line in (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8").splitlines()
            if "-m pytest" in line and not line.lstrip().startswith("#")]


def test_the_fast_lane_leaves_out_exactly_the_three_markers_and_npm_test_selects_none() -> None:
    assert fast_lane_expression() == " and ".join(f"not {m}" for m in LEFT_OUT)
    fast, first, newest = pytest_lines()
    assert " -m " not in first and first.endswith('"$@"')  # npm test's first pass: every test
    assert '-m "e2e and not pinned_promptfoo"' in newest  # its second pass repeats the e2e tests on the newest promptfoo
    assert '-m "$FAST_LANE"' in fast
    markers = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]["markers"]
    assert {m.split(":")[0] for m in markers} >= set(LEFT_OUT)


def collected(*selection: str) -> subprocess.Popen:
    """A pytest collection of the whole suite (``--strict-markers``: a misspelt marker is an error), started."""
    return subprocess.Popen(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "--strict-markers",
         *selection, "tests"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )


def node_ids(proc: subprocess.Popen) -> set[str]:
    """The test ids a finished collection listed."""
    out, err = proc.communicate(timeout=900)
    assert proc.returncode == 0, out[-2000:] + err[-2000:]
    return {line for line in out.splitlines() if "::" in line}


@pytest.mark.slow  # collects the whole suite three times (about 10 s of CPU each)
def test_the_fast_lane_and_the_left_out_markers_together_are_every_collected_test() -> None:
    lane = fast_lane_expression()
    every, fast, rest = collected(), collected("-m", lane), collected("-m", " or ".join(LEFT_OUT))
    every, fast, rest = node_ids(every), node_ids(fast), node_ids(rest)
    assert len(every) >= 1000 and len(fast) >= 1000
    assert fast | rest == every and not fast & rest
    # what the lane leaves out is what the markers say: the corpora, set-up, the workflow harness, promptfoo, Chromium
    for left_out in ("tests/probes/test_probes_textures.py::", "tests/probes/test_probes_corpus.py::test_clean_hard_negative",
                     "tests/house/test_workflow_setup.py::", "tests/action/test_workflow_steps.py::", "tests/browser/"):
        assert not {t for t in fast if t.startswith(left_out)} and {t for t in rest if t.startswith(left_out)}, left_out


class _Node:
    """A stand-in for one xdist worker as the scheduler sees it: what it was told to run."""

    def __init__(self, n: int) -> None:
        self.gateway = SimpleNamespace(id=f"gw{n}")
        self.shutting_down = False
        self.sent: list[list[int]] = []

    def send_runtest_some(self, indexes: list[int]) -> None:
        self.sent.append(indexes)

    def shutdown(self) -> None:
        self.shutting_down = True


LOADSCOPE = SimpleNamespace(getvalue=lambda name: {"tx": ["4*popen"], "dist": "loadscope"}[name],
                            option=SimpleNamespace(loadscopereorder=True))


def first_units(scheduler: Any, sizes: dict[str, int]) -> list[str]:
    """The module each of four stand-in workers is told to run first, for modules of ``sizes`` tests."""
    collection = [f"{module}::test_{i}" for module, size in sizes.items() for i in range(size)]
    nodes = [_Node(n) for n in range(4)]
    for node in nodes:
        scheduler.add_node(node)
        scheduler.add_node_collection(node, collection)
    scheduler.schedule()
    return [collection[node.sent[0][0]].split("::")[0] for node in nodes]


def test_the_waiting_modules_exist_and_start_first_on_half_the_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    from support import runner_order
    from support.runner_order import WAITING_MODULES, pytest_xdist_make_scheduler, waits

    monkeypatch.setattr(runner_order, "KEEP_DIR", None)  # no durations recorded: xdist's order within each kind
    assert all((ROOT / module).is_file() for module in WAITING_MODULES)
    sizes = {"tests/house/test_big.py": 40, "tests/house/test_mid.py": 20, "tests/house/test_third.py": 10,
             "tests/house/test_fourth.py": 8, **{module: 3 for module in sorted(WAITING_MODULES)[:3]}}
    first = first_units(pytest_xdist_make_scheduler(LOADSCOPE, None), sizes)
    # biggest first alone would start the four computing modules and leave the waits for last
    assert sum(waits(scope) for scope in first) == 2, first  # half the workers wait, from the start
    assert sorted(scope for scope in first if not waits(scope)) == ["tests/house/test_big.py", "tests/house/test_mid.py"]
    assert waits(sorted(WAITING_MODULES)[0] + "::test_x") and not waits("tests/house/test_big.py::test_x")
    assert pytest_xdist_make_scheduler(SimpleNamespace(getvalue=lambda name: "load"), None) is None


def test_recorded_durations_start_the_longest_unit_first_and_an_untimed_one_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from support import runner_order
    from support.runner_order import WAITING_MODULES, Durations, pytest_xdist_make_scheduler

    waiting = sorted(WAITING_MODULES)[:2]
    sizes = {"tests/house/test_many_quick.py": 40, "tests/house/test_few_long.py": 2, "tests/house/test_mid.py": 10,
             waiting[0]: 3, waiting[1]: 3}
    recorder = Durations(str(tmp_path))  # what the controlling process records in a run
    for module, size in sizes.items():
        for i in range(size):
            seconds = {"tests/house/test_few_long.py": 5.0, waiting[1]: 4.0}.get(module, 0.1)
            for phase in ("setup", "call", "teardown"):
                recorder.pytest_runtest_logreport(SimpleNamespace(nodeid=f"{module}::test_{i}", duration=seconds / 3))
    recorder.pytest_sessionfinish()
    monkeypatch.setattr(runner_order, "KEEP_DIR", str(tmp_path))
    first = first_units(pytest_xdist_make_scheduler(LOADSCOPE, None), sizes)
    # by test count: many_quick (4 s in all) and mid first; by the last run: few_long (10 s), then many_quick
    assert first == [waiting[1], waiting[0], "tests/house/test_few_long.py", "tests/house/test_many_quick.py"], first
    sizes["tests/house/test_new.py"] = 1  # never timed: it may be long, so it goes first among the computing ones
    first = first_units(pytest_xdist_make_scheduler(LOADSCOPE, None), sizes)
    assert first[2] == "tests/house/test_new.py", first
    kept = json.loads((tmp_path / "durations.json").read_text())
    assert kept["tests/house/test_few_long.py::test_0"] == pytest.approx(5.0) and len(kept) == 58
    Durations(str(tmp_path)).pytest_sessionfinish()  # a run that timed nothing leaves the record as it was
    recorder = Durations(str(tmp_path))
    recorder.pytest_runtest_logreport(SimpleNamespace(nodeid="tests/house/test_mid.py::test_0", duration=9.0))
    recorder.pytest_sessionfinish()  # a narrowed run updates its tests and keeps the others'
    kept = json.loads((tmp_path / "durations.json").read_text())
    assert kept["tests/house/test_mid.py::test_0"] == 9.0 and len(kept) == 58
