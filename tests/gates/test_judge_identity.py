"""Every judge records who judged (``metadata.judge_identity``) so a regression gate compares like with like."""

from __future__ import annotations

import json
import re

import pytest

from support.fake_gemini import json_reply
from reeljudge.gates.results import judge_identities
from reeljudge.synth.clips import FIXTURES, make_clip

pytestmark = pytest.mark.usefixtures("offline_judge_data")  # judges offline: norms and bank vectors made once per run

TERMS = json.dumps(["server room", "computer RAM", "data center lights"])
NARRATION = "Redis stores everything in memory, making it blazingly fast"
REPLY = {"breakdown": {"relevance": 3, "filmability": 3, "variety": 1}, "unfilmableTerms": [], "points": 7, "score": 1.0,
         "reason": "good terms"}


def _ctx(**config):
    return {"vars": {"narration": NARRATION}, "config": config, "test": {"description": "case-1"}}


def test_the_offline_filmability_judge_is_deterministic_and_versioned():
    from reeljudge.assertions.filmability import get_assert

    identity = get_assert(TERMS, _ctx(judge="local"))["metadata"]["judge_identity"]
    assert identity["judge"] == "filmability" and identity["engine"] == "local" and identity["deterministic"] is True
    assert re.fullmatch(r"\d+-[0-9a-f]{12}", identity["version"]) and "model" not in identity


def test_the_gemini_filmability_judge_names_its_model_and_rubric_and_is_deterministic_only_when_replayed(gemini_env):
    from reeljudge.assertions.filmability import get_assert

    gemini_env.on("Grade these search terms", json_reply(REPLY))
    live = get_assert(TERMS, _ctx(judge="gemini"))
    replayed = get_assert(TERMS, _ctx(judge="gemini"))  # the second is a judge-cache hit
    first, second = live["metadata"]["judge_identity"], replayed["metadata"]["judge_identity"]
    assert (first["engine"] == "gemini" and first["model"] == "gemini-2.5-flash"
            and re.fullmatch(r"[0-9a-f]{12}", first["version"]))
    assert first["deterministic"] is False and second["deterministic"] is True
    assert judge_identities(live) == judge_identities(replayed)  # the same judge: comparable
    other = get_assert(TERMS, _ctx(judge="gemini", model="gemini-2.5-pro"))
    assert judge_identities(other) != judge_identities(live)


def test_the_video_probes_record_the_thresholds_that_differ_from_the_defaults(tmp_path):
    from reeljudge.assertions.video_probes import get_assert

    name, fixture = next(iter(FIXTURES.items()))
    clip = make_clip(tmp_path / f"{name}.mp4", fixture.spec)
    context = {"vars": {"video": str(clip)}, "test": {"description": "probe"}, "config": {"probes": "black_frames,frozen_frames"}}
    identity = get_assert("", context)["metadata"]["judge_identity"]
    assert identity["engine"] == "probes" and identity["deterministic"] is True
    assert identity["options"] == {"probes": ["black_frames", "frozen_frames"]}
    changed = get_assert("", {**context, "config": {**context["config"], "black_pixel_level": 40}})["metadata"]["judge_identity"]
    assert changed["options"]["black_pixel_level"] == 40
