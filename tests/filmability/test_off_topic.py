"""Off-topic never passes (issue 27): ``min_relevance`` on the offline judge, and its cap on a list
holding a term it reads as unrelated (the Gemini path is in test_filmability_gemini.py); issue 35: a term is
related only on evidence that its narration explains it better than narrations about other things."""

from __future__ import annotations

import json

import pytest

from reeljudge.assertions.filmability import get_assert
from reeljudge.filmability.judge_local import LocalJudgeOptions, judge_terms_locally
from reeljudge.filmability.relevance import ListEvidence, TermRelevance, list_level

pytestmark = pytest.mark.usefixtures("offline_judge_data")  # judges offline: norms and bank vectors made once per run

TEACHER = "A good teacher notices when a student is falling behind."
UNRELATED = ["fishing boat", "car engine", "mountain lake"]
WHALES = "Humpback whales travel thousands of miles to warmer waters each winter."


def _ctx(narration: str, **config) -> dict:
    return {"vars": {"narration": narration}, "config": {"judge": "local", "findability": "off", **config},
            "test": {"description": "off-topic"}}


def _reading(level: int) -> TermRelevance:
    return TermRelevance(f"t{level}", level, "", 0.0, 0.0, 0.0, None, 0.0, 0.0, 0.0, "", margin_level=level)


def test_an_unrelated_list_fails_offline_with_the_reason(model) -> None:
    result = get_assert(json.dumps(UNRELATED), _ctx(TEACHER))
    # the table alone: relevance 0 + filmability 3 + variety 1 = 4 points → 0.8, which passed before
    assert result["score"] == 0.8 and result["pass"] is False
    assert "relevance 0/3 is under min_relevance 1" in result["reason"]
    assert result["metadata"]["relevance_short"] is True


def test_min_relevance_0_restores_the_table_alone_offline(model) -> None:
    result = get_assert(json.dumps(UNRELATED), _ctx(TEACHER, min_relevance=0))
    assert result["score"] == 0.8 and result["pass"] is True and "min_relevance" not in result["reason"]


def test_one_unrelated_term_caps_the_list_below_direct() -> None:
    assert list_level([_reading(3), _reading(3), _reading(3)]) == 3
    assert list_level([_reading(3), _reading(3), _reading(3), _reading(0)]) == 2  # was 3: half the terms reach 3
    assert list_level([_reading(2), _reading(1), _reading(0)]) == 1  # below the cap: unchanged
    assert list_level([_reading(3), _reading(3), _reading(1)]) == 3  # a loose term is not an unrelated one


def test_the_offline_reason_says_the_cap_applied(model) -> None:
    j = judge_terms_locally(WHALES, ["food chain", "ocean temperature", "migration route", "whale tail"])
    assert j.breakdown.relevance == 2  # the labelled set says 1; it read 3 before the cap
    assert j.breakdown.criterion_reasons["relevance"].startswith("a term is unrelated (food chain), so the list is at most "
                                                                 "generally related → 2/3")


#: issue 35's five examples: concrete lists for another narration, each passed at 0.8 with relevance 2 before
ISSUE_EXAMPLES = [
    ("Marathon runners hit the wall around mile twenty, when their legs run out of fuel.",
     ["birthday cake", "cat sleeping on a sofa", "snowy mountains"]),
    ("Sear the steak in a hot cast-iron pan until a brown crust forms.",
     ["city skyline at night", "golden retriever on a beach", "server rack"]),
    ("Vaccines train the immune system to recognise a virus before you ever meet it.",
     ["skateboarder doing a kickflip", "pizza coming out of an oven", "hot air balloons at sunrise"]),
    ("The Roman empire built roads that connected its provinces across Europe.",
     ["smartphone on a desk", "kids playing video games", "sushi platter"]),
    ("Kubernetes restarts a container automatically when its health check fails.",
     ["horse galloping in a field", "wedding ceremony", "autumn leaves falling"]),
]


@pytest.mark.parametrize("narration,terms", ISSUE_EXAMPLES, ids=[n.split()[0] for n, _ in ISSUE_EXAMPLES])
def test_the_issues_off_topic_lists_are_read_as_unrelated_and_fail(model, narration, terms) -> None:
    import reeljudge

    verdict = reeljudge.judge_terms(narration, terms, judge="local", findability="off")
    assert verdict.passed is False  # 0.8 PASS with relevance 2 before issue 35
    if verdict.offline_answer == "off-topic":
        assert verdict.breakdown.relevance == 0 and "relevance 0/3 is under min_relevance 1" in verdict.reason()
    else:  # in the band where related and swapped lists both fall (issue 47): unsure, which fails offline
        assert verdict.offline_answer == "unsure" and "unsure: the offline judge cannot tell" in verdict.reason()


def test_the_reason_names_the_lists_and_each_terms_background_evidence(model) -> None:
    """Reasons a person can check: how many background narrations fit the whole list, and each term, better."""
    narration, terms = ISSUE_EXAMPLES[0]
    j = judge_terms_locally(narration, terms)
    reason = j.breakdown.criterion_reasons["relevance"]
    e = j.details["relevance_list"]
    assert e["list_rank"] > LocalJudgeOptions().max_list_rank and e["background_size"] > 300
    assert reason.startswith(f"about something else: {e['joined_rank']} of {e['background_size']} background narrations fit "
                             f"the whole list better than this one, {e['mean_rank']} fit its terms better on average")
    assert "→ 0/3" in reason
    for r in j.details["relevance"]:
        assert f"'{r['term']}' fits {r['background_rank']} other narrations better than this one" in reason
    cake = next(r for r in j.details["relevance"] if r["term"] == "birthday cake")
    assert cake["closer_narration"] and cake["closer_narration"] in reason


def _evidence(rank: float, second: int, visuals: int = 0, terms: int = 3) -> ListEvidence:
    """List-level evidence whose list rank is ``rank`` (joined and mean rank alike)."""
    return ListEvidence(int(rank), int(rank), second, 320, 0.6, visuals, terms)


def test_the_list_decides_about_something_else_not_each_term() -> None:
    """Issue 35, list level: a list above the list rank is 0 whatever its terms read by the topics; below it, a list
    with one term of clear evidence at most is loosely related; a software explainer's programming visuals keep
    their gloss."""
    o = LocalJudgeOptions()
    direct = [_reading(3), _reading(3), _reading(3)]
    assert list_level(direct, _evidence(o.max_list_rank, 0), o) == 3
    assert list_level(direct, _evidence(o.max_list_rank + 1, 0), o) == 0
    assert list_level(direct, _evidence(2, o.max_second_term_rank + 1), o) == 1
    assert list_level(direct, _evidence(2, o.max_second_term_rank), o) == 3
    assert list_level(direct, _evidence(90, 0, visuals=2, terms=3), o) == 3  # the gloss decides
    assert list_level(direct, _evidence(90, 0, visuals=1, terms=3), o) == 0
    assert _evidence(15, 0).rank == pytest.approx(15.0)
    assert ListEvidence(8, 35, 0, 320, 0.6).rank == pytest.approx((9 ** 0.6) * (36 ** 0.4) - 1)


def test_a_loose_list_with_one_term_of_evidence_says_so(model) -> None:
    """A related list (labelled 1, train split) whose second-best term fits many other narrations better is at most
    loosely related, and says so (the everyday topics alone read it as generally related)."""
    j = judge_terms_locally("Every spring, millions of people file their income tax returns.",
                            ["spring flowers in park", "crowd crossing street", "wall calendar"])
    e, o = j.details["relevance_list"], LocalJudgeOptions()
    assert e["list_rank"] <= o.max_list_rank and e["second_term_rank"] > o.max_second_term_rank
    assert j.breakdown.relevance == 1
    assert "at most one term has clear evidence" in j.breakdown.criterion_reasons["relevance"]


def test_a_software_explainers_programming_visuals_stay_related(model) -> None:
    """The spec's "developer coding" for a closures narration stays generally related, and the spec's 1.0 holds."""
    b = judge_terms_locally("You need to understand how closures work", ["developer coding", "computer screen code",
                                                                          "programmer thinking"]).breakdown
    assert b.relevance == 2
    b = judge_terms_locally("Redis stores everything in memory, making it blazingly fast",
                            ["server room", "computer RAM", "data center lights", "fast motion blur"]).breakdown
    assert (b.relevance, b.filmability, b.variety) == (3, 3, 1)


def test_the_generators_off_by_one_fails_every_narration(model) -> None:
    """The bug a new user planted: every narration gets the next one's terms (7 of 8 tests passed before issue 35).
    The on-topic lists of the first eight narrations of datasets/relevance_off_topic.yaml each pass for their own
    narration and fail for the previous one's."""
    import yaml

    import reeljudge
    from support.paths import ROOT

    rows = yaml.safe_load((ROOT / "datasets" / "relevance_off_topic.yaml").read_text())["narrations"][:8]
    shots = [(n["narration"], next(lst["terms"] for lst in n["lists"] if lst["kind"] == "on-topic")) for n in rows]
    for i, (narration, terms) in enumerate(shots):
        assert reeljudge.judge_terms(narration, terms, judge="local", findability="off").passed is True, narration
        swapped = shots[(i + 1) % len(shots)][1]
        assert reeljudge.judge_terms(narration, swapped, judge="local", findability="off").passed is False, narration


@pytest.fixture(scope="module")
def judged_test(model) -> list:
    """The off-topic section's test split judged by the benchmark's own code (once per module)."""
    from benchmarks.off_topic_set import build_cases
    from benchmarks.relevance_off_topic import judge_cases

    return judge_cases([c for c in build_cases() if c.split == "test"])


@pytest.fixture(scope="module")
def off_topic_test(judged_test) -> dict:
    """The off-topic section's figures on the test split."""
    from benchmarks.relevance_off_topic import list_auc, metrics, term_auc

    judged = judged_test
    return {**metrics(judged, "test"), "auc": term_auc(judged, "test")[0], "list_auc": list_auc(judged, "test")}


@pytest.mark.slow  # judges the benchmark's test split
def test_the_three_answers_meet_issue_47s_targets(judged_test) -> None:
    """The offline judge decides no off-topic list as passing; related lists pass or are deferred (>= 95 %: 70/73
    measured); the cascade defers about a fifth of the lists (98/464 measured)."""
    from benchmarks.relevance_off_topic import answer_metrics, answer_shortfalls

    m = answer_metrics(judged_test, "test")
    assert answer_shortfalls(m) == [] and m["off_topic_decided_pass"] == 0
    assert m["related_decided_pass"] + m["related_deferred"] >= 70 and m["deferred"] / m["lists"] <= 0.25
    assert m["off_answers"]["off-topic"] >= 280  # most off-topic lists are decided, not deferred (291/354 measured)


@pytest.mark.slow  # judges the benchmark's test split
def test_the_off_topic_figures_do_not_drop(off_topic_test) -> None:
    """Issue 35's measurement is a floor: at least 300 off-topic lists; 97 % read as 0 (before: 23 %), 10 pass (before:
    274 of 354); 61 of 73 related lists still pass (before: 70)."""
    m = off_topic_test
    assert m["off_topic"] >= 300 and m["swapped"] >= 300
    assert m["off_topic_zero"] / m["off_topic"] >= 0.95  # the target, met: 344/354
    assert m["off_topic_pass"] <= 10 and m["related_pass"] >= 61 and m["near_related"] >= 10
    assert m["auc"] >= 0.94 and m["list_auc"] >= 0.97  # 0.948 and 0.979 measured


@pytest.mark.slow  # judges the benchmark's test split
@pytest.mark.xfail(strict=True, reason="issue 35's targets are not all met with the shipped MiniLM: off-topic passes 10/354 "
                                       "(target <= 1 %), related lists passing 61/73 (target >= 95 %): docs/decisions.md")
def test_the_off_topic_targets_hold(off_topic_test) -> None:
    from benchmarks.relevance_off_topic import shortfalls

    assert shortfalls(off_topic_test) == []
