"""The rating page in a real headless Chromium (Debian's package, driven by Playwright)."""

from __future__ import annotations

import hashlib
import os
import time
from contextlib import contextmanager

import pytest

from support.ab_study import CHROMIUM, CHROMIUM_ARGS, invite, make_study, running_server
from reeljudge.ab.assignment import side_swap

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
            page.evaluate("() => { for (const v of document.querySelectorAll('#players video')) { v.pause(); "
                          "v.currentTime = 0; } }")
        plays = page.evaluate("window.reeljudgeAB.state().plays")
    assert plays == {"A": 2, "B": 2}


def test_the_page_says_why_submit_is_locked_and_shows_the_anchors_on_a_laptop_screen(tmp_path, page):
    """Issue 19, finding 10: no reason for a locked Submit, anchors only in a tooltip, an unlabelled counter, the form below the
    players."""
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


# ---- issue 39: a phone, a laptop screen, keyboard, clips that fail, a busy server, a withdrawn task ------------------

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
def sized(browser, width, height):
    """A page of the shared browser with its window at ``width`` × ``height``, closed after."""
    page = browser.new_page()
    page.set_viewport_size({"width": width, "height": height})
    try:
        yield page
    finally:
        page.close()


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
            for side in "AB":
                video = box(page, f"#video-{side}")
                assert video["width"] >= 350 and video["height"] >= 190, video  # the whole width, not 171×150
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
    """Issue 39, item 1, on the page: a late submit (the hold expired, the pair went to others) moves the rater on."""
    import httpx

    from reeljudge.ab.assignment import QCOptions
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
