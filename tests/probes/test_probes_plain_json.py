"""A probes result is plain JSON: promptfoo's Python wrapper serialises it with ``json.dump`` and no default,
so one NumPy scalar in a score or a detail would turn the verdict into "Error running Python script"."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from reeljudge.assertions.video_probes import get_assert
from reeljudge.probes.report import ProbeResult

CLIPS = Path(__file__).resolve().parents[2] / "datasets" / "clips"


def test_numpy_scalars_in_a_probe_result_become_python_values():
    result = ProbeResult("motion_smoothness", np.bool_(True), np.float32(0.5), "ok",
                         details={"rms": np.float32(1.25),
                                  "runs": [{"jitter_px": np.float64(2.5), "rounded": round(np.float32(1.23456), 3)}],
                                  "pair": (np.int64(3), 4)})
    assert type(result.passed) is bool and type(result.score) is float
    assert type(result.details["rms"]) is float and type(result.details["runs"][0]["jitter_px"]) is float
    assert result.details["runs"][0]["rounded"] == 1.235
    assert result.details["pair"] == (3, 4) and type(result.details["pair"][0]) is int
    json.dumps(result.details)


def test_the_adapters_result_on_a_flickering_clip_is_plain_json():
    """The clip on which the smoothness probe's float32 score broke promptfoo's wrapper (numpy's float32 is not JSON)."""
    context = {"vars": {"prompt": "A red ball rolls past a wall", "video": str(CLIPS / "gen_flicker.mp4")},
               "config": {"var": "video", "prompt_var": "prompt"}, "test": {"description": "flicker"}}
    result = get_assert("", context)
    assert result["pass"] is False and "FAIL flicker" in result["reason"]
    assert json.loads(json.dumps(result)) == result
