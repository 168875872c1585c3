"""The promptfoo web viewer as a person reads it: a real eval's database served by ``promptfoo view``
(on 127.0.0.1 only) and opened in headless Chromium, on the promptfoo under test (REELJUDGE_PROMPTFOO).

promptfoo flattens an assertion's own ``componentResults`` into its test's, and the viewer counts
each one as a PASS or FAIL of the cell and of its column's "Asserts"; it shows the failing ones'
reasons in red, and the passing ones' with the "Pass reasons" setting. So the cell's first line is the
verdict of each assertion, and the reason under it starts with that verdict. The cells: filmability
passing at 0.80 with relevance 2/3, filmability failing, probes passing and failing, an A/B pair the
new clip wins (judge: probes), and a clip that does not exist. Screenshots are kept in the test's
temporary folder (``viewer.png``, ``viewer-pass-reasons.png``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from support.ab_study import CHROMIUM, CHROMIUM_ARGS
from support.promptfoo_run import promptfoo_view
from support.paths import ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

CLIPS = ROOT / "datasets" / "clips"
#: the viewer's own settings store (zustand, localStorage "eval-settings"): passing reasons shown
SHOW_PASS_REASONS = "localStorage.setItem('eval-settings', JSON.stringify({state: {showPassReasons: true}, version: 2}))"
#: per test: the var ``case`` that names its row, its vars, its assertion (entry, config)
CASES: dict[str, tuple[dict[str, str], str, dict[str, Any]]] = {
    "film-pass": ({"narration": "Closures capture variables from the surrounding scope",
                   "terms": '["laptop screen code", "programmer typing", "developer coding"]'},
                   "filmability", {"judge": "local"}),
    "film-fail": ({"narration": "Trust takes years to build and seconds to lose", "terms": '["trust", "reputation", "loyalty"]'},
                  "filmability", {"judge": "local"}),
    "probes-pass": ({"terms": "clip", "video": "clips/gen_clean.mp4"}, "video_probes", {}),
    "probes-fail": ({"terms": "clip", "video": "clips/gen_black.mp4"}, "video_probes", {}),
    "ab-win": ({"terms": "pair", "video": "clips/gen_clean.mp4", "reference": "clips/gen_flicker.mp4"}, "ab_judge",
               {"judge": "probes", "media_var": "video"}),
    "missing-clip": ({"terms": "clip", "video": "clips/missing.mp4"}, "video_probes", {}),
}
ROWS_JS = """() => [...document.querySelectorAll('tbody tr')].map((tr) => {
  const status = tr.querySelector('.cell .status');  // the output's cell (a var's cell has no status)
  const cell = status ? status.closest('.cell') : null;
  const q = (s) => (cell && cell.querySelector(s) ? cell.querySelector(s).innerText.trim() : null);
  return {row: tr.innerText, pill: q('.status .pill'), status: status ? status.className : null,
          fail: q('.fail-reason'), pass: cell ? [...cell.querySelectorAll('.pass-reason')].map((e) => e.innerText.trim()) : []};
})"""


def write_suite(folder: Path) -> Path:
    """A user's suite in ``folder``: every case, clips relative to the folder, our entries by absolute path."""
    (folder / "clips").mkdir(parents=True)
    for name in ("gen_clean", "gen_black", "gen_flicker"):
        shutil.copy(CLIPS / f"{name}.mp4", folder / "clips")
    tests = [{"description": case, "vars": {"case": case, **vars_},
              "assert": [{"type": "python", "value": f"file://{ROOT / 'assertions' / f'{entry}.py'}", "config": config}]}
             for case, (vars_, entry, config) in CASES.items()]
    config = folder / "promptfooconfig.yaml"
    config.write_text(yaml.safe_dump({"description": "viewer cells", "prompts": ["{{terms}}"],
                                      "providers": ["echo"], "tests": tests},
                                     sort_keys=False))
    return config


@pytest.fixture(scope="module")
def viewer(tmp_path_factory) -> Iterator[tuple[str, dict[str, dict[str, Any]], Path]]:
    """(viewer URL, results by case, folder): one eval in a user's folder, then ``promptfoo view`` of its database."""
    folder = tmp_path_factory.mktemp("viewer")
    config = write_suite(folder / "project")
    env = {**os.environ, "PROMPTFOO_CONFIG_DIR": str(folder / "promptfoo"),
           "PROMPTFOO_CACHE_PATH": str(folder / "promptfoo-cache")}
    out = folder / "results.json"
    run = subprocess.run(["bash", str(ROOT / "scripts" / "promptfoo.sh"), "eval", "-c", str(config), "-o", str(out),
                          "--no-progress-bar", "--no-cache"], cwd=config.parent, env=env,
                          capture_output=True, text=True, timeout=600)
    assert out.exists(), (run.stdout + run.stderr)[-3000:]
    results = {r["vars"]["case"]: r for r in json.loads(out.read_text())["results"]["results"]}
    assert set(results) == set(CASES), (run.stdout + run.stderr)[-3000:]
    with promptfoo_view(folder / "promptfoo", cwd=config.parent) as base:
        yield base, results, folder


def read_cells(base: str, screenshot: Path, *, pass_reasons: bool) -> tuple[dict[str, dict[str, Any]], str]:
    """Each row's rendered cell (pill, status class, failing and passing reasons) by case, and the header's text."""
    from playwright.sync_api import sync_playwright

    assert os.access(CHROMIUM, os.X_OK), f"{CHROMIUM} is missing: scripts/setup.sh installs Debian's chromium"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1700, "height": 1400})
            if pass_reasons:
                page.add_init_script(SHOW_PASS_REASONS)
            page.goto(f"{base}/eval", wait_until="networkidle", timeout=90000)
            page.wait_for_function(f"() => document.querySelectorAll('tbody tr .cell .status').length >= {len(CASES)}",
                                   timeout=90000)
            page.screenshot(path=str(screenshot), full_page=True)
            rows, header = page.evaluate(ROWS_JS), page.inner_text("thead")
        finally:
            browser.close()
    by_case = {}
    for row in rows:
        found = [case for case in CASES if re.search(rf"(^|\s){re.escape(case)}(\s|$)", row["row"])]
        assert len(found) == 1, row["row"][:300]
        by_case[found[0]] = {**row, "pill": " ".join((row["pill"] or "").split()) or None}  # "PASS\n (0.80)" as read: PASS (0.80)
    return by_case, header


def first_line(text: str | None) -> str:
    return (text or "").strip().splitlines()[0] if (text or "").strip() else ""


def test_each_cell_reads_its_verdict_first_and_the_column_counts_one_check_per_test(viewer):
    base, results, folder = viewer
    cells, header = read_cells(base, folder / "viewer.png", pass_reasons=False)
    assert set(cells) == set(CASES)
    expected = {"film-pass": True, "film-fail": False, "probes-pass": True, "probes-fail": False,
                "ab-win": True, "missing-clip": False}
    assert {case: r["success"] for case, r in results.items()} == expected
    for case, cell in cells.items():
        reason = results[case]["gradingResult"]["componentResults"][0]["reason"]
        if expected[case]:  # one check, passed: "PASS" or "PASS (0.80)", never a FAIL count, no red reason
            assert re.fullmatch(r"PASS( \(\d\.\d\d\))?", cell["pill"]), (case, cell)
            assert "pass" in cell["status"].split() and cell["fail"] is None, (case, cell)
        else:  # the red reason is the judge's, and its first line is the verdict and why
            assert re.fullmatch(r"FAIL( \(\d\.\d\d\))?", cell["pill"]), (case, cell)
            assert first_line(cell["fail"]) == first_line(reason) and first_line(reason).startswith("FAIL "), (case, cell, reason)
    assert cells["film-pass"]["pill"] == "PASS (0.80)"  # relevance 2/3 is a named score (a chip), not a failing check
    assert results["film-pass"]["namedScores"]["film_relevance"] == pytest.approx(2 / 3)
    assert first_line(cells["missing-clip"]["fail"]).startswith("FAIL video_probes did not judge (media_error)")
    asserts = re.search(r"Asserts:\s*(\d+)\s*/\s*(\d+)\s*passed", header)
    assert asserts and (int(asserts[1]), int(asserts[2])) == (sum(expected.values()), len(CASES)), header


def test_with_passing_reasons_shown_a_passing_cell_reads_its_verdict_line_first(viewer):
    base, results, folder = viewer
    cells, _ = read_cells(base, folder / "viewer-pass-reasons.png", pass_reasons=True)
    for case in ("film-pass", "probes-pass", "ab-win"):
        reason = results[case]["gradingResult"]["componentResults"][0]["reason"]
        shown = cells[case]["pass"]
        assert len(shown) == 1 and first_line(shown[0]) == first_line(reason), (case, shown, reason)
        assert first_line(shown[0]).startswith("PASS "), shown
    film = cells["film-pass"]["pass"][0]
    assert "film_relevance: 2/3." in film and film.index("PASS 0.8") < film.index("film_relevance: 2/3.")
    assert first_line(cells["ab-win"]["pass"][0]).startswith("PASS new wins against reference")


def test_a_failing_cell_reads_its_failing_checks_first_and_marks_the_passing_ones(viewer):
    """The whole reason of a failing cell is red; the probe that failed comes right under the verdict,
    every other check says it passed (✓), a reported-only probe is unmarked; no line says GOOD beside FAIL."""
    base, results, folder = viewer
    cells, _ = read_cells(base, folder / "viewer-failing.png", pass_reasons=False)
    shown = [line.strip() for line in (cells["probes-fail"]["fail"] or "").splitlines() if line.strip()]
    assert shown[0].startswith("FAIL video probes on ") and shown[1].startswith("✗ black_frames:"), shown
    checks = [line for line in shown[1:] if line[:1] in "✓✗"]
    failing = [line for line in checks if line.startswith("✗")]
    assert checks[: len(failing)] == failing and len(checks) > len(failing) + 3, shown  # failing first, then the passing ones
    assert all(line.startswith("✓") for line in checks[len(failing):])
    film = cells["film-fail"]["fail"] or ""
    assert film.startswith("FAIL ") and not any(word in film.splitlines()[0] for word in ("GOOD", "EXCELLENT")), film
