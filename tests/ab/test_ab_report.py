"""The A/B report: numbers checked against hand-computed values on a small study, HTML and CLI."""

from __future__ import annotations

import json
import types
import typing

import pytest

from reeljudge.ab.store.protocol import load_protocol
from reeljudge.ab.store.records import build_record
from reeljudge.ab.analysis.report import Report, ReportOptions, build_report
from reeljudge.ab.analysis.report_html import render
from reeljudge.ab.store.samples import make_sample
from reeljudge.ab.study.workspace import Workspace
from reeljudge.cli import main

P = load_protocol("ab-v1")
WATCH = {"full_plays": {"A": 2, "B": 2}, "log": []}
DIMS = ("prompt_adherence", "temporal_consistency", "identity_consistency", "motion_physics")


def sha(n: int) -> str:
    return f"{n:064x}"


SAMPLES = [make_sample("text-to-video", f"prompt {i}", ("x", sha(2 * i + 1)), ("y", sha(2 * i + 2))) for i in range(4)]
GOLD = make_sample("text-to-video", "gold", ("gold-clean", sha(100)), ("gold-fault", sha(101)),
                   kind="gold", expected="gold-clean")


def record(sample, rater, winner, primary, *, kind="human", favour=None, swap=False):
    """A record; ``winner`` is a system or "tie"; ratings favour ``favour`` (default the winner)."""
    shown = {"A": "y", "B": "x"} if swap else {"A": "x", "B": "y"}
    if sample.kind == "gold":
        shown = {"A": "gold-clean", "B": "gold-fault"}
    side = {v: k for k, v in shown.items()}
    preferred = favour or winner
    ratings = {s: {d: (5 if preferred in (shown[s], "tie") else 2) for d in DIMS} for s in ("A", "B")}
    form = {"winner": "tie" if winner == "tie" else side[winner], "primary_tag": primary,
            "secondary_tags": [], "ratings": ratings}
    return build_record(sample_id=sample.sample_id, family=sample.family, protocol="ab-v1", shown=shown,
                        clips={s: sample.clip_of(shown[s]) for s in ("A", "B")}, form=form, rater_id=rater, rater_kind=kind,
                        model="gemini-x" if kind == "model" else None, watch=WATCH)


def study_records():
    s1, s2, s3, s4 = SAMPLES
    return [
        record(s1, "ann", "x", "flicker"), record(s1, "bob", "x", "flicker", swap=True),
        record(s2, "ann", "y", "flicker"), record(s2, "bob", "y", "artifacts"),
        record(s3, "ann", "x", "missed_constraint"), record(s3, "bob", "y", "missed_constraint"),
        record(s4, "ann", "x", "flicker", favour="y"), record(s4, "bob", "tie", "tie_both_good"),
        record(s3, "cat", "x", "scene_reset"),  # third rater on the disagreement
        record(GOLD, "ann", "gold-clean", "flicker"), record(GOLD, "bob", "gold-fault", "flicker"),
        record(s1, "gemini-x", "x", "flicker", kind="model"), record(s2, "gemini-x", "x", "flicker", kind="model"),
        record(s3, "gemini-x", "x", "flicker", kind="model"),
    ]


@pytest.fixture(scope="module")
def report():
    return build_report(study_records(), [*SAMPLES, GOLD], P, ReportOptions(n_resamples=200))


def test_counts_and_design(report):
    assert report["counts"] == {"pair_samples": 4, "gold_samples": 1, "judgements": 14, "human_raters": 3, "model_raters": 1}
    assert report["design"]["records_used"] == 8  # first two human records of each pair sample; cat (third rater) left out


def test_winner_agreement_by_hand(report):
    overall = report["agreement"]["overall"]
    # s1 agree, s2 agree, s3 x/y, s4 x/tie → 2 of 4 pairs
    assert (overall["percent"]["agree"], overall["percent"]["pairs"], overall["percent"]["rate"]) == (2, 4, 0.5)
    assert report["agreement"]["by_family"]["text-to-video"]["percent"]["rate"] == 0.5
    # Cohen's κ ann–bob: ann a,b,a,a; bob a,b,b,tie → po = 0.5, pe = 3/4·1/4 + 1/4·2/4 = 5/16; κ = (0.5 − 5/16)/(11/16) = 3/11
    (pair,) = report["agreement"]["cohen_kappa"]
    assert pair["raters"] == ["ann", "bob"] and pair["shared"] == 4
    assert pair["kappa"]["estimate"] == pytest.approx(3 / 11)
    # Fleiss: category counts a 4, b 3, tie 1 of 8 → Pe = (16 + 9 + 1)/64; P̄ = 0.5 → κ = (0.5 − 26/64)/(1 − 26/64) = 6/38
    assert overall["fleiss_kappa"]["estimate"] == pytest.approx(6 / 38)


def test_tag_agreement_by_hand(report):
    flicker = next(t for t in report["agreement"]["tags"] if t["tag"] == "flicker")
    # flicker: s1 both, s2 ann only, s4 ann only → 2·1 / (2·1 + 2) = 0.5
    assert (flicker["used"], flicker["both"], flicker["one_only"], flicker["agreement"]) == (4, 1, 2, 0.5)


def test_contradictions_and_disagreements(report):
    contradicting = [c for c in report["contradictions"] if c["kind"] == "loser_rated_higher"]
    assert [(c["rater"], c["sample_id"], c["winner"], c["ratings_favour"], c["deciding_group"]) for c in contradicting] == [
        ("ann", SAMPLES[3].sample_id, "x", "y", "adherence")]
    order = [(d["sample_id"], d["severity"]) for d in report["disagreements"]]
    assert order == [(SAMPLES[2].sample_id, 2), (SAMPLES[3].sample_id, 1)]  # opposite winners before win-vs-tie
    assert {v["rater"] for v in report["disagreements"][0]["verdicts"]} == {"ann", "bob", "cat"}


def test_rankings_by_hand(report):
    ranking = report["rankings"]["text-to-video"]
    # x: wins s1×2, s3 ann, s3 cat, s4 ann = 5; losses s2×2, s3 bob = 3; tie s4 bob = 1 → (5 + 0.5)/9
    x = next(w for w in ranking["win_rates"] if w["system"] == "x")
    assert (x["wins"], x["losses"], x["ties"], x["comparisons"]) == (5, 3, 1, 9) and x["rate"] == pytest.approx(5.5 / 9)
    assert x["low"] < x["rate"] < x["high"]
    bt = {b["system"]: b for b in ranking["bradley_terry"]}
    # two systems: s_x − s_y = ln(5.5 / 3.5)
    assert bt["x"]["estimate"] - bt["y"]["estimate"] == pytest.approx(__import__("math").log(5.5 / 3.5), abs=0.01)
    assert bt["x"]["low"] <= bt["x"]["estimate"] <= bt["x"]["high"]


def test_gold_and_model_rater(report):
    assert report["gold"]["ann"]["accuracy"] == 1.0 and report["gold"]["bob"]["accuracy"] == 0.0
    (model,) = report["models"]
    # gemini-x picks x on s1 (humans x), s2 (humans y), s3 (ann x, bob y, cat x → x): 2 of 3
    assert (model["rater"], model["units"], model["agree"]) == ("gemini-x", 3, 2)


def test_html_has_the_sections_charts_and_clip_links(report):
    page = render(report, lambda sha: f"clips/{sha}.mp4")
    for text in ("Winner agreement per task family", "Cohen", "Krippendorff", "Bradley–Terry", "Top disagreements",
                 "contradict", "Gold pairs", "<svg", f"clips/{SAMPLES[2].clip_a}.mp4", "50 %"):
        assert text in page, text


def test_cli_report_writes_html_and_json(tmp_path):
    ws = Workspace(tmp_path / "study")
    ws.fix_protocol()
    ws.store.add_samples([*SAMPLES, GOLD], [])
    for r in study_records():
        ws.store.append_judgement(r)
    assert main(["ab", "report", "--data", str(ws.root), "--resamples", "100"]) == 0
    data = json.loads((ws.root / "report" / "report.json").read_text())
    assert data["agreement"]["overall"]["percent"]["rate"] == 0.5
    assert "Top disagreements" in (ws.root / "report" / "report.html").read_text()
    assert main(["ab", "export", "--data", str(ws.root), "--format", "csv", "-o", str(tmp_path / "j.csv")]) == 0
    assert len((tmp_path / "j.csv").read_text().splitlines()) == 15


def test_the_report_for_people_full_labels_notes_thin_evidence_and_undefined_kappa():
    """Issue 19, finding 10: labels cut at 28 characters, values over the lines, notes absent, a degenerate κ as 0.00 [0.00,
    0.00]."""
    import re

    samples = [make_sample("text-to-video", f"p{i}", ("x", sha(200 + 2 * i)), ("y", sha(201 + 2 * i))) for i in range(4)]
    records = []
    for i, s in enumerate(samples):
        records.append(record(s, "ann", "x", "flicker"))  # ann always picks x: κ cannot tell her from chance
        records.append(record(s, "bob", "x" if i % 2 else "y", "flicker"))
    thin = {"served": {"A": {"bytes": 10, "sent": 10, "responses": 1}, "B": {"bytes": 10, "sent": 10, "responses": 1}},
            "elapsed_s": 1.2, "min_elapsed_s": 1.0, "thin": ["open 1.2 s, less than 2.0 s of real-time viewing at 1×"]}
    records[1] = {**records[1], "note": "=B looked <b>smeared</b> at 0:02", "watch": {**WATCH, "server": thin}}
    report = build_report(records, samples, P, ReportOptions(n_resamples=100))
    page = render(report, lambda h: f"clips/{h}.mp4")
    [pair] = report["agreement"]["cohen_kappa"]
    assert pair["kappa"]["estimate"] == 0.0 and pair["undefined"].startswith("ann gave the same verdict on every shared sample")
    assert "0.00 [0.00, 0.00]" not in page and "undefined (ann gave the same verdict on every shared sample" in page
    assert (report["notes"][0]["note"] == "=B looked <b>smeared</b> at 0:02"
            and "=B looked &lt;b&gt;smeared&lt;/b&gt; at 0:02" in page)
    assert (report["watch_evidence"]["bob"]["thin"][0]["reasons"] == thin["thin"]
            and report["watch_evidence"]["ann"]["without_evidence"] == 4)
    assert "Motion / physics plausibility" in page  # 29 characters, once cut to 28
    for svg in re.findall(r"<svg.*?</svg>", page):
        line_ends = [float(v) for v in re.findall(r"<line x1='[\d.]+' y1='\d+' x2='([\d.]+)'", svg)]
        values = [float(v) for v in re.findall(r"<text x='([\d.]+)' y='\d+' text-anchor='end'>", svg)]
        assert not values or max(line_ends, default=0) < min(values) - 40  # the value column is clear of every interval


def shape_errors(value: object, hint: object, where: str = "report") -> list[str]:
    """Where ``value`` (JSON as built) departs from ``hint``'s TypedDicts: a missing or unknown key, a list or object
    that is not one (the leaves' own types are mypy's to check)."""
    args = typing.get_args(hint)
    if typing.is_typeddict(hint):
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__}, not an object"]
        fields = typing.get_type_hints(hint)
        wrong = [f"{where}: keys {sorted(value)}, the shape {sorted(fields)}"] if set(value) != set(fields) else []
        return wrong + [e for key, h in fields.items() if key in value for e in shape_errors(value[key], h, f"{where}.{key}")]
    if typing.get_origin(hint) is list:
        return ([f"{where}: not a list"] if not isinstance(value, list)
                else [e for i, v in enumerate(value) for e in shape_errors(v, args[0], f"{where}[{i}]")])
    if typing.get_origin(hint) is dict:
        return ([f"{where}: not an object"] if not isinstance(value, dict)
                else [e for k, v in value.items() for e in shape_errors(v, args[1], f"{where}.{k}")])
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return []
        tried = [shape_errors(value, a, where) for a in args if a is not type(None)]
        return [] if any(not t for t in tried) else tried[0]
    return []


def test_the_report_is_the_shape_its_types_say(report):
    """The report as built has exactly the keys of ``Report``'s TypedDicts, at every level (mypy checks the code that
    builds and renders it against the same shape)."""
    assert report["models"] and report["gold"] and report["agreement"]["tags"] and report["disagreements"]
    assert shape_errors(report, Report) == []
    assert shape_errors({**report, "counts": {"judgements": 1}}, Report) != []  # the check sees a missing key
