"""``reeljudge compare`` on real promptfoo results: the pinned release and the newest one.

The offline filmability suite (local judge, no key) is run by promptfoo itself; the e2e test runs
on whichever release the test pass selects (``REELJUDGE_PROMPTFOO``: ``npm test`` runs the e2e
tests once on each), the cross-release test always runs both (in the first pass only: marker pinned_promptfoo).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from support.promptfoo_run import ROOT, run_promptfoo_eval
from reeljudge.cli import main

SUITE = ("promptfooconfig.yaml", "--filter-providers", "^offline", "--filter-first-n", "3")
INSTALLS = {"pinned": ROOT / "node_modules", "latest": ROOT / "compat" / "promptfoo-latest" / "node_modules"}


def _installed_version(release: str) -> str:
    return json.loads((INSTALLS[release] / "promptfoo" / "package.json").read_text())["version"]


def _run(tmp_path: Path, release: str) -> Path:
    folder = tmp_path / release
    folder.mkdir()
    env = {"REELJUDGE_PROMPTFOO": release, "REELJUDGE_CACHE_DIR": str(tmp_path / "cache")}
    code, results, output = run_promptfoo_eval(SUITE[0], folder, *SUITE[1:], env=env)
    assert code in (0, 100), output[-3000:]  # 100: some tests below threshold, as the baselines are
    assert results["metadata"]["promptfooVersion"] == _installed_version(release)
    return folder / "results.json"


@pytest.mark.e2e
def test_the_selected_promptfoo_release_runs_the_suite_and_compares_with_itself(tmp_path):
    release = os.environ.get("REELJUDGE_PROMPTFOO", "pinned")
    results = _run(tmp_path, release)
    node = json.loads(results.read_text())["metadata"]["nodeVersion"]
    if release == "latest":
        assert int(node.lstrip("v").split(".")[0]) >= 22, node  # the newest promptfoo needs Node >= 22.22
    report = tmp_path / "gate.json"
    assert main(["compare", str(results), str(results), "--json", str(report), "-q"]) == 0
    suite = json.loads(report.read_text())["suites"][0]
    assert suite["matched"] == 6 and suite["candidate"]["judged"] == 6  # 3 narrations x 2 offline generators


@pytest.mark.e2e
@pytest.mark.pinned_promptfoo  # runs both releases whatever the pass selects: once is enough
def test_results_of_the_pinned_and_the_newest_promptfoo_compare_test_by_test(tmp_path):
    pinned, latest = _run(tmp_path, "pinned"), _run(tmp_path, "latest")
    assert _installed_version("pinned") == "0.121.20"
    assert tuple(map(int, _installed_version("latest").split("."))) > (0, 121, 20)
    report = tmp_path / "gate.json"
    assert main(["compare", str(pinned), str(latest), "--json", str(report), "-q"]) == 0
    suite = json.loads(report.read_text())["suites"][0]
    assert suite["matched"] == 6 and not suite["added"] and not suite["removed"]
    assert all(m["difference"]["estimate"] == 0 for m in suite["metrics"])  # same judge, same verdicts
    assert {m["group"] for m in suite["metrics"]} == {"offline-keywords", "offline-visual"}
