"""Every assertion's result, checked and dumped: what holds of any result, and a file to compare before and after.

Runs each judge's ``get_assert`` over a varied set of contexts — the offline judges for real
(filmability ``judge: local``, the video probes over ``datasets/clips``), Gecko and the A/B judge
through the fake Gemini server — plus the paths that do not judge, and writes every result (pass,
score, reason, namedScores, tokensUsed, metadata without timings and machine paths) to the JSON
file named by ``REELJUDGE_RESULTS_DUMP`` (when set). Run before and after a refactor; the two files must be
equal. Every run checks what holds of any result whatever the refactor: the verdict line, the score's range,
the cases that must not judge, and an expected failure that inverts the plain verdict.
"""

from __future__ import annotations

import importlib
import json
import os
import re
from pathlib import Path
from typing import Any, Callable

import pytest

from support.ab_judge_scripts import on_order, prefer, reply, side_bias, verdict_reply
from support.gecko_scripts import NESTED, script_nested, script_prompt
from support.paths import ROOT

# judges offline (norms and bank vectors made once per run); probes the same few clips 38 times (each again with
# expect_fail, again as the A/B judge's new and reference clip): each decoded once (tests/support/measure_once.py)
pytestmark = pytest.mark.usefixtures("offline_judge_data", "measure_once")

CLIPS = ROOT / "datasets" / "clips"
DUMP = os.environ.get("REELJUDGE_RESULTS_DUMP")  # read at import: the tests' clean environment drops REELJUDGE_*
VOLATILE = {"latency_s", "latency_ms", "elapsed_s", "timings", "duration_s", "wall_s", "cpu_s"}


def _entry(module: str) -> Callable[..., dict]:
    """``get_assert`` of the assertion adapter ``module`` (``reeljudge.assertions.<judge>``), as promptfoo finds it."""
    return importlib.import_module(module).get_assert


def _clean(value: Any, tmp: str, url: str) -> Any:
    """``value`` without timings, with the temporary folder, the repository and the fake's address named."""
    if isinstance(value, dict):
        return {k: _clean(v, tmp, url) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_clean(v, tmp, url) for v in value]
    if isinstance(value, str):
        value = value.replace(tmp, "<tmp>").replace(str(ROOT), "<repo>")
        return value.replace(url, "<fake>") if url else value
    return value


def _ctx(vars_: dict, config: dict, name: str, **extra: Any) -> dict:
    return {"vars": vars_, "config": config, "test": {"description": name, "vars": vars_}, **extra}


def _filmability(run: Callable[..., dict], stock: Any) -> dict[str, dict]:
    grade = _entry("reeljudge.assertions.filmability")
    redis = "Redis stores everything in memory, making it blazingly fast"
    good = ["server room", "computer RAM", "data center lights", "fast motion blur"]
    cases = {
        "local_pass": (good, redis, {"judge": "local"}),
        "local_abstract": (["speed", "efficiency", "performance"], redis, {"judge": "local"}),
        "local_off_topic": (["basil leaves", "pasta plate"], redis, {"judge": "local", "min_relevance": 2}),
        "local_capped": (["closures", "function scope", "programmer typing"], "Closures capture variables from their scope",
                         {"judge": "local"}),
        "local_unknown_words": (["zorblax frumious", "server room"], redis, {"judge": "local"}),
        "local_threshold": (good, redis, {"judge": "local", "threshold": 0.99}),
        "bad_option": (good, redis, {"judge": "local", "threshhold": 0.5}),
        "bad_terms": ("not json [", redis, {"judge": "local"}),
        "empty_narration": (good, "", {"judge": "local"}),
        "long_narration": (good, "word " * 400, {"judge": "local"}),
        "findability_required_no_keys": (good, redis, {"judge": "local", "findability": "required"}),
    }
    out = {name: run(grade, json.dumps(terms) if isinstance(terms, list) else terms, _ctx({"narration": n}, cfg, name))
           for name, (terms, n, cfg) in cases.items()}
    from support.fake_stock import PEXELS_KEY, PIXABAY_KEY

    os.environ.update(PEXELS_API_KEY=PEXELS_KEY, PIXABAY_API_KEY=PIXABAY_KEY, PEXELS_API_BASE_URL=stock.url,
                      PIXABAY_API_BASE_URL=stock.url)
    stock.counts = {"server room": 40, "computer RAM": 3, "data center lights": 12, "fast motion blur": 0}
    out["findability"] = run(grade, json.dumps(good), _ctx({"narration": redis}, {"judge": "local"}, "findability"))
    out["min_findability"] = run(grade, json.dumps(good),
                                 _ctx({"narration": redis}, {"judge": "local", "min_findability": 0.9}, "minf"))
    for name in ("PEXELS_API_KEY", "PIXABAY_API_KEY", "PEXELS_API_BASE_URL", "PIXABAY_API_BASE_URL"):
        os.environ.pop(name)
    return out


def _film_gemini(run: Callable[..., dict], fake: Any) -> dict[str, dict]:
    from support.fake_gemini import json_reply

    grade = _entry("reeljudge.assertions.filmability")
    value = {"breakdown": {"relevance": 2, "filmability": 3, "variety": 1}, "points": 7, "score": 1.0, "reason": "fine",
             "criterionReasons": {"relevance": "close", "filmability": "physical", "variety": "mixed"},
             "unfilmableTerms": ["RAM"]}
    fake.on("Grade these search terms", json_reply(value))
    terms = json.dumps(["server room", "RAM"])
    return {"gemini": run(grade, terms, _ctx({"narration": "Redis keeps data in memory"}, {"judge": "gemini"}, "fg"))}


def _probes(run: Callable[..., dict], tmp: Path) -> dict[str, dict]:
    grade = _entry("reeljudge.assertions.video_probes")
    out = {}
    for clip in sorted(CLIPS.glob("*.mp4")):
        ctx = _ctx({"clip": str(clip), "prompt": "a red ball rolls past a wall"}, {}, clip.stem)
        out[f"{clip.stem}"] = run(grade, "", ctx)
        out[f"{clip.stem}_expect_fail"] = run(grade, "", _ctx(ctx["vars"], {"expect_fail": True}, clip.stem))
    still = str(CLIPS / "gen_frozen.mp4")
    out["property_only"] = run(grade, "", _ctx({"clip": still}, {"probes": ["dynamic_degree"]}, "prop"))
    out["expect_motion"] = run(grade, "", _ctx({"clip": still}, {"probes": ["dynamic_degree"], "expect_motion": True}, "motion"))
    out["from_output"] = run(grade, str(CLIPS / "gen_clean.mp4"), _ctx({"prompt": "x"}, {}, "output"))
    out["provider_metadata"] = run(grade, "made",
                                   _ctx({}, {}, "meta",
                                        providerResponse={"output": "made",
                                                          "metadata": {"clip_path": str(CLIPS / "gen_cut.mp4")}}))
    out["missing"] = run(grade, "", _ctx({"clip": str(tmp / "absent.mp4")}, {}, "missing"))
    (tmp / "text.mp4").write_text("not a video")
    out["not_video"] = run(grade, "", _ctx({"clip": str(tmp / "text.mp4")}, {}, "notvideo"))
    out["missing_expect_fail"] = run(grade, "", _ctx({"clip": str(tmp / "absent.mp4")}, {"expect_fail": True}, "mef"))
    out["no_clip"] = run(grade, "", _ctx({"prompt": "x"}, {}, "noclip"))
    out["bad_option"] = run(grade, "", _ctx({"clip": still}, {"probez": ["x"]}, "badopt"))
    out["bad_probe"] = run(grade, "", _ctx({"clip": still}, {"probes": ["nope"]}, "badprobe"))
    return out


def _gecko(run: Callable[..., dict], fake: Any) -> dict[str, dict]:
    grade = _entry("reeljudge.assertions.gecko")
    clip = str(CLIPS / "gen_clean.mp4")
    out = {}
    matched = "A red kite flying over a green meadow while clouds drift"
    counter = "A blue submarine diving beneath arctic ice at night"
    script_prompt(fake, matched, matched=True)
    script_prompt(fake, counter, matched=False)
    out["matched"] = run(grade, clip, _ctx({"prompt": matched, "video": clip}, {}, "matched"))
    out["matched_again_cached"] = run(grade, clip, _ctx({"prompt": matched, "video": clip}, {}, "matched"))
    out["counter"] = run(grade, clip, _ctx({"prompt": counter, "video": clip}, {}, "counter"))
    out["counter_expect"] = run(grade, clip, _ctx({"prompt": counter, "video": clip}, {"expect": "mismatch"}, "counterx"))
    out["counter_expect_var"] = run(grade, clip, _ctx({"prompt": counter, "video": clip, "expect": "mismatch"}, {}, "cv"))
    out["matched_min_coverage"] = run(grade, clip, _ctx({"prompt": matched, "video": clip}, {"threshold": 0.3}, "thr"))
    for name in NESTED:
        script_nested(fake, name)
        out[f"nested_{name}"] = run(grade, clip, _ctx({"prompt": NESTED[name]["prompt"], "video": clip}, {}, name))
    qas = [{"question": "Is there a disc?", "choices": ["a) yes", "b) no"], "answer": "a", "tag": "object"}]
    out["declared_bad"] = run(grade, clip, _ctx({"prompt": "x", "video": clip, "qas": [{"question": "?"}]}, {}, "declbad"))
    out["declared_unanswered"] = run(grade, clip, _ctx({"prompt": "A disc", "video": clip, "qas": qas}, {}, "decl"))
    out["no_prompt"] = run(grade, clip, _ctx({"video": clip}, {}, "noprompt"))
    out["no_media"] = run(grade, "", _ctx({"prompt": matched}, {}, "nomedia"))
    out["bad_option"] = run(grade, clip, _ctx({"prompt": matched, "video": clip}, {"treshold": 1}, "badopt"))
    return out


def _ab(run: Callable[..., dict], fake: Any) -> dict[str, dict]:
    from reeljudge.media.refs import sha256_file

    grade = _entry("reeljudge.assertions.ab_judge")
    clean, flicker, frozen = (str(CLIPS / f"gen_{n}.mp4") for n in ("clean", "flicker", "frozen"))
    black, cut = str(CLIPS / "gen_black.mp4"), str(CLIPS / "gen_cut.mp4")

    def pair(new: str, ref: str, prompt: str, name: str, **config: Any) -> dict:
        ctx = _ctx({"prompt": prompt, "reference": ref}, config, name,
                   providerResponse={"output": new, "metadata": {"clip_path": new}})
        return run(grade, new, ctx)

    out = {}
    p1, p2, p3 = "A red ball rolls past a wall", "A kite over a field", "A boat on a lake"
    prefer(fake, p1, sha256_file(clean), sha256_file(flicker), tag="flicker", secondary=["artifacts"], note="It flickers.")
    out["gemini_win"] = pair(clean, flicker, p1, "win")
    out["gemini_loss"] = pair(flicker, clean, p1, "loss")
    out["gemini_loss_expect_fail"] = pair(flicker, clean, p1, "lossx", expect_fail=True)
    side_bias(fake, p2, side="A")
    out["gemini_flip"] = pair(clean, flicker, p2, "flip")
    out["gemini_flip_strict"] = pair(clean, flicker, p2, "flips", pass_on="win")
    on_order(fake, p3, sha256_file(clean), reply(verdict_reply("tie", "tie_both_good")))
    out["gemini_one_order"] = pair(clean, frozen, p3, "one", orders=1)
    for new, ref, name in ((clean, flicker, "probes_win"), (flicker, clean, "probes_loss"), (clean, clean, "probes_tie"),
                           (black, clean, "probes_ruined"), (cut, frozen, "probes_cut_frozen"), (frozen, flicker, "probes_ff")):
        out[name] = pair(new, ref, p1, name, judge="probes")
    out["probes_expect_fail"] = pair(black, clean, p1, "pxf", judge="probes", expect_fail=True)
    out["probes_missing_ref"] = pair(clean, str(CLIPS / "absent.mp4"), p1, "pmr", judge="probes")
    out["no_prompt"] = run(grade, clean, _ctx({"reference": flicker}, {"judge": "probes"}, "noprompt"))
    out["no_reference"] = pair(clean, "", p1, "noref", judge="probes")
    out["bad_option"] = pair(clean, flicker, p1, "badopt", judge="probes", pass_onn="win")
    return out


#: cases that must not judge (bad input, missing media, no credentials, a refused request)
NOT_JUDGED = {
    "filmability": {"bad_option", "empty_narration", "findability_required_no_keys"},
    "gecko": {"bad_option", "declared_bad", "declared_unanswered", "no_media", "no_prompt"},
    "video_probes": {"bad_option", "bad_probe", "missing", "missing_expect_fail", "no_clip", "not_video"},
    "ab_judge": {"bad_option", "no_prompt", "no_reference", "probes_missing_ref"},  # probes_tie (one clip twice) is a judged tie
}


def _check(results: dict[str, dict[str, dict]]) -> None:
    """What holds of every dumped result: the verdict line, the score's range, the refusals, inverted verdicts."""
    for judge, cases in results.items():
        for name, result in cases.items():
            first = result["reason"].split("\n", 1)[0]
            assert first.startswith("PASS " if result["pass"] else "FAIL "), (judge, name, first)
            assert 0.0 <= result["score"] <= 1.0, (judge, name, result["score"])
            refused = " did not judge (" in first
            assert refused == (name in NOT_JUDGED.get(judge, set())), (judge, name, first)
            assert not refused or (result["pass"] is False and result["metadata"]["judged"] is False), (judge, name)
    probes = results["video_probes"]
    inverted = [n for n in probes if n.endswith("_expect_fail") and n.removesuffix("_expect_fail") in probes
                and n not in NOT_JUDGED["video_probes"]]
    assert len(inverted) >= 8
    assert all(probes[n]["pass"] is not probes[n.removesuffix("_expect_fail")]["pass"] for n in inverted)


def test_dump_every_assertion_result(gemini_env, stock, tmp_path: Path) -> None:
    def run(grade: Callable[..., dict], output: Any, context: dict) -> dict:
        return _clean(grade(output, context), str(tmp_path), gemini_env.url)

    results = {"filmability": _filmability(run, stock), "filmability_gemini": _film_gemini(run, gemini_env),
               "video_probes": _probes(run, tmp_path), "gecko": _gecko(run, gemini_env), "ab_judge": _ab(run, gemini_env)}
    count = sum(map(len, results.values()))
    assert count > 70
    text = json.dumps(results, indent=1, sort_keys=True, default=str)
    assert not re.search(r"127\.0\.0\.1:\d+", text)
    if DUMP:  # written before the checks, so a run that fails one can still be compared
        Path(DUMP).write_text(text)
    _check(json.loads(text))
