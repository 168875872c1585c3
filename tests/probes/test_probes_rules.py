"""The probes' rules on plain numbers: swings and rates, holds, fades (no clip needed)."""

from __future__ import annotations

import math

import pytest

from reeljudge.probes import ProbeOptions
from reeljudge.probes.black import is_fade
from reeljudge.probes.dynamic import prompt_asks_for_motion
from reeljudge.probes.flicker import _rate, turning_points
from reeljudge.probes.stillness import usual_hold


def test_turning_points_follow_swings_of_at_least_the_hysteresis() -> None:
    assert turning_points([0, 5, 0, 5, 0, 5, 0], 4) == [0, 1, 2, 3, 4, 5, 6]
    assert turning_points([0, 1, 2, 3, 4, 5, 6], 4) == [0, 6]  # a ramp is one swing
    assert turning_points([0, 1, 0, 1, 0, 1], 4) == []  # wiggles under the hysteresis are no swings
    assert turning_points([0, 80, 0, 0, 0], 4) == [0, 1, 2]  # a flash: two swings


@pytest.mark.parametrize(("hz", "fps"), [(3, 24), (5, 24), (8, 24), (12, 24), (8, 30), (15, 30), (5, 25)])
def test_rate_from_turning_points_of_a_sampled_sine(hz: float, fps: int) -> None:
    values = [10 * math.cos(2 * math.pi * hz * k / fps + 0.3 * (hz * 2 != fps)) for k in range(fps)]
    points = turning_points(values, 4)
    rate = _rate([k / fps for k in points], ProbeOptions().flicker)
    assert rate == pytest.approx(hz, rel=0.1)


def test_irregular_swings_have_no_rate() -> None:
    times = [0.0, 0.04, 0.2, 0.24, 0.32, 0.52, 0.56, 0.64]
    assert _rate(times, ProbeOptions().flicker) is None


def test_usual_hold_is_one_for_live_footage_and_the_cadence_for_animation() -> None:
    live = ["moving"] * 10 + ["duplicate"] * 12 + ["moving"] * 10
    assert usual_hold(live) == 1
    twos = ["moving"] + ["duplicate", "moving"] * 20
    assert usual_hold(twos) == 2
    still = ["moving"] + ["still"] * 40  # one hold that touches the clip's ends: not a cadence
    assert usual_hold(still) == 1


def test_a_fade_is_steady_and_a_cut_is_one_step() -> None:
    options = ProbeOptions().black
    fade_out = [120, 120, 100, 80, 60, 40, 20, 4, 3, 3]  # black from index 7
    assert is_fade(fade_out, 7, -1, options)
    cut = [120, 121, 119, 120, 4, 3, 3]  # black from index 4
    assert not is_fade(cut, 4, -1, options)
    fade_in = [3, 3, 3, 30, 60, 90, 120, 121]  # black up to index 2
    assert is_fade(fade_in, 2, +1, options)
    short = [120, 60, 3, 3]  # two frames of darkening: too short to be a fade
    assert not is_fade(short, 2, -1, options)


def test_prompts_that_ask_for_movement() -> None:
    assert prompt_asks_for_motion("a horse gallops across a field")
    assert prompt_asks_for_motion("the camera pans over the city")
    assert not prompt_asks_for_motion("a still life of apples on a table")
    assert not prompt_asks_for_motion("a quiet library at night, rows of old books")
