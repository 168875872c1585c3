"""The rating page in a real headless Chromium (Debian's package, driven by Playwright)."""

from __future__ import annotations

import hashlib
import os
import re
import time
from contextlib import contextmanager

import pytest

from support.ab_study import CHROMIUM, CHROMIUM_ARGS, invite, make_study, running_server
from reeljudge.ab.study.assignment import side_swap

pytestmark = pytest.mark.browser
DIMS = ("prompt_adherence", "temporal_consistency", "identity_consistency", "motion_physics")


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from playwright.sync_api import sync_playwright

    assert os.access(CHROMIUM, os.X_OK), (f"{CHROMIUM} is missing: scripts/setup.sh installs Debian's chromium "
                                          "(apt-get install chromium)")
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
    assert (record["ratings"][shown_b] == {d: 5 for d in DIMS} and record["ratings"][record["shown"]["A"]["system"]]
            == {d: 2 for d in DIMS})


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
              ratings: {A: {prompt_adherence: 5, temporal_consistency: 5, identity_consistency: 5, motion_physics: 5,
                            edit_precision: 4},
                        B: {prompt_adherence: 2, temporal_consistency: 2, identity_consistency: 2, motion_physics: 2}}};
            const res = await fetch(location.pathname.replace('/r/', '/api/r/') + '/submit', {method: 'POST',
              headers: {'Content-Type': 'application/json'},
              body: JSON.stringify({assignment_id: s.task.assignment_id, submission_id: s.submissionId, form,
                                    watch: {log: s.log}})});
            return {status: res.status, body: await res.json()}; }""")
        assert (server["status"] == 422
                and {"field": "ratings.A.edit_precision", "message": message} in server["body"]["violations"])
        assert ws.store.judgements() == []

        page.evaluate("() => document.querySelector('input[name=\"r-A-edit_precision\"]').remove()")
        page.click("#submit")
        records = wait_records(ws, 1)
    assert len(records) == 1 and sorted(records[0]["secondary_tags"]) == ["artifacts", "missed_constraint", "scene_reset"]


def test_a_forced_playback_rate_unlocks_the_page_but_the_server_refuses_and_the_page_says_why(tmp_path, page):
    """playbackRate = 16 from the console unlocks the page's Submit, but the server refuses the record and the page says
    why (once the page alone decided: Submit unlocked in 0.6 s and the record was stored)."""
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
    """Every play of each clip counts, also when both clips end in the same tick (where one clip's restart once cleared
    the other's progress)."""
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
            page.evaluate("() => { for (const v of document.querySelectorAll('#players video')) { v.pause(); "
                          "v.currentTime = 0; } }")
        plays = page.evaluate("window.reeljudgeAB.state().plays")
    assert plays == {"A": 2, "B": 2}


def test_the_page_says_why_submit_is_locked_and_shows_the_anchors_on_a_laptop_screen(tmp_path, page):
    """A locked Submit says why and the anchors are on show on a laptop screen (what the page once lacked: no reason for a
    locked Submit, anchors only in a tooltip, an unlabelled counter, the form below the players)."""
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


# ---- a phone, a laptop screen, keyboard, clips that fail, a busy server, a withdrawn task ---------------------------

TOUCH = 40  # px: the least a touch target may measure each way
CONTROLS = """(root) => [...document.querySelectorAll(root)].filter((e) => e.offsetParent !== null).map((e) => {
    const r = e.getBoundingClientRect();
    return {name: e.id || e.getAttribute('aria-label') || e.textContent.trim().slice(0, 30) || e.tagName,
            left: r.left, right: r.right, width: r.width, height: r.height};
  })"""
TARGETS = "#task button, #task select, #task input[type=range], #task textarea, #task label, header button"


def box(page, selector):
    return page.eval_on_selector(selector, "e => e.getBoundingClientRect().toJSON()")


@contextmanager
def sized(browser, width, height, touch=False):
    """A page of the shared browser with its window at ``width`` × ``height``, closed after; ``touch``: a touch screen (Chromium's
    touch emulation, as DevTools' device mode: ``(pointer: coarse)`` matches, taps are touches). No script error on it."""
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_viewport_size({"width": width, "height": height})
    if touch:
        cdp = browser.new_cdp_session(page)
        cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    try:
        yield page
    finally:
        page.close()
    assert errors == []


def test_the_page_on_a_phone(tmp_path, browser):
    """Finding (390×844): the page was 492 px wide, clip B's rating buttons off-screen, videos 171×150 px, touch targets
    13–21 px, Submit 2.6 screens down. Layout facts, then a whole task rated by pointer alone."""
    ws = make_study(tmp_path, n_pairs=1)
    token = invite(ws, "ann")
    with sized(browser, 390, 844) as page:
        with running_server(ws) as url:
            open_task(page, url, token)
            assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing to scroll sideways
            controls = page.evaluate(CONTROLS, TARGETS)
            small = [c for c in controls if c["width"] < TOUCH or c["height"] < TOUCH]
            outside = [c for c in controls if c["left"] < 0 or c["right"] > 390]
            assert len(controls) > 60 and small == [] and outside == [], (small, outside)
            a, b = box(page, "#video-A"), box(page, "#video-B")  # side by side: both in view while rating
            assert a["right"] <= b["left"] and a["top"] == b["top"] and a["left"] >= 0 and b["right"] <= 390
            assert min(a["width"], b["width"]) >= 175 and min(a["height"], b["height"]) >= 98, (a, b)  # not 171×150 in 492 px
            bar = box(page, "#submit")
            assert 844 - 160 <= bar["top"] and bar["bottom"] <= 844  # Submit on screen from the start
            page.evaluate("window.scrollTo(0, document.body.scrollHeight / 2)")
            assert box(page, "#submit")["bottom"] <= 844  # and wherever the rater is on the page
            page.click("#loop")
            page.click("#play")
            page.wait_for_function("() => { const p = window.reeljudgeAB.state().plays; return p.A >= 2 && p.B >= 2 }",
                                   timeout=30000)
            page.click("#winner-set label:has(input[value=B])")
            page.select_option("#primary_tag", "flicker")
            for dim in DIMS:
                for side, value in (("A", 2), ("B", 5)):
                    label = page.locator(f"label:has(input[name='r-{side}-{dim}'][value='{value}'])")
                    label.scroll_into_view_if_needed()
                    assert box(page, f"label:has(input[name='r-{side}-{dim}'][value='{value}'])")["right"] <= 390
                    label.click()
            page.click("#submit")
            records = wait_records(ws, 1)
    assert len(records) == 1 and records[0]["winner_side"] == "B"
    assert records[0]["ratings"][records[0]["shown"]["B"]["system"]] == {d: 5 for d in DIMS}


def test_the_page_on_a_laptop_screen_shows_submit_and_how_to_judge_on_the_first_task(tmp_path, browser):
    """Finding (1366×768): Submit was below the fold and "How to judge" collapsed."""
    ws = make_study(tmp_path, n_pairs=2)
    token = invite(ws, "ann")
    with sized(browser, 1366, 768) as page:
        with running_server(ws) as url:
            open_task(page, url, token)
            first = {"open": page.eval_on_selector("#instructions", "d => d.open"), "list": box(page, "#instruction-list li"),
                     "bar": box(page, "#submit-row"), "submit": box(page, "#submit"), "players": box(page, "#players"),
                     "winner": box(page, "#winner-set"), "row": box(page, "#ratings tbody tr")}
            watch_twice(page)
            fill(page)
            page.click("#submit")
            wait_records(ws, 1)
            page.wait_for_function("() => window.reeljudgeAB.state().plays.A === 0")
            page.goto(f"{url}/r/{token}")  # the same rater comes back for the second task
            page.wait_for_selector("#task:not([hidden])")
            later = page.eval_on_selector("#instructions", "d => d.open")
    assert first["open"] is True and 0 < first["list"]["bottom"] <= first["players"]["top"]  # read before the clips
    assert first["submit"]["bottom"] <= 768 and first["bar"]["bottom"] <= 768  # no scrolling to reach Submit
    assert first["players"]["bottom"] <= first["bar"]["top"]  # the bar never covers the clips
    assert first["winner"]["bottom"] <= first["bar"]["top"] and first["row"]["bottom"] <= first["bar"]["top"]
    assert later is False  # closed once the rater has a task behind them


def test_the_status_beside_submit_follows_keyboard_input(tmp_path, page):
    """Finding: after the 1–5 and A/B/T keys the text beside Submit still said the ratings and the winner were missing."""
    ws = make_study(tmp_path, n_pairs=1)
    token = invite(ws, "ann")
    with running_server(ws) as url:
        open_task(page, url, token)
        assert "the winner, a primary reason, 8 ratings" in page.inner_text("#lock-reason")
        page.locator("body").click(position={"x": 5, "y": 5})
        page.keyboard.press("t")  # winner: tie
        after_winner = page.inner_text("#lock-reason")
        page.keyboard.press("r")  # the first rating row, clip A
        page.keyboard.press("4")
        after_rating = page.inner_text("#lock-reason")
    assert "the winner" not in after_winner and "a primary reason, 8 ratings" in after_winner
    assert "a primary reason, 7 ratings" in after_rating


def test_a_clip_that_fails_to_load_says_so_and_offers_a_retry(tmp_path, page):
    """Finding: a clip that failed to load showed a black player and "play clip B 2 more times"."""
    ws = make_study(tmp_path, n_pairs=1)
    token = invite(ws, "ann")
    with running_server(ws) as url:
        task = ws.store.samples()[0]
        missing = [ws.clips.path(ws.store.clip(sha)) for sha in (task.clip_a, task.clip_b)]
        for path in missing:  # the clip store loses both files (a disk, a mount): the server cannot send them
            path.rename(path.with_suffix(".away"))
        open_task(page, url, token)
        page.wait_for_selector("#clip-error-A:not([hidden])", timeout=15000)
        message = page.inner_text("#clip-error-A")
        reason = page.inner_text("#lock-reason")
        for path in missing:
            path.with_suffix(".away").rename(path)
        page.click("#clip-error-A button")
        page.click("#clip-error-B button")
        page.wait_for_function("() => !document.querySelector('#video-A').error && "
                               "document.querySelector('#video-A').readyState >= 2")
        hidden = page.eval_on_selector_all(".clip-error", "els => els.map((e) => e.hidden)")
        watch_twice(page)
    assert message.startswith("Clip A could not be loaded: the server answered 5") and "Retry clip A" in message
    assert "Clip A and clip B did not load: press Retry on it." in reason and "more times" not in reason
    assert hidden == [True, True]


def test_the_page_waits_out_a_busy_server_and_says_so(tmp_path, page):
    """Finding: a 503 left the page at "The server answered 503." with no retry. The server answers 503 or 429 with
    Retry-After when it is full or a rater goes too fast; here the browser's network layer makes the first answers
    busy, so the test does not depend on load."""
    ws = make_study(tmp_path, n_pairs=1)
    token = invite(ws, "ann")
    busy = {"task": 2, "submit": 1}
    seen: list[str] = []

    def answer(route):
        kind = "submit" if "/submit/" in route.request.url else "task"
        if busy[kind]:
            busy[kind] -= 1
            route.fulfill(status=503 if kind == "task" else 429,
                          headers={"Retry-After": "1", "Content-Type": "application/json"}, body="{}")
        else:
            route.continue_()

    page.route("**/api/r/*/task", answer)
    page.route("**/api/r/*/submit/*", answer)
    with running_server(ws) as url:
        page.goto(f"{url}/r/{token}")
        page.wait_for_selector("#net-status:not([hidden])")
        seen.append(page.inner_text("#net-status"))
        page.wait_for_selector("#task:not([hidden])", timeout=20000)
        cleared = page.eval_on_selector("#net-status", "n => n.hidden")
        watch_twice(page)
        fill(page)
        page.click("#submit")
        page.wait_for_selector("#net-status:not([hidden])")
        seen.append(page.inner_text("#net-status"))
        page.wait_for_selector("#done:not([hidden])", timeout=20000)  # (the route handlers answer only while Playwright waits)
        records = ws.store.judgements()
    assert seen[0].startswith("The server is busy (503): trying to load your task again in") and "(attempt 2)" in seen[0]
    assert (seen[1].startswith("The server is limiting requests (429): trying to send your answer again")
            and "Your answers are kept." in seen[1])
    assert cleared is True and busy == {"task": 0, "submit": 0} and len(records) == 1


def test_a_withdrawn_task_is_explained_once_and_the_next_task_follows(tmp_path, page):
    """On the page, a late submit (the hold expired, the pair went to others) moves the rater on."""
    import httpx

    from reeljudge.ab.study.assignment import QCOptions
    from support.ab_study import take_task, valid_form

    ws = make_study(tmp_path, n_pairs=2)
    ann, bob, carol = (invite(ws, name) for name in ("ann", "bob", "carol"))
    with running_server(ws, QCOptions(gold_every=0, assignment_ttl_s=2.0)) as url:
        open_task(page, url, ann)
        first = page.evaluate("window.reeljudgeAB.state().task.assignment_id")
        time.sleep(2.1)
        with httpx.Client(timeout=30) as client:
            for name, token in (("bob", bob), ("carol", carol)):
                task, watch = take_task(client, url, token)
                body = {"assignment_id": task["assignment_id"], "submission_id": f"{name}-0001",
                        "form": valid_form("tie"), "watch": watch}
                assert client.post(f"{url}/api/r/{token}/submit", json=body).status_code == 200
        watch_twice(page)
        fill(page)
        page.click("#submit")
        page.wait_for_function(f"() => window.reeljudgeAB.state().task.assignment_id !== '{first}'")
        notice = page.inner_text("#notice")
        page.reload()
        page.wait_for_selector("#task:not([hidden])")
        again = page.eval_on_selector("#notice", "n => n.hidden")
    assert "held for you for 2 s" in notice and "nothing was stored" in notice
    assert again is True  # said once
    assert sorted(r["rater"]["id"] for r in ws.store.judgements()) == ["bob", "carol"]


# ---- the page on a phone and a laptop ---------------------------------------------------------------------------------

PHONE, LAPTOP = (390, 844), (1366, 768)
SCREENS = {"phone": (*PHONE, True), "laptop": (*LAPTOP, False)}
#: where the page is at a point of the rating step: both clips' and their controls' rectangles, each checked at points
#: across it (the element on top there must be that element: nothing, the Submit bar included, lies over it), the Submit
#: bar's, and the window's size
IN_VIEW = """() => {
    const rect = (e) => e.getBoundingClientRect().toJSON();
    const uncovered = (e) => {
      const r = e.getBoundingClientRect();
      return [[.1, .1], [.9, .1], [.5, .5], [.1, .9], [.9, .9]].every(([fx, fy]) => {
        const hit = document.elementFromPoint(r.left + fx * r.width, r.top + fy * r.height);
        return hit === e || e.contains(hit);
      });
    };
    const seen = {};
    for (const id of ['video-A', 'video-B', 'play', 'step-back', 'step-fwd', 'scrub']) {
      const e = document.getElementById(id); seen[id] = {...rect(e), uncovered: uncovered(e)};
    }
    return {seen, bar: rect(document.getElementById('submit-row')), width: innerWidth, height: innerHeight, y: scrollY};
  }"""


def assert_in_view(facts, where):
    """Both clips and their controls wholly inside the window, above the Submit bar, nothing over them."""
    bar = facts["bar"]
    for name, r in facts["seen"].items():
        inside = 0 <= r["top"] and r["bottom"] <= bar["top"] and 0 <= r["left"] and r["right"] <= facts["width"]
        assert inside, (where, name, r, bar)
        assert r["uncovered"], (where, name, r)


def screenshot(page, tmp_path, name):
    """The window as the rater sees it, kept in the test's folder (tmp_path/screens/NAME.png)."""
    path = tmp_path / "screens" / f"{name}.png"
    path.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(path))
    return path


@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_both_clips_and_their_controls_stay_in_view_while_rating(tmp_path, browser, screen):
    """Wherever the rater is in the form, both clips and Play, the frame steps and the scrubber stay whole in the window,
    nothing over them; each part of the form can be brought between them and a compact Submit bar. What it measured
    before (390×844, first task): "How to judge" open pushed the clips down, the sticky Submit bar (92 px, five lines)
    covered about 70 % of clip B and Play sat off-screen; while rating, the clips scrolled away (on a laptop too)."""
    width, height, touch = SCREENS[screen]
    ws = make_study(tmp_path, n_pairs=2)
    token = invite(ws, "ann")
    with sized(browser, width, height, touch) as page:
        with running_server(ws) as url:
            open_task(page, url, token)
            page.wait_for_function("() => ['A', 'B'].every((s) => document.querySelector(`#video-${s}`).readyState >= 2)")
            first = page.evaluate(IN_VIEW)
            opened = page.eval_on_selector("#instructions", "d => d.open")
            screenshot(page, tmp_path, f"{screen}-first-task")
            watch_twice(page, keyboard=not touch)
            page.check("input[name=winner][value='A']")
            page.select_option("#primary_tag", "flicker")
            steps = {}
            parts = ["#winner-set", "#primary_tag", "#secondary", "#ratings tbody tr", "#note"]
            for selector in parts:
                for i in range(page.locator(selector).count()):
                    page.locator(selector).nth(i).evaluate("e => e.scrollIntoView({block: 'nearest'})")
                    facts = page.evaluate(IN_VIEW)
                    facts["part"] = page.locator(selector).nth(i).evaluate("e => e.getBoundingClientRect().toJSON()")
                    facts["stage"] = {"bottom": max(box(page, "#players")["bottom"], box(page, "#transport")["bottom"])}
                    steps[f"{selector}[{i}]"] = facts
                    if selector == "#ratings tbody tr" and i == 2:
                        screenshot(page, tmp_path, f"{screen}-rating")
            end = page.evaluate("document.documentElement.scrollHeight - innerHeight")
            for y in range(0, end + 1, 97):  # and at every scroll position, not only where the page scrolled a part to
                page.evaluate(f"window.scrollTo(0, {y})")
                steps[f"scrolled to {y}"] = page.evaluate(IN_VIEW)
    assert opened is True  # a rater's first task: "How to judge" open, and still both clips on the first screen
    assert_in_view(first, "first screen")
    assert first["bar"]["bottom"] <= height and first["bar"]["height"] <= 64, first["bar"]  # compact: two short lines at most
    for where, facts in steps.items():
        assert_in_view(facts, where)
    for where, facts in steps.items():
        if "part" in facts:  # the part brought into view lies between the stuck players and the bar, wholly visible
            assert facts["stage"]["bottom"] <= facts["part"]["top"] + 1 and facts["part"]["bottom"] <= facts["bar"]["top"] + 1, (
                where, facts["part"], facts["stage"], facts["bar"])
    assert len(steps) > 10 and end > 0


@pytest.mark.parametrize("screen, touch, least", [("phone", True, 44), ("laptop", True, 44), ("laptop", False, 24)])
def test_every_control_is_44_px_on_a_touch_screen_and_24_px_to_a_mouse(tmp_path, browser, screen, touch, least):
    """A touch screen of any size gets 44 × 44 px targets; a mouse at least WCAG 2.2's 24 × 24 px. "How to judge" is one
    of them, and a click on it closes and opens it. Measured before: on a laptop 66 controls were under 44 px (Play
    67×21), and "How to judge" was a 22 px line on a phone."""
    width, height, _ = SCREENS[screen]
    ws = make_study(tmp_path, n_pairs=1)
    token = invite(ws, "ann")
    with sized(browser, width, height, touch) as page:
        with running_server(ws) as url:
            open_task(page, url, token)
            coarse = page.evaluate("matchMedia('(pointer: coarse)').matches")
            controls = page.evaluate(CONTROLS, TARGETS + ", #instructions summary")
            screenshot(page, tmp_path, f"{screen}-{'touch' if touch else 'mouse'}")
            toggled = []  # "How to judge": open on the first task, closed and opened again by its summary
            for _ in range(2):
                page.click("#instructions summary")
                toggled.append(page.eval_on_selector("#instructions", "d => d.open"))
    small = [c for c in controls if c["width"] < least or c["height"] < least]
    assert coarse is touch and len(controls) > 60 and small == [], small
    assert any(c["name"] == "How to judge" for c in controls) and any(c["name"] == "play" for c in controls)
    assert toggled == [False, True]


GROUPS = """() => [...document.querySelectorAll('#secondary label')].filter((l) => l.offsetParent !== null).map((l) => {
    let title = l.previousElementSibling;
    while (title && !title.classList.contains('group')) title = title.previousElementSibling;
    const r = l.getBoundingClientRect(), t = title.getBoundingClientRect();
    return {tag: l.querySelector('input').value, group: title.textContent, left: r.left, title_left: t.left, top: r.top,
            title_top: t.top}; })"""
OFFERED = """() => ({
    secondary: [...document.querySelectorAll('#secondary input[name=secondary]')].filter((i) => i.offsetParent !== null)
      .map((i) => i.value),
    primary: [...document.querySelectorAll('#primary_tag option')].filter((o) => o.value && !o.hidden && !o.parentElement.hidden)
      .map((o) => o.value)})"""


@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_each_tag_group_stays_whole_in_one_column(tmp_path, browser, screen):
    """Each tag lies under its own group's title, in that title's column (the "Temporal / identity" group once split
    across the two columns of secondary reasons: its title at the foot of one, its tags at the head of the next)."""
    width, height, touch = SCREENS[screen]
    ws = make_study(tmp_path, n_pairs=1)
    token = invite(ws, "ann")
    with sized(browser, width, height, touch) as page:
        with running_server(ws) as url:
            open_task(page, url, token)
            page.check("input[name=winner][value='B']")
            layout = page.evaluate(GROUPS)
            page.locator("#secondary").scroll_into_view_if_needed()
            screenshot(page, tmp_path, f"{screen}-reasons")
    assert [g["tag"] for g in layout if g["group"] == "Temporal / identity"] == ["flicker", "entity_drift", "identity_swap",
                                                                                 "scene_reset"]
    for tag in layout:
        assert abs(tag["left"] - tag["title_left"]) <= 16 and tag["top"] > tag["title_top"], tag


def test_tie_reasons_are_offered_only_for_a_tie(tmp_path, page):
    """The tie's reasons (secondary boxes and primary options) are offered only for a tie, a loser's failures only
    otherwise (and before a choice); a reason already chosen stays on show whatever the winner, so the rater sees it,
    with its message, and can undo it."""
    ws = make_study(tmp_path, n_pairs=1)
    token = invite(ws, "ann")
    protocol = ws.protocol.public()
    loser = [t["id"] for g in protocol["tag_groups"] if not g.get("families") and g.get("scope", "loser") == "loser"
             for t in g["tags"]]
    tie = [t["id"] for g in protocol["tag_groups"] if g.get("scope") == "tie" for t in g["tags"]]
    with running_server(ws) as url:
        open_task(page, url, token)
        seen = {"none": page.evaluate(OFFERED)}
        for winner in ("A", "tie", "B"):
            page.check(f"input[name=winner][value='{winner}']")
            seen[winner] = page.evaluate(OFFERED)
        page.check("input[name=secondary][value='flicker']")  # chosen with winner B, then the rater picks a tie
        page.check("input[name=winner][value='tie']")
        seen["tie, flicker chosen"] = page.evaluate(OFFERED)
        page.keyboard.press("Control+Enter")
        said = violations(page)
    assert len(loser) == 10 and len(tie) == 2
    for name in ("none", "A", "B"):
        assert seen[name] == {"secondary": loser, "primary": loser}, (name, seen[name])
    assert seen["tie"] == {"secondary": tie, "primary": tie}
    assert seen["tie, flicker chosen"]["secondary"] == ["flicker", "entity_drift", "identity_swap", "scene_reset", *tie]
    assert any("A tie has no loser: “Flicker / temporal jitter”" in v for v in said), said


def refuse_first(page, pattern, refusals, status=429, retry_after="2"):
    """Answer the first requests matching ``pattern`` with ``status`` and ``Retry-After``: ``refusals`` lists which (by
    method, in order, e.g. ["GET", "HEAD"]); every other request goes on to the server. The times seen, by method."""
    seen: list[tuple[str, float, int]] = []
    todo = list(refusals)

    def answer(route):
        method = route.request.method
        if todo and todo[0] == method:
            todo.pop(0)
            seen.append((method, time.monotonic(), status))
            route.fulfill(status=status, headers={"Retry-After": retry_after, "Content-Type": "text/plain"}, body="slow down")
        else:
            seen.append((method, time.monotonic(), 0))
            route.continue_()

    page.route(pattern, answer)
    return seen


@pytest.mark.parametrize("refused", [("GET", "HEAD"), ("GET",)], ids=["still-refused", "refusal-passed"])
def test_a_clip_refused_with_429_says_so_and_loads_again_after_retry_after(tmp_path, page, refused):
    """A clip refused with 429 and still refused: the page says so and loads it again after Retry-After, by itself;
    refused once only: the page loads it again at once, never blaming the browser (it once said "your browser could
    not play it", the refusal having passed by the page's HEAD, and did not try again)."""
    ws = make_study(tmp_path, n_pairs=1)
    token = invite(ws, "ann")
    seen = refuse_first(page, "**/api/r/*/clip/*/A", refused)
    with running_server(ws) as url:
        page.goto(f"{url}/r/{token}")
        page.wait_for_selector("#task:not([hidden])")
        messages = []
        if refused == ("GET", "HEAD"):
            page.wait_for_selector("#clip-error-A:not([hidden])", timeout=15000)
            messages.append(page.inner_text("#clip-error-A"))
            messages.append(page.inner_text("#lock-reason"))
        page.wait_for_function("() => document.querySelector('#video-A').readyState >= 2", timeout=20000)  # no click
        hidden = page.eval_on_selector("#clip-error-A", "e => e.hidden")
        watch_twice(page)
    assert hidden is True and not any("your browser" in m for m in messages)
    gets = [at for method, at, status in seen if method == "GET" and not status]
    if refused == ("GET", "HEAD"):
        said = re.match(r"Clip A could not be loaded: the server is limiting requests \(429\)\. Trying again in (\d) s",
                        messages[0])
        assert said and said[1] in "23", messages  # Retry-After 2, up to a fifth more (raters behind one address spread out)
        assert "Clip A is tried again by itself." in messages[1]
        head_refused = next(at for method, at, status in seen if method == "HEAD")
        assert gets and gets[0] - head_refused >= 1.9  # after the server's Retry-After (2 s), not before
    else:
        assert gets and [m for m, _, _ in seen][:3] == ["GET", "HEAD", "GET"]  # asked why, then loaded again at once


def test_a_refused_script_and_stylesheet_say_so_and_load_again(tmp_path, page):
    """The page's own loader (in rater.html) says which file did not load and why, and fetches it again after
    Retry-After (a 429 on rater.js once left "loading…" for good, with no message; a 429 on rater.css an unstyled page
    without its Submit bar)."""
    ws = make_study(tmp_path, n_pairs=1)
    token = invite(ws, "ann")
    script = refuse_first(page, re.compile(r"/static/rater\.js(\?|$)"), ["GET", "GET"], retry_after="1")
    style = refuse_first(page, re.compile(r"/static/rater\.css(\?|$)"), ["GET"], status=503, retry_after="1")
    with running_server(ws) as url:
        page.goto(f"{url}/r/{token}")
        page.wait_for_function("() => document.querySelector('#net-status').textContent.includes('rater.js')", timeout=15000)
        said = page.inner_text("#net-status")
        page.wait_for_selector("#task:not([hidden])", timeout=20000)
        styled = page.eval_on_selector("#submit-row", "e => getComputedStyle(e).position")
        cleared = page.eval_on_selector("#net-status", "n => n.hidden")
        watch_twice(page)
        fill(page)
        page.click("#submit")
        records = wait_records(ws, 1)
    assert "The page's script (rater.js) did not load: the server is limiting requests (429). Trying again in" in said
    assert [status for _, _, status in script] == [429, 429, 0] and [status for _, _, status in style] == [503, 0]
    assert styled == "sticky" and cleared is True and len(records) == 1
