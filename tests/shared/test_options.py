"""The one options loader: one coercion table, choices and bounds checked, unknown keys refused with a
did-you-mean, config over environment over defaults; and every assertion and provider uses it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import pytest

from reeljudge.errors import BadInputError
from reeljudge.options import describe, flat_values, group, load_one, load_options, option
from support.entries import load_entry
from support.paths import ROOT

CLIP = str(ROOT / "datasets" / "clips" / "gen_clean.mp4")


@dataclass(frozen=True)
class Sample:
    """A class with one option of every kind."""

    flag: bool = option(False, doc="a switch", env="REELJUDGE_TEST_FLAG")
    count: int = option(3, minimum=1, maximum=10, doc="a count")
    ratio: float = option(0.5, minimum=0, maximum=1, doc="a share")
    mode: Literal["fast", "slow"] = option("fast", doc="a choice")
    name: str = option("x", doc="a name", aliases=("label",))
    limit: float | None = option(None, doc="optional")
    items: tuple[str, ...] = option(("a",), doc="a list")
    cache_mode: str = option("on", key="cache", doc="field name differs from its key")


def load(config, env=None):
    return load_one(config, Sample, owner="sample", env=env or {})


@pytest.mark.parametrize("raw,want", [(True, True), (False, False), ("true", True), ("False", False), ("YES", True),
                                      ("no", False), ("1", True), ("0", False), (1, True), (0, False)])
def test_one_rule_for_booleans(raw, want):
    assert load({"flag": raw}).flag is want


@pytest.mark.parametrize("raw", ["flase", "on", "off", "2", 2, "", None, [True]])
def test_anything_else_is_not_a_boolean(raw):
    with pytest.raises(BadInputError, match="sample option 'flag'"):
        load({"flag": raw})


def test_numbers_text_choices_lists_and_nulls_are_coerced_by_type():
    s = load({"count": "7", "ratio": "0.25", "mode": "SLOW", "limit": "null", "items": "b, c", "name": "n"})
    assert (s.count, s.ratio, s.mode, s.limit, s.items, s.name) == (7, 0.25, "slow", None, ("b", "c"), "n")
    assert load({"count": 4.0, "items": ["d"], "limit": 3}).items == ("d",)


@pytest.mark.parametrize(
    "config,fragment",
    [
        ({"count": "many"}, "sample option 'count' must be a whole number, got 'many'"),
        ({"count": 2.5}, "must be a whole number"),
        ({"count": True}, "must be a whole number"),
        ({"count": 0}, "must be at least 1"),
        ({"count": 11}, "must be at most 10"),
        ({"ratio": "nan"}, "must be a finite number"),
        ({"ratio": 1.5}, "must be at most 1"),
        ({"mode": "medium"}, "must be one of fast, slow; got 'medium'"),
        ({"name": 5}, "must be text"),
        ({"name": ""}, "needs a value"),
        ({"items": 5}, "must be a list"),
        ({"treshold": 1}, "unknown option 'treshold' for sample (known options:"),
        ({"coutn": 1}, "unknown option 'coutn' for sample; did you mean 'count'?"),
        ({"cache_mode": "x"}, "unknown option 'cache_mode' for sample; did you mean 'cache'?"),
        ({"name": "a", "label": "b"}, "'label' and 'name' are the same option"),
    ],
)
def test_bad_values_and_unknown_keys_are_errors_naming_the_option(config, fragment):
    with pytest.raises(BadInputError) as caught:
        load(config)
    assert fragment in caught.value.message, caught.value.message


def test_aliases_and_keys_map_to_their_field():
    assert load({"label": "old name", "cache": "off"}) == Sample(name="old name", cache_mode="off")


def test_config_beats_environment_beats_default_and_a_bad_environment_value_names_the_variable():
    assert load({}, env={"REELJUDGE_TEST_FLAG": "yes"}).flag is True
    assert load({"flag": False}, env={"REELJUDGE_TEST_FLAG": "yes"}).flag is False
    with pytest.raises(BadInputError, match="environment variable REELJUDGE_TEST_FLAG must be true or false"):
        load({}, env={"REELJUDGE_TEST_FLAG": "sure"})


def test_two_classes_share_one_config_and_the_first_owns_a_shared_key():
    @dataclass(frozen=True)
    class Other:
        count: int = option(9, doc="also a count")
        extra: str = option("e", doc="only here")

    sample, other = load_options({"count": 2, "extra": "z"}, Sample, Other, owner="both", env={})
    assert (sample.count, other.count, other.extra) == (2, 9, "z")


@dataclass(frozen=True)
class Inner:
    depth: int = option(1, minimum=0, doc="a grouped number")
    label: str = option("x", doc="a grouped text")


@dataclass(frozen=True)
class Outer:
    count: int = option(3, doc="a count of its own")
    inner: Inner = group(Inner, doc="the inner options")


def test_a_group_of_options_is_read_flat_and_held_grouped():
    outer = load_one({"depth": "4", "count": 5}, Outer, owner="grouped", env={})
    assert outer == Outer(count=5, inner=Inner(depth=4)) and load_one(None, Outer, owner="grouped", env={}) == Outer()
    assert flat_values(outer) == {"count": 5, "depth": 4, "label": "x"}
    assert [r["key"] for r in describe(Outer)] == ["count", "depth", "label"]
    with pytest.raises(BadInputError, match="^unknown option 'dept' for grouped; did you mean 'depth'[?]$"):
        load_one({"dept": 1}, Outer, owner="grouped", env={})
    with pytest.raises(BadInputError, match="^grouped option 'depth' must be at least 0"):
        load_one({"depth": -1}, Outer, owner="grouped", env={})


def test_options_are_documented_where_they_are_declared():
    rows = {r["key"]: r for r in describe(Sample)}
    assert rows["cache"]["doc"] == "field name differs from its key" and rows["limit"]["type"] == "float or null"
    assert rows["mode"]["type"] == "fast | slow" and rows["flag"]["env"] == "REELJUDGE_TEST_FLAG"


# ---- every assertion and provider goes through the loader -----------------------------------------


def _assertion(name):
    import importlib

    return importlib.import_module(f"reeljudge.assertions.{'video_probes' if name == 'probes' else name}").get_assert


ASSERTIONS = {
    "filmability": ('["server room"]', {"narration": "Servers hum in a data centre"}, {"judge": "local"}),
    "gecko": (CLIP, {"prompt": "a disc", "video": CLIP}, {}),
    "probes": (CLIP, {"clip": CLIP}, {}),
}


@pytest.mark.parametrize(
    "judge,config,fragment",
    [
        ("filmability", {"treshold": 0.9}, "unknown option 'treshold' for filmability; did you mean 'threshold'?"),
        ("filmability", {"threshold": "high"}, "filmability option 'threshold' must be a number, got 'high'"),
        ("filmability", {"judge": "gpt"}, "filmability option 'judge' must be one of auto, gemini, local"),
        ("filmability", {"max_terms": 0}, "filmability option 'max_terms' must be at least 1"),
        ("filmability", {"temperature": "warm"}, "filmability option 'temperature' must be a number"),
        ("gecko", {"treshold": 0.9}, "unknown option 'treshold' for gecko; did you mean 'threshold'?"),
        ("gecko", {"validity_filter": "flase"}, "gecko option 'validity_filter' must be true or false"),
        ("gecko", {"scoring": "soft"}, "gecko option 'scoring' must be one of hard, probability"),
        ("gecko", {"fps": 30}, "gecko option 'fps' must be at most 24"),
        ("gecko", {"start_offset_s": 2, "end_offset_s": 1}, "end_offset_s must be after start_offset_s"),
        ("gecko", {"judge": "local"}, "unknown option 'judge' for gecko"),
        ("probes", {"black_min_frame": 2}, "unknown option 'black_min_frame' for video_probes; did you mean 'black_min_frames'?"),
        ("probes", {"expect_fail": "maybe"}, "video_probes option 'expect_fail' must be true or false"),
        ("probes", {"probes": ["black_frames", "sparkle"]}, "unknown probes ['sparkle']"),
        ("probes", {"cut_ratio": "big"}, "video_probes option 'cut_ratio' must be a number"),
    ],
)
def test_every_assertion_refuses_unknown_keys_and_bad_values_naming_test_and_option(judge, config, fragment):
    output, vars_, base = ASSERTIONS[judge]
    result = _assertion(judge)(output, {"vars": vars_, "config": {**base, **config}, "test": {"description": "opts"}})
    assert result["pass"] is False and "(bad_input) in test 'opts'" in result["reason"], result["reason"]
    assert fragment in result["reason"], result["reason"]


def test_a_per_test_var_is_checked_like_an_option():
    result = _assertion("gecko")(CLIP, {"vars": {"prompt": "a disc", "video": CLIP, "expect": "maybe"}, "config": {}})
    assert result["pass"] is False and "var 'expect' must be one of match, mismatch" in result["reason"]


def _provider(name):
    return load_entry(ROOT / "providers" / f"{name}.py").call_api


@pytest.mark.parametrize(
    "provider,config,fragment",
    [
        ("clips", {"vra": "clip"}, "unknown option 'vra' for clip provider; did you mean 'var'?"),
        ("clips", {"delivery": "ftp"}, "clip provider option 'delivery' must be one of store, data"),
        ("terms_keywords", {"narration_vra": "n"}, "did you mean 'narration_var'?"),
        ("terms_visual", {"narration_var": 3}, "option 'narration_var' must be text"),
        ("terms_gemini", {"temprature": 0.3},
         "unknown option 'temprature' for gemini term generator; did you mean 'temperature'?"),
        ("terms_gemini", {"max_attempts": "x"}, "option 'max_attempts' must be a whole number"),
        ("veo", {"durations": 4}, "did you mean 'duration_seconds'?"),
        ("veo", {"generate_audio": "flase"}, "veo provider option 'generate_audio' must be true or false"),
    ],
)
def test_every_provider_refuses_unknown_keys_and_bad_values(provider, config, fragment):
    context = {"vars": {"clip": CLIP, "narration": "Servers hum"}, "test": {"description": "opts"}}
    response = _provider(provider)("a prompt", {"config": {"basePath": str(ROOT), **config}}, context)
    assert set(response) == {"error"} and fragment in response["error"], response


def test_promptfoos_own_provider_keys_are_not_ours_to_refuse():
    context = {"vars": {"narration": "Servers hum in a data centre"}, "test": {"description": "opts"}}
    config = {"basePath": str(ROOT), "pythonExecutable": "python3", "workers": 2, "timeout": 1000}
    response = _provider("terms_keywords")("p", {"config": config}, context)
    assert "error" not in response and response["output"].startswith("[")


@pytest.mark.parametrize("given, loader, expected", [
    ("var", "reeljudge.ab_judge.options", "unknown option 'var' for ab_judge; did you mean 'media_var'?"),
    ("var", "reeljudge.gecko.options", "unknown option 'var' for gecko; did you mean 'media_var'?"),  # not qas_var
    ("clip_var", "reeljudge.gecko.options", "unknown option 'clip_var' for gecko; did you mean 'media_var'?"),
    ("media_var", "reeljudge.probes.options", "unknown option 'media_var' for video_probes; did you mean 'var'?"),
])
def test_the_var_naming_the_clip_is_suggested_across_judges(given, loader, expected):
    """The probes call the var naming the clip ``var``; Gecko and the A/B judge ``media_var``: a config that uses one
    judge's name for another judge is told the right one."""
    import importlib

    with pytest.raises(BadInputError) as error:
        importlib.import_module(loader).load({given: "clip"})
    assert str(error.value) == expected
