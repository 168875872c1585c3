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


def test_filmability_records_the_options_that_change_its_verdicts_as_its_options_declare_them():
    """Filmability records the options that change its verdicts (so a lowered threshold is not compared as like with
    like). What a judge records is derived from its options' declarations (``option(..., verdict=True)``), for every
    judge of the table."""
    from reeljudge.assertions.filmability import get_assert

    at_defaults = get_assert(TERMS, _ctx(judge="local"))["metadata"]["judge_identity"]
    assert "options" not in at_defaults  # a judge at its defaults records none (baselines recorded before stay comparable)
    assert {"threshold": 0.8, "min_relevance": 1, "min_findability": 0.0}.items() <= at_defaults["option_defaults"].items()
    loosened = get_assert(TERMS, _ctx(judge="local", threshold=0.5, min_relevance=0))["metadata"]["judge_identity"]
    assert loosened["options"] == {"threshold": 0.5, "min_relevance": 0}
    assert judge_identities({"metadata": {"judge_identity": loosened}}) != judge_identities(
        {"metadata": {"judge_identity": at_defaults}})
    untouched = get_assert(TERMS, _ctx(judge="local", max_terms=20))["metadata"]["judge_identity"]
    assert "options" not in untouched  # an option that changes no verdict is not recorded


def test_every_judge_of_the_table_declares_the_options_that_change_its_verdicts():
    import importlib

    from reeljudge.judging import JUDGES
    from reeljudge.options import leaves

    for judge in JUDGES:
        module = importlib.import_module(judge.options_module)
        declared = {judge.name: [leaf.path[-1] for cls in judge.options for leaf in leaves(getattr(module, cls)) if leaf.verdict]}
        assert judge.options and declared[judge.name], judge.name
    film = importlib.import_module("reeljudge.filmability.options")
    marked = {leaf.path[-1] for leaf in leaves(film.FilmabilityOptions) if leaf.verdict}
    assert {"threshold", "min_relevance", "min_findability"} <= marked and "narration_var" not in marked
    # the unsure list and the repeated-terms rule decide verdicts too: an unsure list that passes, a repeat that fails
    assert {"unsure", "repeated_terms"} <= marked
