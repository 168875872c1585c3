"""Offline relevance (issue 20): scenes of the narration's subject are directly related, terms about
another topic are not, mostly-abstract lists fail, and the held-out targets hold."""

from __future__ import annotations

import pytest

from reeljudge.filmability.judge_local import LocalJudgeOptions, judge_terms_locally
from reeljudge.filmability.score_table import score_breakdown
from reeljudge.filmability.term_reading import term_concreteness

pytestmark = pytest.mark.usefixtures("offline_judge_data")  # judges offline: norms and bank vectors made once per run

SAVING = "Putting a little money aside every week adds up faster than you think."
REMOTE = "Working from home means more video calls and fewer commutes."
ELECTRIC = "Electric cars are replacing petrol cars in cities."
AUTUMN = "Autumn turns the forest red and gold."


def _levels(narration: str, terms: list[str]) -> dict[str, int]:
    """Each term's relevance level as the judge reads it."""
    details = judge_terms_locally(narration, terms).details
    return {r["term"]: r["level"] for r in details["relevance"]}


def test_scenes_of_saving_money_are_directly_related(model) -> None:
    terms = ["coins in a jar", "calculator and bills", "piggy bank", "person counting cash"]
    levels = _levels(SAVING, terms)
    assert levels["calculator and bills"] == 3 and levels["person counting cash"] == 3
    # issue 35 decides "about something else" for the list, not per term: "coins in a jar" fits the background's mint
    # narration better than this one (a term-level rule read it as 0), yet the list as a whole has clear evidence
    assert levels["coins in a jar"] >= 2
    b = judge_terms_locally(SAVING, terms).breakdown
    assert (b.relevance, b.filmability, b.variety) == (3, 3, 1)
    assert score_breakdown(b).score == 1.0


def test_a_video_call_is_directly_related_to_remote_work(model) -> None:
    assert _levels(REMOTE, ["video call on laptop", "home office desk"])["video call on laptop"] == 3


def test_mostly_abstract_list_fails_and_green_transport_is_not_filmable(model) -> None:
    terms = ["clean mobility", "electric car charging", "green transport", "sustainability"]
    b = judge_terms_locally(ELECTRIC, terms).breakdown
    assert b.filmability == 0 and "green transport" in b.unfilmable_terms
    assert score_breakdown(b).score < 0.8
    assert "'green transport' 3.50" in b.criterion_reasons["filmability"]


def test_a_mostly_abstract_economic_list_fails(model) -> None:
    narration = "Rising interest rates make a first mortgage harder to afford."
    terms = ["housing market", "home equity", "property ladder", "house keys"]
    b = judge_terms_locally(narration, terms).breakdown
    assert b.unfilmable_terms == ["housing market", "home equity", "property ladder"]  # was 0.8 with "housing market" filmable
    assert b.relevance <= 1 and score_breakdown(b).score < 0.8
    assert "names the economic market" in b.criterion_reasons["filmability"]


def test_a_rating_at_the_midpoint_is_not_filmable() -> None:
    reading = term_concreteness("transport")
    assert reading.score == 3.5 and reading.status == "abstract"
    assert term_concreteness("public transport").status == "filmable"  # rated 4.40 as a phrase


def test_a_shot_word_from_a_place_is_read_by_the_place() -> None:
    reading = term_concreteness("view from airplane window")
    assert reading.status == "filmable" and reading.anchor in ("airplane window", "window", "airplane")
    assert reading.form != "compound"


def test_a_term_about_another_topic_is_only_loosely_related(model) -> None:
    levels = _levels(AUTUMN, ["red maple leaves", "snowy mountains"])
    assert levels["red maple leaves"] == 3
    assert levels["snowy mountains"] < 3


def test_the_reason_says_per_term_why_it_is_related_or_not(model) -> None:
    b = judge_terms_locally(AUTUMN, ["red maple leaves", "snowy mountains", "change"]).breakdown
    reason = b.criterion_reasons["relevance"]
    assert "'red maple leaves' direct (the narration fits it about as well as any other topic:" in reason
    assert "sentence " in reason and "→ match " in reason  # both views of the match are named
    assert "'snowy mountains'" in reason and "other topic 'mountains'" in reason
    assert "'change'" in reason and "not a visual" in reason or "'change' none" in reason or "'change' loose" in reason


def test_a_term_riding_on_a_side_word_is_not_direct(model) -> None:
    """The match is the best chunk and the whole sentence together, so a word of the sentence alone weighs less."""
    flu = "A yearly flu shot protects older people through the winter."
    details = {r["term"]: r for r in judge_terms_locally(flu, ["nurse giving injection", "snowy street"]).details["relevance"]}
    snowy, nurse = details["snowy street"], details["nurse giving injection"]
    assert snowy["best_chunk"] == "winter" and snowy["sentence_similarity"] < snowy["similarity"]
    assert abs(snowy["match"] - (snowy["similarity"] + snowy["sentence_similarity"]) / 2) < 1e-3
    # the sentence view costs the side-word term far more than the scene of the subject
    assert snowy["similarity"] - snowy["match"] > 2 * (nurse["similarity"] - nurse["match"])
    assert nurse["level"] == 3


def test_a_term_that_fits_one_word_but_not_the_sentence_is_not_direct(model) -> None:
    """"egg carton" fits the "eggs" of a salmon narration better than any other topic, but the whole
    sentence is no closer to it than everyday topics are: generally related, and the reason says so."""
    salmon = "Salmon swim upstream every autumn to lay their eggs."
    details = {r["term"]: r
               for r in judge_terms_locally(salmon, ["salmon leaping up a waterfall", "egg carton"]).details["relevance"]}
    egg, leap = details["egg carton"], details["salmon leaping up a waterfall"]
    assert egg["best_chunk"] == "eggs" and egg["margin"] >= LocalJudgeOptions().direct_margin  # the margin alone says direct
    assert egg["sentence_similarity"] - egg["topics_mean"] < LocalJudgeOptions().direct_over_background
    assert egg["level"] == 2 and "fits one word of the narration, not what it says: 'eggs'" in egg["why"]
    assert leap["level"] == 3 and leap["sentence_similarity"] - leap["topics_mean"] >= LocalJudgeOptions().direct_over_background


def test_unrelated_filmable_terms_stay_unrelated(model) -> None:
    b = judge_terms_locally("Add fresh basil just before serving the pasta", ["server room", "computer RAM", "typing"]).breakdown
    assert b.relevance == 0
    assert "'computer RAM' none (unrelated" in b.criterion_reasons["relevance"]


@pytest.fixture(scope="module")
def held_out(model) -> dict:
    """The benchmark's figures for the held-out split, computed once by the benchmark's own code."""
    from benchmarks.relevance import judge_lists, load_lists, split_metrics

    return split_metrics(judge_lists([i for i in load_lists() if i["split"] == "test"]))["test"]


@pytest.mark.slow  # judges a benchmark's lists
@pytest.mark.xfail(strict=True, reason="issue 20 held-out targets not all met yet (docs/decisions.md, issues 20 and 35): "
                                       "relevance exact 34/47 (35 before issue 35's background evidence)")
def test_held_out_targets_hold(held_out) -> None:
    """Quality gate of issue 20 on the held-out split (not a timing); strict xfail turns red once it passes."""
    from benchmarks.relevance import held_out_shortfalls

    assert held_out_shortfalls({"test": held_out}) == []


@pytest.mark.slow  # judges a benchmark's lists
def test_held_out_figures_do_not_drop(held_out) -> None:
    """The held-out figures of the last measurement are a floor (pass/fail and pair order meet their targets)."""
    share = {k: held_out[k][0] / held_out[k][1] for k in ("pass_fail", "pair_order", "relevance_exact", "relevance_within_one")}
    assert share["pass_fail"] >= 0.95 and share["pair_order"] >= 0.90
    # issue 35 (a list needs background evidence) costs a little exactness: 35/47 before, 34/47 after (the list-level
    # rule; 31/47 with the first, per-term rule: docs/decisions.md); pair order held at 46/49
    assert held_out["pair_order"][0] >= 46 and held_out["relevance_exact"][0] >= 34
    assert share["relevance_within_one"] >= 0.95  # 45/47 (47/47 before issue 35)
    assert len(held_out["abstract_at_pass"]) <= 1


SECOND_AUTHOR = "datasets/relevance_second_author.yaml"
#: the offline judge's relevance agreement with the second author's labels of the train lists (issue 35's measurement)
JUDGE_VS_AUTHOR_2 = 97


@pytest.fixture(scope="module")
def second_author(model) -> dict:
    """The benchmark's figures on the second author's own lists, per split, by the benchmark's own code."""
    from benchmarks.relevance import ROOT, judge_lists, load_lists, split_metrics

    return split_metrics(judge_lists(load_lists(ROOT / SECOND_AUTHOR)))


@pytest.mark.slow  # judges a benchmark's lists
def test_second_author_figures_do_not_drop(second_author) -> None:
    """Lists the judge was never tuned on, by another author: today's figures are a floor (far below the targets)."""
    assert set(second_author) == {"second-train", "second-test"}
    # issue 35 (background evidence, list level): exactness fell (second-train 22 → 21, second-test 25 → 21: loose lists
    # read as 0), pass/fail held on second-test (35) and fell on second-train (37 → 35), pair order rose (34 → 35,
    # 39 → 41); docs/decisions.md
    floors = {"second-train": {"relevance_exact": 21, "pass_fail": 35, "pair_order": 35},
              "second-test": {"relevance_exact": 21, "pass_fail": 35, "pair_order": 41}}
    for split, floor in floors.items():
        for name, least in floor.items():
            assert second_author[split][name][0] >= least, (split, name, second_author[split][name])
        assert len(second_author[split]["abstract_at_pass"]) <= 3


def test_the_second_authors_labels_cover_every_train_list_once() -> None:
    from benchmarks.relevance import load_lists
    from benchmarks.relevance_labellers import load_second
    from reeljudge.filmability.score_table import Breakdown, score_breakdown

    second = load_second()
    train = {f"{i['narration_id']}/{i['id']}" for i in load_lists() if i["split"] == "train"}
    assert set(second) == train  # no held-out list was handed out
    for key, lab in second.items():
        assert score_breakdown(Breakdown(lab["relevance"], lab["filmability"], lab["variety"])).score == lab["score"], key


@pytest.mark.slow  # judges a benchmark's lists
def test_the_labeller_benchmark_reads_both_authors_and_the_judge(model) -> None:
    from benchmarks.relevance_labellers import pair_figures, raters

    by = raters()
    assert {len(v) for v in by.values()} == {138}
    people = pair_figures(by["author 1"], by["author 2"], ("author 1", "author 2"))
    assert people["relevance_exact"] == (129, 138) and people["score_band"] == (138, 138)  # as recorded
    assert 0.85 < people["relevance_kappa"] < 0.95 and 0.9 < people["relevance_alpha_ordinal"] <= 1.0
    judge = pair_figures(by["offline judge"], by["author 2"], ("offline judge", "author 2"))
    # the judge against the author it was not tuned on: 110/138 before issue 27's cap (a list holding a term read as
    # unrelated is at most 2/3), 108/138 with it (hist-moon/concrete and sci-dna/concrete, which both authors rate 3);
    # issue 35's background evidence reads loose lists as unrelated: see the measured floor in docs/decisions.md
    assert judge["relevance_exact"][0] >= JUDGE_VS_AUTHOR_2
