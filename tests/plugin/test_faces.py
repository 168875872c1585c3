"""The Python faces (``reeljudge.judge_terms``, ``score_gecko``, ``run_probes``, ``judge_pair``) never
raise for a judge that did not judge: they return ``NotJudged`` with the kind and the reason. Bad
options or inputs raise ``BadInputError``."""

from __future__ import annotations

from pathlib import Path

import pytest

import reeljudge
from reeljudge.errors import BadInputError
from support.paths import ROOT

pytestmark = pytest.mark.usefixtures("offline_judge_data")  # judges offline: norms and bank vectors made once per run

CLEAN = str(ROOT / "datasets" / "clips" / "gen_clean.mp4")
FLICKER = str(ROOT / "datasets" / "clips" / "gen_flicker.mp4")
NARRATION = "Redis keeps data in memory"

NO_KEY = {
    "judge_terms": lambda: reeljudge.judge_terms(NARRATION, ["server room"], judge="gemini"),
    "score_gecko": lambda: reeljudge.score_gecko("A red ball rolls past a wall", CLEAN),
    "judge_pair": lambda: reeljudge.judge_pair("A red ball rolls past a wall", CLEAN, FLICKER),
}


@pytest.mark.parametrize("face", sorted(NO_KEY))
def test_without_credentials_a_face_returns_not_judged(face):
    result = NO_KEY[face]()
    assert isinstance(result, reeljudge.NotJudged), result
    assert (result.judged, result.passed, result.score, result.kind) == (False, False, None, "no_credentials")
    assert "GEMINI_API_KEY" in result.reason


def _unreadable(tmp_path: Path) -> str:
    path = tmp_path / "not_a_clip.mp4"
    path.write_bytes(b"this is not a video" * 100)
    return str(path)


MEDIA = {
    "score_gecko missing": lambda tmp: reeljudge.score_gecko("A red ball", str(tmp / "gone.mp4")),
    "run_probes missing": lambda tmp: reeljudge.run_probes(tmp / "gone.mp4"),
    "run_probes undecodable": lambda tmp: reeljudge.run_probes(_unreadable(tmp)),
    "judge_pair probes missing": lambda tmp: reeljudge.judge_pair("A red ball", str(tmp / "gone.mp4"), FLICKER, judge="probes"),
    "judge_pair probes undecodable": lambda tmp: reeljudge.judge_pair("A red ball", CLEAN, _unreadable(tmp), judge="probes"),
}


@pytest.mark.parametrize("case", sorted(MEDIA))
def test_missing_or_unreadable_media_is_not_judged_with_the_reason(case, tmp_path):
    result = MEDIA[case](tmp_path)
    assert isinstance(result, reeljudge.NotJudged), result
    assert (result.passed, result.kind) == (False, "media_error")
    assert ("gone.mp4" in result.reason) or ("not_a_clip.mp4" in result.reason), result.reason


BAD_OPTIONS = {
    "judge_terms": lambda: reeljudge.judge_terms(NARRATION, ["server room"], judge="local", treshold=0.5),
    "score_gecko": lambda: reeljudge.score_gecko("A red ball", CLEAN, treshold=0.5),
    "run_probes": lambda: reeljudge.run_probes(CLEAN, black_min_frame=3),
    "judge_pair": lambda: reeljudge.judge_pair("A red ball", CLEAN, FLICKER, order=1),
}


@pytest.mark.parametrize("face", sorted(BAD_OPTIONS))
def test_bad_options_raise_bad_input_naming_the_option(face):
    with pytest.raises(BadInputError) as error:
        BAD_OPTIONS[face]()
    assert "did you mean" in error.value.message


def test_faces_that_judge_return_a_judged_verdict():
    film = reeljudge.judge_terms(NARRATION, ["server room", "RAM chips"], judge="local")
    probes = reeljudge.run_probes(CLEAN, prompt="a red ball rolls past a textured wall")
    pair = reeljudge.judge_pair("A red ball rolls past a wall", CLEAN, FLICKER, judge="probes")
    assert film.judged and probes.judged and pair.judged
    assert probes.passed is True and pair.winner == "clip_a"


def test_one_run_probes_contract():
    """``reeljudge.run_probes`` is the one public name; the raising call inside the probes is ``probe_clip``."""
    import reeljudge.probes

    assert not hasattr(reeljudge.probes, "run_probes") and callable(reeljudge.probes.probe_clip)
    assert reeljudge.run_probes.__module__ == "reeljudge.probes.api"


def test_a_faces_verdict_writes_the_reason_its_promptfoo_result_opens_with(gemini_env):
    """Every verdict writes its own reason; the adapter puts it after PASS/FAIL, unchanged."""
    import json

    from reeljudge.assertions import filmability, gecko, video_probes
    from support.gecko_scripts import script_prompt

    def opens_with(result: dict, verdict, reason: str) -> None:
        assert result["pass"] is verdict.passed and result["score"] == verdict.score
        assert result["reason"].splitlines()[0] == f"{'PASS' if verdict.passed else 'FAIL'} {reason}"

    terms = ["server room", "RAM chips", "speed"]
    film = reeljudge.judge_terms(NARRATION, terms, judge="local", findability="off")
    config = {"judge": "local", "findability": "off"}
    opens_with(filmability.get_assert(json.dumps(terms),
                                      {"vars": {"narration": NARRATION}, "config": config}), film, film.reason())
    probes = reeljudge.run_probes(FLICKER)
    reason = probes.reason("gen_flicker.mp4")
    assert reason.startswith("video probes on gen_flicker.mp4: 1 of 7 checks failed; FAIL flicker: ")
    opens_with(video_probes.get_assert("", {"vars": {"clip": FLICKER}}), probes, reason)
    prompt = "A red kite flying over a green meadow while clouds drift"
    script_prompt(gemini_env, prompt, matched=False)
    verdict = reeljudge.score_gecko(prompt, CLEAN)
    assert verdict.reason().startswith("gecko 0.25 < threshold 0.7: 1/4 correct")
    opens_with(gecko.get_assert(CLEAN, {"vars": {"prompt": prompt, "video": CLEAN}}), verdict, verdict.reason())
