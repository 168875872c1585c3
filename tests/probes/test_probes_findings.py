"""Every probe finding, decode fact and per-frame signal summary equals the reference
(``tests/data/probes_findings.json``: first written before frames reached the analysis the way they do now;
rewritten when the probes learnt to read motion on repeating textures, with every verdict, gating
flag and reported frame range of its 175 clips unchanged — the reasons now say what the camera did,
the pan that eases to a hold is a still picture once it holds, a flash on a textured pan is listed as
a flash, and the new per-frame series are summarised).

Covers corpus variant 0 and every example clip in ``datasets/clips``;
``PYTHONPATH=tests python -m support.findings check tests/data/probes_findings.json`` checks variants 0–2.
Verdicts, gating, reasons, frames, times and decode facts are compared exactly; scores, measured
amounts, the generated clips' byte sizes and the signal summaries within the tolerances of
``support.tolerance`` (chosen from the spread measured across thread settings, OpenCV's
plain paths and a CPU without AVX-512: docs/decisions.md), so the reference holds on any machine of
this kind while a changed rule or measurement still shows.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.corpus import PROMPT, corpus
from support.findings import CLIPS_DIR, clip_findings
from support.paths import TEST_DATA
from support.tolerance import differences

REFERENCE = TEST_DATA / "probes_findings.json"


@pytest.fixture(scope="module")
def reference() -> dict:
    return json.loads(REFERENCE.read_text())


@pytest.fixture(scope="module")
def corpus_clips(corpus_v0: dict[str, Path]) -> dict[str, tuple[Path, str]]:
    """Variant 0's clips (written once per run: the root conftest's ``corpus_v0``) with their prompts."""
    return {f"v0_{clip.name}": (corpus_v0[clip.name], clip.prompt) for clip in corpus(0)}


def test_the_reference_covers_three_corpus_variants_and_every_example_clip(reference: dict) -> None:
    examples = {f"example_{p.stem}" for p in CLIPS_DIR.glob("*.mp4")}
    assert examples and examples <= set(reference)
    for variant in (0, 1, 2):
        assert sum(key.startswith(f"v{variant}_") for key in reference) >= 40
    assert all("findings" in entry or "error" in entry for entry in reference.values())


def test_every_corpus_finding_equals_the_reference(reference: dict, corpus_clips: dict[str, tuple[Path, str]]) -> None:
    fresh = {key: clip_findings(path, prompt) for key, (path, prompt) in corpus_clips.items()}
    assert set(fresh) <= set(reference)
    lines = differences({key: reference[key] for key in fresh}, fresh)
    assert lines == [], "\n".join(lines)


def test_every_example_clip_finding_equals_the_reference(reference: dict) -> None:
    fresh = {f"example_{p.stem}": clip_findings(p, PROMPT) for p in sorted(CLIPS_DIR.glob("*.mp4"))}
    lines = differences({key: reference[key] for key in fresh}, fresh)
    assert lines == [], "\n".join(lines)


def _changed(entry: dict, path: str, value: object) -> dict:
    """A deep copy of a clip's entry with the value at a dotted path replaced."""
    changed = json.loads(json.dumps(entry))
    *parents, last = path.split(".")
    node = changed
    for part in parents:
        node = node[part]
    node[last] = value
    return changed


def test_noise_within_the_tolerances_passes_and_a_change_beyond_them_is_reported(reference: dict) -> None:
    key = "v0_flicker_8hz_static"
    entry = reference[key]
    score, luma = entry["findings"]["flicker"]["score"], entry["signals"]["luma"]["mean"]
    noisy = _changed(_changed(entry, "findings.flicker.score", score + 0.0005), "signals.luma.mean", luma * 1.0005)
    assert differences({key: entry}, {key: noisy}) == []
    lines = differences({key: entry},
                        {key: _changed(_changed(entry, "findings.flicker.score", score + 0.05), "signals.luma.mean", luma + 1.0)})
    assert [line.split(":")[0] for line in lines] == [f"{key} findings.flicker.score", f"{key} signals.luma.mean"]
    assert "(tolerance ±" in lines[0]


def test_verdicts_reasons_frames_and_times_must_be_equal(reference: dict) -> None:
    key = "v0_flicker_8hz_static"
    entry = reference[key]
    run = entry["findings"]["flicker"]["details"]["runs"][0]
    for path, value in [("findings.flicker.passed", True),
                        ("findings.flicker.reason", entry["findings"]["flicker"]["reason"] + " "),
                        ("info.decoded_frames", entry["info"]["decoded_frames"] - 1)]:
        assert ([line.split(":")[0] for line in differences({key: entry}, {key: _changed(entry, path, value)})]
                == [f"{key} {path}"])
    moved = json.loads(json.dumps(entry))
    moved["findings"]["flicker"]["details"]["runs"][0] = {**run, "start_frame": run["start_frame"] + 1,
                                                          "start_s": run["start_s"] + 1e-6}
    lines = differences({key: entry}, {key: moved})
    assert ([line.split(":")[0] for line in lines]
            == [f"{key} findings.flicker.details.runs[0].start_frame", f"{key} findings.flicker.details.runs[0].start_s"])
