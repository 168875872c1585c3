"""The rating page in a real headless Chromium (Debian's package, driven by Playwright)."""

from __future__ import annotations

import hashlib
import os
import time

import pytest

from support.ab_study import CHROMIUM, CHROMIUM_ARGS, invite, make_study, running_server
from reeljudge.ab.assignment import side_swap

pytestmark = pytest.mark.browser
DIMS = ("prompt_adherence", "temporal_consistency", "identity_consistency", "motion_physics")


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from playwright.sync_api import sync_playwright

    assert os.access(CHROMIUM, os.X_OK), f"{CHROMIUM} is missing: scripts/setup.sh installs Debian's chromium (apt-get install chromium)"
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(str(profile), executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield context
        context.close()


@pytest.fixture
def page(browser):
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    page.close()
    assert errors == []


def open_task(page, url, token):
    page.goto(f"{url}/r/{token}")
    page.wait_for_selector("#task:not([hidden])")


def watch_twice(page, keyboard=True):
    if keyboard:
        page.keyboard.press("l")
        page.keyboard.press("k")
    else:
        page.check("#loop")
        page.click("#play")
    page.wait_for_function("() => { const p = window.reeljudgeAB.state().plays; return p.A >= 2 && p.B >= 2 }", timeout=30000)


def fill(page, winner="A", primary="flicker", a=5, b=2):
    page.check(f"input[name=winner][value='{winner}']")
    page.select_option("#primary_tag", primary)
    for dim in DIMS:
        page.check(f"input[name='r-A-{dim}'][value='{a}']")
        page.check(f"input[name='r-B-{dim}'][value='{b}']")


def violations(page):
    return page.locator(".violation").all_inner_texts()


def wait_records(ws, n, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(ws.store.judgements()) >= n:
            return ws.store.judgements()
        time.sleep(0.05)
    return ws.store.judgements()


def test_submit_is_locked_until_both_clips_played_to_the_end_twice(tmp_path, page):
    ws = make_study(tmp_path, n_pairs=1)
    token = invite(ws, "ann")
    with running_server(ws) as url:
        open_task(page, url, token)
        assert page.is_disabled("#submit")
        fill(page)
        page.keyboard.press("Control+Enter")  # try anyway
        assert any("Play clip A to the end 2 times before submitting (so far 0)" in v for v in violations(page))
        page.locator("#scrub").fill("990")  # scrubbing to the end is not watching
        page.wait_for_timeout(300)
        assert page.evaluate("window.reeljudgeAB.state().plays") == {"A": 0, "B": 0}
        assert ws.store.judgements() == []
        watch_twice(page, keyboard=False)
        assert page.is_enabled("#submit")
        page.click("#submit")
        records = wait_records(ws, 1)
    assert len(records) == 1 and records[0]["watch"]["full_plays"]["A"] >= 2 and records[0]["watch"]["full_plays"]["B"] >= 2
    assert any(e["event"] == "full_play" for e in records[0]["watch"]["log"])


def test_sides_match_the_stored_seed_and_the_record_maps_back_to_systems(tmp_path, page):
    ws = make_study(tmp_path, n_pairs=1)
    ws.store.set_meta_once("side_seed", "browser-seed")
    sample = ws.store.samples()[0]
    raters = [r for r in (f"r{i}" for i in range(20))]
    chosen = [next(r for r in raters if side_swap("browser-seed", sample.sample_id, r) is s) for s in (False, True)]
    with running_server(ws) as url:
        for rater in chosen:
            token = invite(ws, rater)
            open_task(page, url, token)
            expected_a = sample.system_b if side_swap("browser-seed", sample.sample_id, rater) else sample.system_a
            src = page.eval_on_selector("#video-A", "v => v.currentSrc")
            assert hashlib.sha256(page.request.get(src).body()).hexdigest() == sample.clip_of(expected_a)
            assert sample.system_a not in page.content() and sample.system_b not in page.content()
            watch_twice(page)
            fill(page, winner="A")
            page.click("#submit")
            page.wait_for_selector("#done:not([hidden])")
    records = ws.store.judgements()
    assert [r["rater"]["id"] for r in records] == chosen
    for record in records:
        expected_a = sample.system_b if side_swap("browser-seed", sample.sample_id, record["rater"]["id"]) else sample.system_a
        assert record["shown"]["A"]["system"] == expected_a and record["winner"] == expected_a
        assert record["ratings"][expected_a]["prompt_adherence"] == 5


def test_keyboard_only_rating(tmp_path, page):
    ws = make_study(tmp_path, n_pairs=1)
    token = invite(ws, "ann")
    with running_server(ws) as url:
        open_task(page, url, token)
        keys = page.keyboard
        watch_twice(page, keyboard=True)
        keys.press("b")  # winner B
        keys.press("p")  # primary tag
        keys.press("ArrowDown")  # first tag: Missed constraint
        assert page.eval_on_selector("#primary_tag", "s => s.value") == "missed_constraint"
        keys.press("Tab")  # first secondary checkbox (Missed constraint)
        keys.press("Tab")  # second (Added hallucinated element)
        keys.press(" ")
        keys.press("r")  # first rating row, clip A
        for _ in DIMS:
            keys.press("2")
            keys.press("Tab")
            keys.press("5")
            keys.press("Tab")
        keys.press("Control+Enter")
        records = wait_records(ws, 1)
    assert len(records) == 1, violations(page)
    record = records[0]
    shown_b = record["shown"]["B"]["system"]
    assert record["winner_side"] == "B" and record["winner"] == shown_b
    assert record["primary_tag"] == "missed_constraint" and record["secondary_tags"] == ["hallucinated_element"]
    assert record["ratings"][shown_b] == {d: 5 for d in DIMS} and record["ratings"][record["shown"]["A"]["system"]] == {d: 2 for d in DIMS}


def test_bad_forms_get_their_message_and_store_nothing(tmp_path, page):
    ws = make_study(tmp_path, n_pairs=1)
    token = invite(ws, "ann")
    with running_server(ws) as url:
        open_task(page, url, token)
        watch_twice(page)

        fill(page, winner="tie", primary="flicker")
        page.click("#submit")
        assert any("A tie has no loser" in v for v in violations(page))

        fill(page, winner="A", primary="flicker")
        for tag in ("missed_constraint", "artifacts", "scene_reset", "entity_drift"):
            page.check(f"input[name=secondary][value='{tag}']")
        page.click("#submit")
        assert "Choose at most 3 secondary tags (you chose 4)." in violations(page)
        page.uncheck("input[name=secondary][value='entity_drift']")

        page.select_option("#primary_tag", "")
        page.click("#submit")
        assert "Choose exactly one primary reason tag." in violations(page)
        page.select_option("#primary_tag", "flicker")

        # a tampered page rates Edit precision on a text-to-video task: the page and the server refuse it
        page.evaluate("""() => { const row = document.querySelector('#ratings tbody tr');
            const r = document.createElement('input'); r.type = 'radio'; r.name = 'r-A-edit_precision'; r.value = '4';
            r.dataset.side = 'A'; r.dataset.dimension = 'edit_precision'; r.checked = true; row.append(r); }""")
        page.click("#submit")
        message = "Edit precision is rated only on edit tasks; this is a text-to-video task."
        assert message in violations(page)
        server = page.evaluate("""async () => { const s = window.reeljudgeAB.state();
            const form = {winner: 'A', primary_tag: 'flicker', secondary_tags: [], note: null,
              ratings: {A: {prompt_adherence: 5, temporal_consistency: 5, identity_consistency: 5, motion_physics: 5, edit_precision: 4},
                        B: {prompt_adherence: 2, temporal_consistency: 2, identity_consistency: 2, motion_physics: 2}}};
            const res = await fetch(location.pathname.replace('/r/', '/api/r/') + '/submit', {method: 'POST',
              headers: {'Content-Type': 'application/json'},
              body: JSON.stringify({assignment_id: s.task.assignment_id, submission_id: s.submissionId, form, watch: {log: s.log}})});
            return {status: res.status, body: await res.json()}; }""")
        assert server["status"] == 422 and {"field": "ratings.A.edit_precision", "message": message} in server["body"]["violations"]
        assert ws.store.judgements() == []

        page.evaluate("() => document.querySelector('input[name=\"r-A-edit_precision\"]').remove()")
        page.click("#submit")
        records = wait_records(ws, 1)
    assert len(records) == 1 and sorted(records[0]["secondary_tags"]) == ["artifacts", "missed_constraint", "scene_reset"]


def test_a_forced_playback_rate_unlocks_the_page_but_the_server_refuses_and_the_page_says_why(tmp_path, page):
    """Issue 19, finding 1: playbackRate = 16 from the console unlocked Submit in 0.6 s and the record was stored."""
    ws = make_study(tmp_path, n_pairs=1, frames=240)  # 10 s clips: two plays at 2× take at least 10 s
    token = invite(ws, "ann")
    with running_server(ws) as url:
        open_task(page, url, token)
        page.evaluate("() => { for (const v of document.querySelectorAll('#players video')) v.playbackRate = 16; }")
        watch_twice(page, keyboard=False)
        fill(page)
        assert page.is_enabled("#submit")  # the page believes the plays
        page.click("#submit")
        page.wait_for_selector(".violation[data-field=watch]")
        # the clips go on looping: the server's message must outlive the next counted pass
        passes = page.evaluate("window.reeljudgeAB.state().plays.A")
        page.wait_for_function(f"() => window.reeljudgeAB.state().plays.A > {passes}", timeout=30000)
        message = page.locator(".violation[data-field=watch]").all_inner_texts()
        state = page.evaluate("window.reeljudgeAB.state()")
    assert any("at up to 2× takes at least 10.0 s" in m for m in message), message
    assert ws.store.judgements() == []
    assert any(e["event"] == "rate" and e["value"] == 16 for e in state["log"])  # the page logs the forced rate


def test_loop_mode_counts_every_play_of_each_clip(tmp_path, page):
    """Issue 19, finding 3: when both clips ended in the same tick, one clip's restart cleared the other's progress."""
    ws = make_study(tmp_path, n_pairs=1, frames=12)  # two clips of equal length (0.5 s)
    token = invite(ws, "ann")
    with running_server(ws) as url:
        open_task(page, url, token)
        page.check("#loop")
        for n in (1, 2):
            # half way through, hold the page's main thread past both clips' end: their "ended" events
            # then wait in the same queue, as when two clips end in the same tick. Once the page has
            # handled them (both passes counted, or 3 s gone), pause the next loop pass at once, in the
            # page (K, as a rater would): no round trip to the test in between, however loaded the machine
            page.click("#play")
            page.wait_for_function("() => document.querySelector('#video-A').currentTime >= 0.25")
            page.evaluate("""async (n) => {
                const until = performance.now() + 600; while (performance.now() < until) {}
                const counted = () => { const p = window.reeljudgeAB.state().plays; return p.A >= n && p.B >= n; };
                const deadline = performance.now() + 3000;
                while (!counted() && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
                document.dispatchEvent(new KeyboardEvent("keydown", {key: "k"}));
            }""", n)
            page.evaluate("() => { for (const v of document.querySelectorAll('#players video')) { v.pause(); v.currentTime = 0; } }")
        plays = page.evaluate("window.reeljudgeAB.state().plays")
    assert plays == {"A": 2, "B": 2}


def test_the_page_says_why_submit_is_locked_and_shows_the_anchors_on_a_laptop_screen(tmp_path, page):
    """Issue 19, finding 10: no reason for a locked Submit, anchors only in a tooltip, an unlabelled counter, the form below the players."""
    ws = make_study(tmp_path, n_pairs=2)
    token = invite(ws, "ann")
    page.set_viewport_size({"width": 1366, "height": 768})
    with running_server(ws) as url:
        open_task(page, url, token)
        reason = page.inner_text("#lock-reason")
        assert "played clip A 2 more times and clip B 2 more times to the end" in reason
        assert "the winner, a primary reason, 8 ratings" in reason
        page.check("input[name=winner][value='A']")
        page.check("input[name='r-A-prompt_adherence'][value='4']")
        assert "Still to fix or fill in: a primary reason, 7 ratings." in page.inner_text("#lock-reason")
        anchors = page.locator("#ratings ul.anchors").all_inner_texts()
        assert len(anchors) == 4 and all(a.count("\n") == 2 for a in anchors) and "5 All constraints satisfied" in anchors[0]
        assert page.locator("#ratings ul.anchors").first.is_visible()
        assert page.inner_text("#progress") == "Your progress: 0 of 2 tasks done"
        boxes = page.evaluate("""() => Object.fromEntries(['#players', '#winner-set', '#primary_tag', '#ratings tbody tr'].map(
            (s) => [s, document.querySelector(s).getBoundingClientRect().toJSON()]))""")
        watch_twice(page)
        assert page.inner_text("#lock-reason") == "Still to fix or fill in: a primary reason, 7 ratings."
    assert boxes["#players"]["bottom"] <= boxes["#winner-set"]["top"] < boxes["#winner-set"]["bottom"] <= 768
    assert boxes["#primary_tag"]["bottom"] <= 768 and boxes["#ratings tbody tr"]["bottom"] <= 768
