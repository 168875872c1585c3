"""``reeljudge gecko report``: per-tag means and intervals checked by hand, moved tags, the letter check,
the Markdown, the HTML page in headless Chromium, and the gate's Gecko section."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from support.gecko_results import gecko_result, not_judged_result, results_row, write_gecko_results
from reeljudge.cli import main
from reeljudge.gecko.report import OVERALL, build_report
from reeljudge.gecko.report_html import render_html
from reeljudge.gecko.report_markdown import render_markdown
from support.paths import ROOT

#: four tests hand-made so the means can be checked by hand (tag, truth, verdict)
HAND = [
    [("color", "a", "a"), ("action", "b", "b"), ("action", "c", "a")],  # color 1, action 0.5, overall 2/3
    [("color", "b", "b"), ("action", "a", "a")],                        # color 1, action 1, overall 1
    [("color", "c", "a"), ("action", "a", "a"), ("action", "b", "b")],  # color 0, action 1, overall 2/3
    [("color", "a", "a"), ("spatial", "d", "d")],                       # color 1, spatial 1, overall 1
]


def hand_file(path: Path) -> Path:
    rows = [results_row(f"t{k}", "veo", gecko_result(q), k) for k, q in enumerate(HAND)]
    rows.append(results_row("t0 counter", "veo", gecko_result(HAND[0], expect="mismatch")))
    rows.append(results_row("t9", "veo", not_judged_result("t9")))
    return write_gecko_results(path, rows)


def two_runs(tmp_path: Path, *, judge_always_a: bool = False) -> tuple[Path, Path]:
    """Eight tests, 4 questions each (truth a b c d); the candidate loses action on 7 of 8 and trades color on two."""
    base, cand = [], []
    for k in range(8):
        def q(action_ok: bool, color_ok: bool) -> list:
            qs = [("action", "a", "a" if action_ok else "b"), ("color", "b", "b" if color_ok else "c"),
                  ("object", "c", "c"), ("object", "d", "d")]
            return [(t, truth, "a") for t, truth, _ in qs] if judge_always_a else qs
        base.append(results_row(f"t{k}", "veo", gecko_result(q(True, k != 0)), k))
        cand.append(results_row(f"t{k}", "veo", gecko_result(q(k == 5, k != 1)), k))
    return write_gecko_results(tmp_path / "base.json", base), write_gecko_results(tmp_path / "cand.json", cand)


def test_means_counts_and_intervals_match_a_hand_count(tmp_path):
    report = build_report([hand_file(tmp_path / "r.json")])
    [series] = report.series
    assert report.tags == [OVERALL, "action", "color", "spatial"]
    color, action, overall, spatial = (series.scores[t] for t in ("color", "action", OVERALL, "spatial"))
    assert (color.interval.estimate, color.tests, color.questions) == (0.75, 4, 4)
    assert action.interval.estimate == pytest.approx((0.5 + 1 + 1) / 3) and (action.tests, action.questions) == (3, 5)
    assert overall.interval.estimate == pytest.approx((2 / 3 + 1 + 2 / 3 + 1) / 4) and overall.questions == 10
    assert (spatial.interval.estimate, spatial.tests, spatial.questions) == (1.0, 1, 1)
    # color's resampled means over 4 tests (one 0) take 0, .25, .5, .75, 1; P(mean = 0) = .25^4 = .004 < .025
    # and P(mean <= .25) = .051 > .025, so the 2.5th percentile is 0.25; P(mean = 1) = .75^4 = .32: the top is 1
    assert (color.interval.low, color.interval.high) == (0.25, 1.0)
    assert series.counter_prompts == 1 and series.not_judged == 1
    # letters over the 4 judged matched tests: judge a 6, b 3, d 1; truth a 4, b 3, c 2, d 1 (10 answers < 30)
    assert series.bias is not None and series.bias.n_judge == 10 and not series.bias.flagged


def test_markdown_shows_the_numbers_and_the_left_out_results(tmp_path):
    text = render_markdown(build_report([hand_file(tmp_path / "r.json")]))
    assert "| color | 0.75 [0.25, 1.00] · 4 · 4q |" in text
    assert "| spatial | 1.00 · 1 · 1q |" in text
    assert "1 result(s) did not judge" in text and "1 counter-prompt test(s)" in text
    assert "### Tags that moved" not in text  # one file: nothing to compare


def test_moved_tags_between_two_files(tmp_path):
    report = build_report(list(two_runs(tmp_path)))
    moves = {m.tag: m for m in report.moves}
    assert [m.tag for m in report.moved] == [OVERALL, "action"]
    action = moves["action"]
    assert (action.base_mean, action.candidate_mean, action.paired) == (1.0, 0.125, 8)
    assert action.change.estimate == pytest.approx(-0.875) and action.change.high < 0
    color = moves["color"]  # one test lost color, another gained it: held
    assert color.change.estimate == 0.0 and color.change.low < 0 < color.change.high and not color.moved
    assert moves["object"].change.estimate == 0.0 and not moves["object"].moved
    assert moves[OVERALL].change.estimate == pytest.approx(-0.875 / 4)
    text = render_markdown(report)
    assert "| veo · cand.json | 🔻 action | 1.00 | 0.12 | −0.88 [" in text
    assert "Held: color +0.00 [" in text


def test_a_judge_that_always_answers_a_is_flagged_and_a_fair_one_is_not(tmp_path):
    biased = build_report(list(two_runs(tmp_path, judge_always_a=True)))
    for series in biased.series:
        assert series.bias.flagged and series.bias.letter == "a" and series.bias.n_judge == 32
    assert "⚠️ BIASED towards a" in render_markdown(biased)
    (tmp_path / "fair").mkdir()
    fair = build_report(list(two_runs(tmp_path / "fair")))
    assert not any(s.bias.flagged for s in fair.series)


def test_results_without_answer_letters_say_not_recorded(tmp_path):
    path = write_gecko_results(tmp_path / "r.json",
                               [results_row(f"t{k}", "veo", gecko_result(q, letters=False), k) for k, q in enumerate(HAND)])
    report = build_report([path])
    assert report.series[0].bias is None
    assert "not recorded" in render_markdown(report)


def test_a_file_without_gecko_results_is_refused_by_the_cli(tmp_path, capsys):
    from support.results_fixtures import RunSpec, write_results

    other = write_results(tmp_path / "film.json", RunSpec(n_tests=3))
    assert main(["gecko", "report", str(other)]) == 2
    assert "no Gecko result in" in capsys.readouterr().err


def test_cli_writes_markdown_and_a_self_contained_page(tmp_path, capsys):
    base, cand = two_runs(tmp_path)
    page, md = tmp_path / "out" / "report.html", tmp_path / "out" / "report.md"
    assert main(["gecko", "report", str(base), str(cand), "--html", str(page), "--markdown", str(md)]) == 0
    assert capsys.readouterr().out == md.read_text()
    html = page.read_text()
    assert "<script" not in html and "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in html and "<link" not in html


def test_real_assertion_results_are_read(gemini_env, tmp_path):
    """The fixture's shape is the assertion's: a real Gecko result (fake server) through the report."""
    from reeljudge.assertions.gecko import get_assert
    from support.gecko_scripts import script_prompt

    clip = str(ROOT / "datasets" / "clips" / "gen_clean.mp4")
    prompt = "A red kite flying over a green meadow while clouds drift"
    kept = script_prompt(gemini_env, prompt, matched=True)
    result = get_assert(clip, {"vars": {"prompt": prompt, "video": clip}, "config": {}, "test": {"description": "kite"}})
    report = build_report([write_gecko_results(tmp_path / "r.json", [results_row("kite", "veo", result)])])
    scores = report.series[0].scores
    assert scores[OVERALL].questions == len(kept) and scores[OVERALL].interval.estimate == result["score"]
    for tag in {q.tag for q in kept}:
        assert scores[tag].questions == sum(q.tag == tag for q in kept)
        assert scores[tag].interval.estimate == result["namedScores"][f"gecko_{tag}"]


@pytest.mark.browser
def test_the_page_in_headless_chromium_draws_a_mark_per_tag_and_model(tmp_path):
    from playwright.sync_api import sync_playwright

    from support.ab_study import CHROMIUM, CHROMIUM_ARGS

    assert os.access(CHROMIUM, os.X_OK), f"{CHROMIUM} is missing: scripts/setup.sh installs Debian's chromium"
    base, cand = two_runs(tmp_path)
    report = build_report([base, cand])
    page_file = tmp_path / "report.html"
    page_file.write_text(render_html(report), encoding="utf-8")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        page = browser.new_page(viewport={"width": 900, "height": 1200})
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        page.goto(page_file.as_uri())
        marks = page.eval_on_selector_all(
            "#scores g.mark",
            "gs => gs.map(g => [g.dataset.tag, g.dataset.series, g.querySelectorAll('line.interval').length,"
            " g.querySelectorAll('line.cap').length, g.querySelector('circle.estimate').getBBox().width,"
            " g.querySelector('line.interval').getBBox().width])")
        changes = page.eval_on_selector_all("#changes g.mark",
                                            "gs => gs.map(g => g.querySelector('circle').getAttribute('fill'))")
        moved_labels = page.eval_on_selector_all("#scores text.moved", "ts => ts.map(t => t.textContent)")
        page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
        browser.close()
    assert requests == [page_file.as_uri()]  # nothing fetched but the page itself
    assert sorted((m[0], m[1]) for m in marks) == sorted((t, s.label) for s in report.series for t in report.tags)
    assert all(m[2] == 1 and m[3] == 2 and m[4] > 0 for m in marks)
    widths = {(m[0], m[1]): m[5] for m in marks}
    assert widths[("action", "veo · cand.json")] > 0  # action 0.125 over 8 tests: a real interval drawn
    assert len(changes) == len(report.moves) and changes.count("#C62828") == 2  # action and overall dropped
    assert moved_labels == ["▼ −0.22", "▼ −0.88"]


def test_the_gate_appends_the_gecko_section_when_asked_and_gecko_results_are_there(tmp_path, capsys):
    base, cand = two_runs(tmp_path)
    main(["compare", str(base), str(cand), "--gecko", "--markdown", str(tmp_path / "gate.md"), "-q"])
    text = (tmp_path / "gate.md").read_text()
    assert "<summary>Gecko per tag, cand: 2 tag(s) moved</summary>" in text
    assert "| veo · cand.json | 🔻 action | 1.00 | 0.12 | −0.88 [" in text
    assert text.count("letters, veo") == 2 and text.rstrip().endswith("</details>")
    main(["compare", str(base), str(cand), "--markdown", str(tmp_path / "plain.md"), "-q"])
    assert "Gecko per tag" not in (tmp_path / "plain.md").read_text()
    from reeljudge.gates.markdown import gecko_sections
    from support.results_fixtures import RunSpec, write_results

    film = write_results(tmp_path / "film.json", RunSpec(n_tests=5))
    assert gecko_sections(film, film) == ""


def test_same_named_files_of_two_folders_are_told_apart(tmp_path):
    from reeljudge.gates.markdown import gecko_sections

    base, cand = two_runs(tmp_path)
    for folder, source in (("baseline", base), ("results", cand)):
        (tmp_path / folder).mkdir()
        source.rename(tmp_path / folder / "gecko.json")
    text = gecko_sections(tmp_path / "baseline", tmp_path / "results")
    assert "<summary>Gecko per tag, gecko: 2 tag(s) moved</summary>" in text
    assert "| veo · results/gecko.json | 🔻 action |" in text and "letters, veo · baseline/gecko.json" in text
