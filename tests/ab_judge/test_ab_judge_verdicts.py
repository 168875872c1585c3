"""Verdicts that hold together: the A/B judge refuses a self-contradicting reply (fed back once, then
not judged), repairs what has one reading, and the rating server's report lists the same records
as contradicting that the judge's reader refuses (one rule: ``reeljudge.ab.analysis.contradiction``).

Replies go through the real google-genai client to the fake Gemini server.
"""

from __future__ import annotations

import json
import random

import pytest

from reeljudge.ab.analysis import analysis
from reeljudge.ab.store.protocol import load_protocol
from reeljudge.ab.store.records import as_judgements, build_record
from reeljudge.assertions.ab_judge import get_assert
from reeljudge.ab_judge.reading import plain_winner
from reeljudge.ab_judge.request import SELF_CONTRADICTING, order_parser
from reeljudge.gemini.replies import ReplyInvalid
from reeljudge.media.refs import sha256_file
from support.ab_judge_scripts import on_order, reply, verdict_reply
from support.paths import ROOT

NEW = str(ROOT / "datasets" / "clips" / "gen_clean.mp4")
REFERENCE = str(ROOT / "datasets" / "clips" / "gen_flicker.mp4")
PROMPT = "A red ball rolls past a textured wall while the camera pans"
DIMS = ("prompt_adherence", "temporal_consistency", "identity_consistency", "motion_physics")
P = load_protocol("ab-v1")


def rated(adherence: tuple[int, int], temporal: tuple[int, int] = (3, 3), identity: tuple[int, int] = (3, 3),
          motion: tuple[int, int] = (3, 3)) -> dict[str, dict[str, int]]:
    """Ratings per side from (A, B) pairs per dimension."""
    pairs = dict(zip(DIMS, (adherence, temporal, identity, motion)))
    return {side: {d: pair[i] for d, pair in pairs.items()} for i, side in enumerate("AB")}


def grade(**config):
    context = {"vars": {"prompt": PROMPT, "reference": REFERENCE}, "config": config, "test": {"description": "t"},
               "providerResponse": {"output": NEW, "metadata": {"clip_path": NEW}}}
    return get_assert(NEW, context)


def new_first() -> str:
    return sha256_file(NEW)


def reference_first() -> str:
    return sha256_file(REFERENCE)


def answer_second_order_for_new(fake) -> None:
    """Order 2 (A = reference, B = new): a consistent verdict for the new clip."""
    on_order(fake, PROMPT, reference_first(), reply(verdict_reply("B", "flicker")))


# ---- contradictions: fed back once, then the order is not judged --------------------------------

CONTRADICTING = {
    # the issue's case: the winner rated lower on every dimension
    "winner_worse_everywhere": ("A", "flicker", rated((1, 5), (2, 5), (2, 4), (2, 4))),
    # adherence decides (first priority), however much better the winner is after it
    "loser_better_on_adherence_by_one": ("A", "flicker", rated((3, 4), (5, 1), (5, 1), (5, 1))),
    # adherence equal: stability (temporal + identity summed) decides
    "loser_better_on_stability": ("A", "flicker", rated((4, 4), (3, 4), (4, 4), (5, 1))),
    # a tie ("indistinguishable") whose ratings tell the clips apart
    "tie_rated_apart": ("tie", "tie_both_good", rated((4, 4), (4, 3))),
}
KINDS = {"winner_worse_everywhere": "loser_rated_higher", "loser_better_on_adherence_by_one": "loser_rated_higher",
         "loser_better_on_stability": "loser_rated_higher", "tie_rated_apart": "tie_rated_apart"}


@pytest.mark.parametrize("case", sorted(CONTRADICTING))
def test_a_contradiction_that_stands_is_not_judged(gemini_env, case):
    winner, tag, ratings = CONTRADICTING[case]
    on_order(gemini_env, PROMPT, new_first(), reply(verdict_reply(winner, tag, ratings=ratings)))
    answer_second_order_for_new(gemini_env)
    result = grade()
    assert result["pass"] is False and result["score"] == 0.0 and result["metadata"]["judged"] is False
    assert result["metadata"]["error_kind"] == SELF_CONTRADICTING
    assert "order 1 of 2 (A = new, B = reference) did not judge" in result["reason"]
    assert f"contradicts itself ({KINDS[case]})" in result["reason"] and "could not be used twice" in result["reason"]
    calls = gemini_env.calls()
    assert len(calls) == 2  # asked, fed back once, refused again; order 2 never asked
    fed_back = calls[1].text
    assert "could not be used" in fed_back and f"contradicts itself ({KINDS[case]})" in fed_back
    if KINDS[case] == "tie_rated_apart":
        assert "the verdict is a tie but its ratings tell the clips apart" in fed_back
    else:
        assert "the winner is A but the ratings favour B" in fed_back


def test_the_issue_example_is_named_precisely(gemini_env):
    winner, tag, ratings = CONTRADICTING["winner_worse_everywhere"]
    on_order(gemini_env, PROMPT, new_first(), reply(verdict_reply(winner, tag, ratings=ratings)))
    result = grade()
    assert "Prompt adherence rated 5 for B against 1 for A" in result["reason"]


@pytest.mark.parametrize("case", sorted(CONTRADICTING))
def test_a_contradiction_corrected_after_feedback_is_judged(gemini_env, case):
    winner, tag, ratings = CONTRADICTING[case]
    corrected = verdict_reply("A", "flicker")
    on_order(gemini_env, PROMPT, new_first(), reply(verdict_reply(winner, tag, ratings=ratings)), reply(corrected))
    answer_second_order_for_new(gemini_env)
    result = grade()
    assert result["pass"] is True and result["metadata"]["winner"] == "new"
    first = result["metadata"]["orders"][0]["call"]
    assert first["attempts"] == 2 and f"contradicts itself ({KINDS[case]})" in first["fed_back_error"]
    assert len(gemini_env.calls()) == 3


@pytest.mark.parametrize("ratings, winner", [
    (rated((5, 4), (1, 5), (1, 5), (1, 5)), "A"),  # better on adherence, worse on everything after it: agrees by priority
    (rated((4, 4), (5, 4), (3, 4), (1, 5)), "B"),  # adherence equal, stability 8 against 8: realism decides, for B
])
def test_ratings_are_read_in_priority_order(gemini_env, ratings, winner):
    on_order(gemini_env, PROMPT, new_first(), reply(verdict_reply(winner, "flicker", ratings=ratings)))
    on_order(gemini_env, PROMPT, reference_first(), reply(verdict_reply(winner, "flicker", ratings=ratings)))
    result = grade()
    assert result["metadata"]["judged"] is True and len(gemini_env.calls()) == 2  # no feedback: no contradiction
    assert all("fed_back_error" not in o["call"] for o in result["metadata"]["orders"])


def test_a_tie_rated_equal_is_no_contradiction(gemini_env):
    on_order(gemini_env, PROMPT, new_first(), reply(verdict_reply("tie", "tie_both_good")))
    on_order(gemini_env, PROMPT, reference_first(), reply(verdict_reply("tie", "tie_both_good")))
    result = grade()
    assert result["pass"] is True and result["metadata"]["winner"] == "tie" and len(gemini_env.calls()) == 2


# ---- repairs: what has one reading ---------------------------------------------------------------

A_FORMS = ["a", "Clip A", "clip a", "clip_a", "CLIP-A", "clipA", "video A", "**A**", "(A)", "`a`", "A.", "Clip A!"]
TIE_FORMS = ["TIE", "Tie.", "a tie", "**tie**"]
REFUSED_FORMS = ["A or B", "A/B", "both", "AB", "clip 1", "A, barely", "neither", "left", "", "winner: A and B", "Clip C"]


def test_the_plain_forms_and_only_they_are_read():
    assert {f: plain_winner(f) for f in A_FORMS} == dict.fromkeys(A_FORMS, "A")
    assert plain_winner("clip_b") == "B" and {plain_winner(f) for f in TIE_FORMS} == {"tie"}
    assert {f: plain_winner(f) for f in REFUSED_FORMS} == dict.fromkeys(REFUSED_FORMS)
    assert plain_winner(None) is None and plain_winner(1) is None


def test_the_side_letter_goes_through_the_one_letter_reader_and_reads_as_before():
    """Every combination of wrapping, prefix, separator and letter reads as the A/B judge's own regex read it."""
    import itertools
    import re

    old_side = re.compile(r"(?:(?:clip|video)[\s_-]?)?([ab])", re.IGNORECASE)

    def old(raw: str) -> str | None:  # the second reader this replaced, as it was
        text = raw.strip(" \t\n*`'\"")
        if text[-1:] in ".!":
            text = text[:-1].strip(" \t\n*`'\"")
        brackets = {"(": ")", "[": "]", "{": "}", "<": ">"}
        if text[:1] in brackets and text.endswith(brackets[text[:1]]):
            text = text[1:-1].strip(" \t\n*`'\"")
        side = old_side.fullmatch(text)
        return side.group(1).upper() if side else ("tie" if re.fullmatch(r"(?:a\s+)?tie", text, re.IGNORECASE) else None)

    forms = ["".join(p) for p in itertools.product(["", "clip", "Video", "cli"], ["", " ", "_", "-", "  ", "/"],
                                                   ["a", "B", "c", "ab", "1", "", "tie", ")"], ["", ".", "!", "*"])]
    forms += [f"({f})" for f in forms] + [f"[{f}]" for f in forms]
    assert len(forms) == 2304
    assert {f: plain_winner(f) for f in forms} == {f: old(f) for f in forms}


@pytest.mark.parametrize("form", A_FORMS)
def test_a_winner_in_a_plain_form_is_read_without_feedback(gemini_env, form):
    on_order(gemini_env, PROMPT, new_first(), reply({**verdict_reply("A", "flicker"), "winner": form}))
    answer_second_order_for_new(gemini_env)
    result = grade()
    assert result["pass"] is True and result["metadata"]["winner"] == "new" and len(gemini_env.calls()) == 2
    order = result["metadata"]["orders"][0]
    assert order["winner_side"] == "A" and order["repaired"] == [f"winner {json.dumps(form)} read as \"A\""]
    assert "fed_back_error" not in order["call"]
    assert "read with repairs: winner" in result["metadata"]["breakdown"]["order 1 (A = new, B = reference)"]


@pytest.mark.parametrize("form", TIE_FORMS)
def test_a_tie_in_a_plain_form_is_read_without_feedback(gemini_env, form):
    on_order(gemini_env, PROMPT, new_first(), reply({**verdict_reply("tie", "tie_both_good"), "winner": form}))
    on_order(gemini_env, PROMPT, reference_first(), reply(verdict_reply("tie", "tie_both_good")))
    result = grade()
    assert result["metadata"]["winner"] == "tie" and result["metadata"]["consistent"] is True
    assert (len(gemini_env.calls()) == 2 and result["metadata"]["orders"][0]["repaired"]
            == [f"winner {json.dumps(form)} read as \"tie\""])


@pytest.mark.parametrize("form", REFUSED_FORMS)
def test_a_winner_with_two_readings_or_none_is_refused(gemini_env, form):
    on_order(gemini_env, PROMPT, new_first(), reply({**verdict_reply("A", "flicker"), "winner": form}))
    answer_second_order_for_new(gemini_env)
    result = grade()
    assert result["pass"] is False and result["metadata"]["error_kind"] == "unparseable"
    assert "at winner:" in result["reason"] and len(gemini_env.calls()) == 2


@pytest.mark.parametrize("left_out, repaired", [
    (("note",), ["note left out: read as null"]),
    (("secondary_tags",), ["secondary_tags left out: read as none"]),
    (("note", "secondary_tags"), ["secondary_tags left out: read as none", "note left out: read as null"]),
])
def test_an_optional_field_left_out_is_read_without_feedback(gemini_env, left_out, repaired):
    value = {k: v for k, v in verdict_reply("A", "flicker", secondary=["artifacts"], note="B flickers.").items()
             if k not in left_out}
    on_order(gemini_env, PROMPT, new_first(), reply(value))
    answer_second_order_for_new(gemini_env)
    result = grade()
    assert result["pass"] is True and len(gemini_env.calls()) == 2
    order = result["metadata"]["orders"][0]
    assert order["repaired"] == repaired
    assert order["note"] == (None if "note" in left_out else "B flickers.")
    assert order["secondary_tags"] == ([] if "secondary_tags" in left_out else ["artifacts"])


def test_a_secondary_tag_repeating_the_primary_is_dropped_and_recorded(gemini_env):
    value = verdict_reply("A", "flicker", secondary=["flicker", "artifacts"])
    on_order(gemini_env, PROMPT, new_first(), reply(value))
    answer_second_order_for_new(gemini_env)
    result = grade()
    assert result["pass"] is True and len(gemini_env.calls()) == 2
    order = result["metadata"]["orders"][0]
    assert (order["secondary_tags"] == ["artifacts"] and order["repaired"]
            == ['secondary tag "flicker" repeats the primary tag: dropped'])
    assert result["metadata"]["primary_tag"] == "flicker" and "flicker" not in result["metadata"]["secondary_tags"]


def test_a_required_field_left_out_is_still_refused(gemini_env):
    value = {k: v for k, v in verdict_reply("A", "flicker").items() if k != "primary_tag"}
    on_order(gemini_env, PROMPT, new_first(), reply(value))
    result = grade()
    assert result["pass"] is False and "primary_tag" in result["reason"] and len(gemini_env.calls()) == 2


# ---- one rule: the report and the judge's reader agree on the same records ----------------------

WATCH = {"full_plays": {"A": 2, "B": 2}, "log": []}


def _random_forms(count: int, seed: int = 20) -> list[tuple[str, dict]]:
    """(family, form) with ratings drawn close together, so that every case of the rule comes up."""
    rng = random.Random(seed)
    forms = []
    for _ in range(count):
        family = rng.choice(["text-to-video", "edit"])
        dims = [d.id for d in P.dimensions_for(family)]
        base = {d: rng.randint(2, 4) for d in dims}
        ratings = {"A": dict(base), "B": {d: max(1, min(5, v + rng.choice([-1, 0, 0, 1]))) for d, v in base.items()}}
        winner = rng.choice(["A", "B", "tie"])
        tag = "tie_both_good" if winner == "tie" else "flicker"
        forms.append((family, {"winner": winner, "primary_tag": tag, "secondary_tags": [], "ratings": ratings, "note": None}))
    return forms


def test_the_report_and_the_judge_reader_agree_on_the_same_records():
    forms = _random_forms(300)
    records, refused = [], {}
    for n, (family, form) in enumerate(forms):
        shown = {"A": "x", "B": "y"} if n % 2 else {"A": "y", "B": "x"}
        record = build_record(sample_id=f"{n:016x}", family=family, protocol="ab-v1", shown=shown,
                              clips={"A": f"{2 * n:064x}", "B": f"{2 * n + 1:064x}"}, form=form, rater_id="ann", watch=WATCH)
        records.append(record)
        try:
            order_parser(P, family)(json.dumps(form))
        except ReplyInvalid as error:
            assert error.kind == SELF_CONTRADICTING, error
            refused[record["record_id"]] = str(error).split("(", 1)[1].split(")", 1)[0]
    listed = {c["record_id"]: c["kind"] for c in analysis.contradictions(as_judgements(records), P)}
    assert listed == refused
    kinds = set(listed.values())
    assert kinds == {"loser_rated_higher", "tie_rated_apart"} and 30 < len(listed) < 270  # both classes, and agreeing ones


def test_the_report_keeps_its_keys():
    form = {"winner": "A", "primary_tag": "flicker", "secondary_tags": [], "ratings": rated((2, 4)), "note": None}
    record = build_record(sample_id="5" * 16, family="text-to-video", protocol="ab-v1", shown={"A": "x", "B": "y"},
                          clips={"A": "1" * 64, "B": "2" * 64}, form=form, rater_id="ann", watch=WATCH)
    (row,) = analysis.contradictions(as_judgements([record]), P)
    assert row == {"record_id": record["record_id"], "sample_id": "5" * 16, "rater": "ann", "winner": "x", "ratings_favour": "y",
                   "deciding_group": "adherence", "margin": 2, "kind": "loser_rated_higher"}
