"""A model rater in the A/B report: every number checked against values computed by hand.

Five samples (systems x, y; x is "a" as the first name), people ann and bob on all, cat as the
third rater on s3; the model on all five, asked in both orders, inconsistent on s4.

    sample  family          ann   bob   cat   model            humans' majority
    s1      text-to-video   x     x           x                x
    s2      text-to-video   y     y           x  (all dims y-favoured except temporal: y)
    s3      text-to-video   x     y     x     y                x
    s4      text-to-video   tie   tie         tie (inconsistent) tie
    s5      image-to-video  y     x           y                none (1–1)
"""

from __future__ import annotations

import pytest

from reeljudge.ab.analysis.model_raters import model_raters
from reeljudge.ab.store.protocol import load_protocol
from reeljudge.ab.store.records import as_judgements, build_record
from reeljudge.ab.analysis.report import ReportOptions, build_report
from reeljudge.ab.analysis.report_html import render
from reeljudge.ab.store.samples import make_sample

P = load_protocol("ab-v1")
DIMS = ("prompt_adherence", "temporal_consistency", "identity_consistency", "motion_physics")
FAMILIES = ["text-to-video"] * 4 + ["image-to-video"]
SAMPLES = [make_sample(f, f"prompt {i + 1}", ("x", f"{2 * i + 1:064x}"), ("y", f"{2 * i + 2:064x}")) for i,
           f in enumerate(FAMILIES)]
KW = {"n_resamples": 200, "seed": 7}


def record(n: int, rater: str, winner: str, tags: tuple[str, ...], *, model: bool = False, temporal: str | None = None,
           inconsistent: bool = False):
    """``winner`` x / y / tie; ratings 5 vs 2 for the winner (4 and 4 on a tie); ``temporal`` overrides that dimension."""
    sample = SAMPLES[n - 1]
    def rate(favour: str) -> dict[str, dict[str, float]]:
        return {s: {d: 4 for d in DIMS} for s in "AB"} if favour == "tie" else {
            "A": {d: 5 if favour == "x" else 2 for d in DIMS}, "B": {d: 5 if favour == "y" else 2 for d in DIMS}}
    ratings = rate(winner)
    if temporal:
        for side, r in rate(temporal).items():
            ratings[side]["temporal_consistency"] = r["temporal_consistency"]
    if model:  # a model's mean over two orders: half points
        ratings = {s: {d: v - 0.5 if v == 5 else v for d, v in r.items()} for s, r in ratings.items()}
    form = {"winner": {"x": "A", "y": "B"}.get(winner, "tie"), "primary_tag": tags[0],
            "secondary_tags": list(tags[1:]), "ratings": ratings}
    return build_record(
        sample_id=sample.sample_id, family=sample.family, protocol="ab-v1", shown={"A": "x", "B": "y"},
        clips={"A": sample.clip_a, "B": sample.clip_b}, form=form, rater_id=rater, rater_kind="model" if model else "human",
        model="gemini-test" if model else None, watch={"full_plays": {"A": 2, "B": 2}, "log": []},
        extra={"inconsistent": inconsistent, "judge": {"orders_asked": 2}} if model else None,
    )


RECORDS = [
    record(1, "ann", "x", ("flicker",)), record(1, "bob", "x", ("flicker",)),
    record(2, "ann", "y", ("artifacts",)), record(2, "bob", "y", ("flicker",)),
    record(3, "ann", "x", ("missed_constraint",)), record(3, "bob", "y", ("missed_constraint",)),
    record(4, "ann", "tie", ("tie_both_good",)), record(4, "bob", "tie", ("tie_both_good",)),
    record(5, "ann", "y", ("flicker",)), record(5, "bob", "x", ("physics_break",)),
    record(3, "cat", "x", ("scene_reset",)),
    record(1, "gemini-test", "x", ("flicker",), model=True),
    record(2, "gemini-test", "x", ("flicker",), model=True, temporal="y"),
    record(3, "gemini-test", "y", ("missed_constraint",), model=True),
    record(4, "gemini-test", "tie", ("tie_both_flawed",), model=True, inconsistent=True),
    record(5, "gemini-test", "y", ("flicker",), model=True),
]


@pytest.fixture(scope="module")
def section():
    (m,) = model_raters(as_judgements(RECORDS), SAMPLES, P, 2, KW)
    return m


def test_winner_against_the_human_majority_by_hand(section):
    vs = section["winner"]["all"]["vs_majority"]
    # majorities s1 x, s2 y, s3 x (2 of 3), s4 tie; s5 has none. Model: x ✓, x ✗, y ✗, tie ✓
    assert (vs["units"], vs["agree"], vs["no_majority"]) == (4, 2, 1) and vs["rate"]["estimate"] == 0.5
    # pairs (a,a) (a,b) (b,a) (tie,tie): po = 1/2, pe = (2·2 + 1·1 + 1·1)/16 = 3/8, κ = (1/2 − 3/8)/(5/8) = 0.2
    assert vs["kappa"] == pytest.approx(0.2)
    assert (vs["without_ties"]["agree"], vs["without_ties"]["pairs"]) == (1, 3)
    assert (section["units"], section["agree"]) == (4, 2)  # the summary kept from before


def test_model_human_pairs_beside_the_human_ceiling(section):
    w = section["winner"]["all"]
    # design records (ann, bob): s1 2/2, s2 0/2, s3 1/2, s4 2/2, s5 1/2 → 6/10
    assert (w["judge_human_pairs"]["agree"], w["judge_human_pairs"]["pairs"]) == (6, 10)
    # ann–bob: s1, s2, s4 agree; s3, s5 not → 3/5
    assert (w["human_human_pairs"]["agree"], w["human_human_pairs"]["pairs"]) == (3, 5)
    # Fleiss: category shares a .4, b .4, tie .2 → Pe .36; P̄ = 3/5 → κ = .24/.64
    assert w["human_fleiss_kappa"]["estimate"] == pytest.approx(0.375)


def test_per_family(section):
    by_family = section["winner"]["by_family"]
    assert by_family["text-to-video"]["vs_majority"]["units"] == 4 and by_family["text-to-video"]["vs_majority"]["agree"] == 2
    assert (by_family["image-to-video"]["vs_majority"]["units"] == 0
            and by_family["image-to-video"]["vs_majority"]["no_majority"] == 1)
    assert by_family["image-to-video"]["human_human_pairs"]["agree"] == 0


def test_per_dimension_uses_the_preference_the_ratings_show(section):
    dims = section["dimensions"]
    assert set(dims) == set(DIMS)
    # prompt adherence follows the winners: 2 of 4, as above
    assert dims["prompt_adherence"]["vs_majority"]["agree"] == 2
    # temporal: the model rates y higher on s2 (the humans' y) → 3 of 4
    temporal = dims["temporal_consistency"]["vs_majority"]
    assert (temporal["units"], temporal["agree"]) == (4, 3)


def test_per_tag(section):
    flicker = next(t for t in section["tags"] if t["tag"] == "flicker")
    # presence majorities: s1 yes, s3 no, s4 no (s2, s5 split 1–1); the model agrees on all three
    assert (flicker["vs_majority"]["units"],
            flicker["vs_majority"]["agree"]) == (3, 3) and flicker["vs_majority"]["kappa"] == pytest.approx(1.0)
    assert (flicker["judge_human_pairs"]["agree"], flicker["judge_human_pairs"]["pairs"]) == (8, 10)
    assert (flicker["human_human_pairs"]["agree"], flicker["human_human_pairs"]["pairs"]) == (3, 5)
    # specific agreement: model–human both 4, one only 2 → 8/10; ann–bob both 1, one only 2 → 2/4
    assert flicker["specific_model_human"] == pytest.approx(0.8) and flicker["specific_human_human"] == pytest.approx(0.5)
    assert flicker["used_by_model"] == 3
    assert ({t["tag"] for t in section["tags"]} >= {"artifacts", "missed_constraint", "scene_reset",
                                                    "tie_both_flawed", "physics_break"})


def test_position_consistency_and_unanimous_disagreements(section):
    assert section["position"] == {"both_orders": 5, "consistent": 4, "rate": 0.8, "one_order": 0}
    (row,) = section["unanimous_disagreements"]
    assert (row["sample_id"], row["humans"], row["model"],
            row["n_humans"], row["severity"]) == (SAMPLES[1].sample_id, "y", "x", 2, 2)
    assert row["human_tags"] == ["artifacts", "flicker"] and row["model_tags"] == ["flicker"]


def test_the_report_and_its_page_show_the_model_beside_the_people():
    report = build_report(RECORDS, SAMPLES, P, ReportOptions(n_resamples=100))
    # the model never enters the human design
    assert report["counts"]["model_raters"] == 1 and report["design"]["records_used"] == 10
    (m,) = report["models"]
    assert m["rater"] == "gemini-test" and m["winner"]["all"]["vs_majority"]["agree"] == 2
    page = render(report, lambda sha: f"clips/{sha}.mp4")
    for text in ("Model raters against the people", "human–human pairs (ceiling)", "winner, all families",
                 "winner, image-to-video",
                 "Temporal consistency (which clip rated higher)", "tag: Flicker / temporal jitter",
                 "4 of 5 pairs judged in both orders",
                 "Where the model disagrees with unanimous people", f"clips/{SAMPLES[1].clip_a}.mp4", "60 %"):
        assert text in page, text


def test_half_point_ratings_only_from_model_raters():
    from reeljudge.ab.store.records import RecordError

    assert RECORDS[-1]["ratings"]["y"]["prompt_adherence"] == 4.5  # a model's mean over two orders is stored
    for kind, value, ok in (("model", 3.5, True), ("model", 3.25, False), ("human", 3.5, False), ("human", 3, True)):
        sample = SAMPLES[0]
        form = {"winner": "A", "primary_tag": "flicker", "secondary_tags": [],
                "ratings": {"A": {d: 5 for d in DIMS}, "B": {**{d: 2 for d in DIMS}, "motion_physics": value}}}
        make = lambda: build_record(sample_id=sample.sample_id, family=sample.family, protocol="ab-v1",
                                    shown={"A": "x", "B": "y"},  # noqa: E731
                                    clips={"A": sample.clip_a, "B": sample.clip_b}, form=form, rater_id="r", rater_kind=kind,
                                    watch={"full_plays": {"A": 2, "B": 2}, "log": []})
        if ok:
            make()
        else:
            with pytest.raises(RecordError, match="motion_physics"):
                make()
