"""Every probe finding, decode fact and per-frame signal equals the reference written from ``main``
before issue 21 changed how frames reach the analysis (``tests/data/probes_findings.json``).

Covers corpus variant 0 and every example clip in ``datasets/clips``;
``PYTHONPATH=tests python -m support.findings check tests/data/probes_findings.json`` checks variants 0–2.
The signal digests are exact (OpenCV's DIS flow was checked equal for 1, 2 and 4 threads), so any
change to the decode or the analysis shows here, series by series.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.corpus import PROMPT, write_corpus
from support.findings import CLIPS_DIR, clip_findings, differences

REFERENCE = Path(__file__).parent / "data" / "probes_findings.json"


@pytest.fixture(scope="module")
def reference() -> dict:
    return json.loads(REFERENCE.read_text())


@pytest.fixture(scope="module")
def corpus_clips(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    written = write_corpus(tmp_path_factory.mktemp("findings"), (0,))
    return {f"v0_{clip.name}": (path, clip.prompt) for _, clip, path in written}


def test_the_reference_covers_three_corpus_variants_and_every_example_clip(reference: dict) -> None:
    examples = {f"example_{p.stem}" for p in CLIPS_DIR.glob("*.mp4")}
    assert examples and examples <= set(reference)
    for variant in (0, 1, 2):
        assert sum(key.startswith(f"v{variant}_") for key in reference) >= 40
    assert all("findings" in entry or "error" in entry for entry in reference.values())


def test_every_corpus_finding_equals_the_reference(reference: dict, corpus_clips: dict[str, tuple[Path, str]]) -> None:
    fresh = {key: clip_findings(path, prompt) for key, (path, prompt) in corpus_clips.items()}
    assert set(fresh) <= set(reference)
    assert differences({key: reference[key] for key in fresh}, fresh) == []


def test_every_example_clip_finding_equals_the_reference(reference: dict) -> None:
    fresh = {f"example_{p.stem}": clip_findings(p, PROMPT) for p in sorted(CLIPS_DIR.glob("*.mp4"))}
    assert differences({key: reference[key] for key in fresh}, fresh) == []


def test_a_changed_signal_is_reported_by_series(reference: dict) -> None:
    key = next(k for k, v in reference.items() if "signals" in v)
    changed = json.loads(json.dumps(reference[key]))
    changed["signals"]["luma"] = "0" * 16
    changed["findings"]["flicker"]["score"] = -1
    lines = differences({key: reference[key]}, {key: changed})
    assert [line.split(":")[0] for line in lines] == [f"{key} findings.flicker", f"{key} signals.luma"]
