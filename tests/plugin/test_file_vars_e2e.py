"""End to end: clips a test names as ``file://…`` vars. promptfoo itself reads such a var, relative to
its config's folder, and hands the assertion the file's contents (a video as base64); the judges judge
those bytes under the test's own reference, through the Python entries and the warm path alike."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
import yaml

from support.promptfoo_run import rows, run_promptfoo_eval
from support.paths import ROOT

CLIPS = ROOT / "datasets" / "clips"
NEW = "file://clips/café clip (1).mp4"  # relative to the config's folder, not to where promptfoo runs
REFERENCE = "file://clips/reference take.mp4"


def _suite(folder: Path) -> Path:
    """A config in its own folder, with its clips beside it: the probes through both entries, the A/B judge offline."""
    (folder / "clips").mkdir(parents=True)
    shutil.copyfile(CLIPS / "gen_clean.mp4", folder / "clips" / "café clip (1).mp4")
    shutil.copyfile(CLIPS / "gen_flicker.mp4", folder / "clips" / "reference take.mp4")
    probes = {"var": "video", "prompt_var": "prompt"}
    config = {
        "prompts": ["{{prompt}}"],
        "providers": ["echo"],
        "tests": [
            {"description": f"probes {entry}", "vars": {"prompt": "A red ball rolls past a wall", "video": clip},
             "assert": [{"type": kind, "value": f"file://{ROOT / 'assertions' / entry}", "config": probes}]}
            for entry, kind in (("video_probes.py", "python"), ("video_probes.js", "javascript"))
            for clip in (NEW, REFERENCE)
        ] + [
            {"description": "ab_judge probes",
             "vars": {"prompt": "A red ball rolls past a wall", "video": NEW, "reference": REFERENCE},
             "assert": [{"type": "python", "value": f"file://{ROOT / 'assertions' / 'ab_judge.py'}",
                         "config": {"judge": "probes", "media_var": "video", "reference_var": "reference"}}]},
        ],
    }
    path = folder / "promptfooconfig.yaml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False))
    return path


@pytest.mark.e2e
def test_file_vars_are_judged_as_promptfoo_loaded_them(tmp_path):
    config = _suite(tmp_path / "suite")
    code, results, output = run_promptfoo_eval(str(config), tmp_path)
    cells = {c["testCase"]["description"] + " " + c["testCase"]["vars"]["video"]: c for c in rows(results)}
    assert len(cells) == 5, output[-3000:]
    digests = {ref: hashlib.sha256((config.parent / ref.removeprefix("file://")).read_bytes()).hexdigest()
               for ref in (NEW, REFERENCE)}
    for entry in ("video_probes.py", "video_probes.js"):
        clean, flicker = cells[f"probes {entry} {NEW}"], cells[f"probes {entry} {REFERENCE}"]
        assert clean["success"], clean["gradingResult"]["reason"]
        assert not flicker["success"] and "FAIL flicker" in flicker["gradingResult"]["reason"], flicker["gradingResult"]["reason"]
        for cell, ref in ((clean, NEW), (flicker, REFERENCE)):
            judged = cell["gradingResult"]["componentResults"][0]
            verdict = "PASS" if cell["success"] else "FAIL"
            assert judged["reason"].startswith(f"{verdict} video probes on {ref}: "), judged["reason"]
            media = judged["metadata"]["media"]
            assert (media["written"], media["sha256"], media["carrier"]) == (ref, digests[ref], "data-uri")
    ab = cells[f"ab_judge probes {NEW}"]
    assert ab["success"], ab["gradingResult"]["reason"]
    media = next(c for c in ab["gradingResult"]["componentResults"] if "media" in (c.get("metadata") or {}))["metadata"]["media"]
    assert (media["new"]["sha256"], media["reference"]["sha256"]) == (digests[NEW], digests[REFERENCE])
    assert "reference faults: flicker" in ab["gradingResult"]["componentResults"][0]["reason"]
    assert "base64" not in json.dumps([c["gradingResult"]["reason"] for c in cells.values()])
