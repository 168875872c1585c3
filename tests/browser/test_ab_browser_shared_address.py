"""A rater's page in a real headless Chromium behind an address whose bucket a tokenless flood emptied: the page's
stylesheet and script are not charged to the address, so the page loads whole (charged, they were refused with 429:
Chromium stayed at "loading…" or drew the page unstyled). The flood is bounded in count and time and stops by itself.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from reeljudge.ab.transport.fair_share import RateLimits
from support.ab_study import invite, make_study, running_server
from test_ab_browser import browser  # noqa: F401  # the same folder: the module's Chromium fixture

pytestmark = pytest.mark.browser


def _flood(url: str, until: threading.Event, seconds: float) -> list[int]:
    """Tokenless requests from 127.0.0.1 (Chromium's address) on 8 connections, as fast as answered and ignoring
    Retry-After, until ``until`` is set (``seconds`` at most); their statuses."""
    statuses: list[int] = []
    stop = time.monotonic() + seconds

    def client() -> None:
        with httpx.Client(timeout=30) as http:
            while time.monotonic() < stop and not until.is_set():
                statuses.append(http.get(f"{url}/static/rater.css").status_code)

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda _: client(), range(8)))
    return statuses


def test_pages_load_whole_while_a_tokenless_flood_empties_their_address_bucket(browser, tmp_path):  # noqa: F811
    ws = make_study(tmp_path, n_pairs=3)
    tokens = [invite(ws, f"office{i}") for i in range(3)]
    done = threading.Event()
    with running_server(ws, rates=RateLimits(rate_per_address=1, burst_per_address=3)) as url:
        flood = threading.Thread(target=lambda: statuses.extend(_flood(url, done, 60.0)))
        statuses: list[int] = []
        flood.start()
        try:
            time.sleep(1.0)  # the flood is past the address's burst of 3
            shown = []
            for token in tokens:
                page = browser.new_page()
                try:
                    page.goto(f"{url}/r/{token}")
                    page.wait_for_selector("#task:not([hidden])", timeout=20000)
                    styled = page.evaluate("() => [...document.styleSheets].some(s => s.cssRules.length > 0)")
                    shown.append((styled, page.evaluate("() => !!window.reeljudgeAB")))
                finally:
                    page.close()
        finally:
            done.set()
            flood.join(60)
    assert 429 in statuses  # the address's bucket was empty while the pages loaded
    assert shown == [(True, True)] * 3
