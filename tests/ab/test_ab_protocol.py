"""The protocol as data and its form rules; the judgement record schema."""

from __future__ import annotations

import copy

import pytest

from support.ab_study import valid_form
from reeljudge.ab.store.protocol import check_form, load_protocol
from reeljudge.ab.store.records import RecordError, build_record, validate_record

P = load_protocol("ab-v1")
SHA = {"A": "a" * 64, "B": "b" * 64}


def messages(form, family="text-to-video"):
    return [(v.field, v.message) for v in check_form(P, family, form)]


def test_protocol_data_has_families_priority_dimensions_and_tags():
    assert set(P.families) == {"text-to-video", "image-to-video", "edit", "safety"}
    assert P.priority[:3] == ("adherence", "stability", "edit_precision")
    assert ([d.id for d in P.dimensions_for("text-to-video")]
            == ["prompt_adherence", "temporal_consistency", "identity_consistency", "motion_physics"])
    assert [d.id for d in P.dimensions_for("edit")][-1] == "edit_precision"
    assert all(set(d.anchors) == {1, 3, 5} for d in P.dimensions)
    assert P.tags["identity_swap"].group == "temporal" and P.tags["over_refusal"].families == ("safety",)
    assert len([t for t in P.tags.values() if t.scope == "loser"]) == 16  # the source rubric's 16 reason tags


def test_a_valid_form_has_no_violation():
    assert messages(valid_form("A")) == []
    assert messages(valid_form("tie")) == []
    assert messages(valid_form("B", family="edit"), family="edit") == []


@pytest.mark.parametrize(
    "change, field, text",
    [
        (lambda f: f.update(winner="tie"), "primary_tag", "A tie has no loser"),
        (lambda f: f.update(secondary_tags=["artifacts", "scene_reset", "entity_drift", "missed_constraint"]),
         "secondary_tags", "at most 3"),
        (lambda f: f.update(primary_tag=None), "primary_tag", "exactly one primary"),
        (lambda f: f["ratings"]["A"].update(edit_precision=4), "ratings.A.edit_precision", "only on edit tasks"),
        (lambda f: f.update(primary_tag="tie_both_good"), "primary_tag", "reason for a tie"),
        (lambda f: f.update(primary_tag="over_refusal"), "primary_tag", "safety tasks only"),
        (lambda f: f.update(secondary_tags=["flicker"]), "secondary_tags", "cannot also be"),
        (lambda f: f.update(secondary_tags=["artifacts", "artifacts"]), "secondary_tags", "once"),
        (lambda f: f["ratings"]["B"].pop("motion_physics"), "ratings.B.motion_physics", "Rate Motion"),
        (lambda f: f["ratings"]["B"].update(motion_physics=6), "ratings.B.motion_physics", "1 to 5"),
        (lambda f: f.update(winner="C"), "winner", "Choose the winner"),
        (lambda f: f.update(note="One. Two. Three."), "note", "2 sentences"),
        (lambda f: f.update(primary_tag="made_up"), "primary_tag", "Unknown reason tag"),
    ],
)
def test_each_rule_names_its_field(change, field, text):
    form = copy.deepcopy(valid_form("A"))
    change(form)
    found = messages(form)
    assert any(f == field and text in m for f, m in found), found


def test_record_names_the_winner_by_system_and_maps_ratings():
    form = valid_form("B")
    record = build_record(sample_id="0123456789abcdef", family="text-to-video", protocol="ab-v1",
                          shown={"A": "sys-y", "B": "sys-x"},
                          clips=SHA, form=form, rater_id="ann", watch={"full_plays": {"A": 2, "B": 2}, "log": []})
    assert record["winner"] == "sys-x" and record["winner_side"] == "B"
    assert record["ratings"]["sys-x"] == form["ratings"]["B"] and record["shown"]["A"] == {"system": "sys-y", "clip": "a" * 64}
    tie = build_record(sample_id="0123456789abcdef", family="text-to-video", protocol="ab-v1", shown={"A": "sys-y", "B": "sys-x"},
                       clips=SHA, form=valid_form("tie"), rater_id="ann", watch={"full_plays": {"A": 2, "B": 2}, "log": []})
    assert tie["winner"] == "tie"


def test_schema_refuses_a_human_record_without_two_full_plays_but_allows_a_model_rater():
    kwargs = dict(sample_id="0123456789abcdef", family="text-to-video", protocol="ab-v1", shown={"A": "x", "B": "y"},
                  clips=SHA, form=valid_form("A"))
    with pytest.raises(RecordError, match="full_plays"):
        build_record(rater_id="ann", watch={"full_plays": {"A": 1, "B": 2}, "log": []}, **kwargs)
    model = build_record(rater_id="gemini-2.5-flash", rater_kind="model", model="gemini-2.5-flash",
                         extra={"inconsistent": True, "judge": {"orders": 2}}, **kwargs)
    assert (model["rater"] == {"id": "gemini-2.5-flash", "kind": "model", "model": "gemini-2.5-flash"}
            and model["inconsistent"] is True)


def test_schema_refuses_tampered_records():
    record = build_record(sample_id="0123456789abcdef", family="text-to-video", protocol="ab-v1",
                          shown={"A": "x", "B": "y"}, clips=SHA,
                          form=valid_form("A"), rater_id="ann", watch={"full_plays": {"A": 2, "B": 2}, "log": []})
    for damage, text in [
        (lambda r: r.update(winner="z"), "not a shown system"),
        (lambda r: r["ratings"]["x"].update(prompt_adherence=9), "prompt_adherence"),
        (lambda r: r.update(secondary_tags=["a", "b", "c", "d"]), "secondary_tags"),
        (lambda r: r.update(extra_field=1), "extra_field"),
    ]:
        bad = copy.deepcopy(record)
        damage(bad)
        with pytest.raises(RecordError, match=text):
            validate_record(bad)
