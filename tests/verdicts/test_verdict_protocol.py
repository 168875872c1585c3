"""Every judge's verdict satisfies the one verdict protocol (``reeljudge.verdict.Verdict``), and the one
builder turns any of them into promptfoo's result."""

from __future__ import annotations

import json

import pytest

from reeljudge.ab.store.protocol import load_protocol
from reeljudge.ab_judge.probes_judge import compare_probes
from reeljudge.ab_judge.verdict import OrderVerdict, PairVerdict, combine
from reeljudge.filmability.judge import FilmabilityVerdict
from reeljudge.filmability.score_table import Breakdown, score_breakdown
from reeljudge.gecko.verdict import GeckoVerdict
from reeljudge.identity import IDENTITY_KEY
from reeljudge.judging import JUDGES
from reeljudge.not_judged import NotJudged
from reeljudge.probes.options import ProbeOptions
from reeljudge.probes.report import ProbeResult, ProbesVerdict
from reeljudge.promptfoo.results import verdict_result
from reeljudge.verdict import Verdict

MEMBERS = ("judged", "passed", "score", "reason", "part_reasons", "part_status", "named_scores",
           "tokens_used", "identity", "metadata")


def _film() -> FilmabilityVerdict:
    b = Breakdown(relevance=3, filmability=2, variety=1, unfilmable_terms=[], reason="fine", criterion_reasons={})
    return FilmabilityVerdict(["a", "b"], b, score_breakdown(b), 0.8, "local", who={"judge": "filmability", "engine": "local"})


def _probes(*failed: str) -> ProbesVerdict:
    names = ("black_frames", "flicker", "dynamic_degree")
    results = [ProbeResult(n, n not in failed, 0.2 if n in failed else 1.0, f"{n} found" if n in failed else "ok") for n in names]
    return ProbesVerdict(results, None, ProbeOptions.of(black_min_frames=3), "clip.mp4")


def _pair() -> PairVerdict:
    form = {"winner": "A", "primary_tag": "artifacts", "secondary_tags": [], "note": "",
            "ratings": {side: {"prompt_adherence": 4, "temporal_consistency": 4} for side in "AB"}}
    order = OrderVerdict({"A": "new", "B": "reference"}, form, {"model": "gemini-2.5-flash", "cache_hit": True})
    from reeljudge.ab_judge.options import ABJudgeOptions
    from reeljudge.gemini.settings import JudgeSettings
    from reeljudge.options import verdict_options

    configured = verdict_options(ABJudgeOptions(orders=1, fps=2.0), JudgeSettings())
    return combine("a kite", "text-to-video", load_protocol(), ("new", "reference"), [order], fps=2.0, configured=configured)


def test_every_verdict_type_is_a_verdict_and_not_judged_is_not():
    pairs = compare_probes(("new", "reference"), (_probes("flicker"), _probes()), "text-to-video")
    for verdict in (_film(), _probes("flicker"), _pair(), pairs):
        assert isinstance(verdict, Verdict), type(verdict).__name__
    assert all(hasattr(GeckoVerdict, m) or m in GeckoVerdict.__dataclass_fields__ for m in MEMBERS
               if m not in ("passed", "score"))
    assert not isinstance(NotJudged("gecko", "no_credentials", "no key"), Verdict)


@pytest.mark.parametrize("make", [_film, lambda: _probes("flicker"), _pair,
                                  lambda: compare_probes(("new", "reference"),
                                                         (_probes(), _probes("black_frames")), "text-to-video")])
def test_the_one_builder_reads_only_the_verdict(make):
    verdict = make()
    result = verdict_result(verdict, metadata={"test": "t"})
    assert result["pass"] is verdict.passed and result["score"] == verdict.score
    assert result["reason"].splitlines()[0] == f"{'PASS' if verdict.passed else 'FAIL'} {verdict.reason()}"
    assert result["metadata"][IDENTITY_KEY] == verdict.identity() and result["metadata"]["test"] == "t"
    assert result["metadata"]["breakdown"] == dict(verdict.part_reasons())
    assert result.get("namedScores", {}) == dict(verdict.named_scores())
    json.dumps(result)  # promptfoo reads JSON
    inverted = verdict_result(verdict, expect_fail="a planted fault")
    assert inverted["pass"] is (not verdict.passed) and "expected a planted fault" in inverted["reason"]


def test_a_verdict_names_its_judge_as_the_table_does():
    names = {j.name for j in JUDGES}
    assert _probes().identity()["judge"] == "video_probes" and _pair().identity()["judge"] == "ab_judge"
    assert {_probes().identity()["judge"], _pair().identity()["judge"]} <= names
    assert _probes().identity()["options"] == {"black_min_frames": 3}
    assert _pair().identity()["options"] == {"orders": 1, "fps": 2.0}  # the verdict options set away from their defaults
    assert _pair().identity()["option_defaults"]["pass_on"] == "win_or_tie"


def test_a_probes_verdict_with_nothing_to_check_did_not_judge():
    verdict = ProbesVerdict([ProbeResult("colour", True, 1.0, "colour", gating=False)], None)
    assert verdict.judged is False and verdict.passed is False
    assert verdict_result(verdict)["metadata"]["judged"] is False
