"""A rater's page behind a shared address (issue 46, item 3), over real HTTP on 127.0.0.1.

The page's stylesheet and script carried no token, so they were charged to the address's bucket, and a token the server
had not seen yet was learnt only once that bucket admitted the request: 64 tokenless connections from the raters' address
(a NAT, an office) refused the page and its scripts with 429, and 60 raters of one classroom opening their links at once
broke 23 pages. Now the page names its files under the rater's token, they are served from memory with long-lived
headers and charged to the token's bucket for static files, and a valid token is recognised on its first request. Every
loop is bounded in count and time.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx

from reeljudge.ab.transport.fair_share import RateLimits
from reeljudge.ab.page.server import STATIC_DIR
from support.ab_study import byte_study, invite, make_study, running_server

#: the page's references to its files, under the token and at their version
_ASSET = re.compile(r'(?:href|src)="(/r/[^"/]+/static/([a-z.]+)\?v=[0-9a-f]{12})"')


def _assets(page: str) -> dict[str, str]:
    """The page's static files: name -> the URL it names them by."""
    return {name: url for url, name in _ASSET.findall(page)}


def _drain(url: str, source: str, until: threading.Event, seconds: float) -> list[int]:
    """Tokenless requests (the shared stylesheet, an invented link) from ``source`` on 8 connections, as fast as answered,
    ignoring Retry-After, until ``until`` is set (``seconds`` at most); every answer's status."""
    statuses: list[int] = []
    stop = time.monotonic() + seconds

    def client(i: int) -> None:
        path = "/static/rater.css" if i % 2 else "/r/nobody-has-this-link"
        with httpx.Client(transport=httpx.HTTPTransport(local_address=source), timeout=30) as http:
            while time.monotonic() < stop and not until.is_set():
                statuses.append(http.get(url + path).status_code)

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(client, range(8)))
    return statuses


def test_a_tokenless_flood_from_the_address_never_refuses_a_rater_with_a_valid_link(tmp_path):
    """The address's bucket emptied by a tokenless flood from the raters' own address: a rater opening a link for the first
    time gets the page, its stylesheet and script, and a task while the flood goes on."""
    ws = make_study(tmp_path, n_pairs=2)
    token = invite(ws, "ann")
    rates = RateLimits(rate_per_address=2, burst_per_address=5)
    source = "127.0.0.90"
    flooding_done = threading.Event()
    with running_server(ws, rates=rates) as url, ThreadPoolExecutor(1) as pool:
        flood = pool.submit(_drain, url, source, flooding_done, 60.0)
        try:
            time.sleep(1.0)  # the flood is past the address's burst of 5
            with httpx.Client(transport=httpx.HTTPTransport(local_address=source), timeout=30) as rater:
                page = rater.get(f"{url}/r/{token}")
                files = {name: rater.get(url + path) for name, path in _assets(page.text).items()}
                task = rater.get(f"{url}/api/r/{token}/task")
            during = not flood.done()
        finally:
            flooding_done.set()
        statuses = flood.result()
    assert during
    assert 429 in statuses  # the flood did empty the address's bucket
    assert page.status_code == 200, page.text[:200]
    assert sorted(files) == ["rater.css", "rater.js"]
    assert {name: (r.status_code, r.content) for name, r in files.items()} == {
        name: (200, (STATIC_DIR / name).read_bytes()) for name in files}
    assert task.status_code == 200 and task.json()["task"] is not None


def test_static_files_are_cached_and_do_not_draw_on_the_tasks_bucket(tmp_path):
    """A page reloaded many times costs its rater nothing of the bucket the tasks need: the files come from the token's
    bucket for static files, a browser keeps them a year at their version (ETag, 304 when asked again), gzip when taken."""
    ws = make_study(tmp_path, n_pairs=2)
    token = invite(ws, "bob")
    rates = RateLimits(rate_per_token=0.2, burst_per_token=4)
    with running_server(ws, rates=rates) as url, httpx.Client(timeout=30) as rater:
        page = rater.get(f"{url}/r/{token}")
        assets = _assets(page.text)
        answers = [rater.get(url + path) for _ in range(10) for path in assets.values()]  # 20 file requests, a bucket of 4
        again = rater.get(url + assets["rater.js"], headers={"If-None-Match": answers[-1].headers["etag"]})
        task = rater.get(f"{url}/api/r/{token}/task")
        shared = rater.get(f"{url}/static/rater.js", headers={"Accept-Encoding": "identity"})
        stranger = rater.get(url + assets["rater.js"].replace(token, "x" + token[1:]))
    assert page.status_code == 200 and page.headers["cache-control"] == "no-store"
    assert {a.status_code for a in answers} == {200}
    assert all("immutable" in a.headers["cache-control"] and "max-age=31536000" in a.headers["cache-control"] for a in answers)
    assert answers[0].headers.get("content-encoding") == "gzip"  # httpx asks for gzip and unpacks it
    assert again.status_code == 304
    assert task.status_code == 200 and task.json()["task"] is not None  # the 2nd request of a bucket of 4
    assert shared.status_code == 200 and shared.content == (STATIC_DIR / "rater.js").read_bytes()
    assert shared.headers["cache-control"] == "no-cache" and shared.headers["etag"]
    assert stranger.status_code == 404


async def _open_link(url: str, token: str, source: str, delay: float) -> list[int | str]:
    """One rater opening an invite link as a browser does after ``delay`` seconds: the page, then its stylesheet, script and
    task at once on up to 6 connections, then the first bytes of both clips; every status (an error's name if none)."""
    await asyncio.sleep(delay)
    transport = httpx.AsyncHTTPTransport(local_address=source, limits=httpx.Limits(max_connections=6))
    async with httpx.AsyncClient(transport=transport, timeout=60) as browser:
        try:
            page = await browser.get(f"{url}/r/{token}")
            named = re.findall(r'(?:href|src)="(/[^"]*static/[^"]+)"', page.text)  # what a browser would fetch, named as named
            paths = [*named, f"/api/r/{token}/task"]
            answers = await asyncio.gather(*(browser.get(url + path) for path in paths))
            task = answers[-1].json()["task"] if answers[-1].status_code == 200 else None
            clips = [] if task is None else await asyncio.gather(*(
                browser.get(url + task["clips"][side]["url"], headers={"Range": "bytes=0-1023"}) for side in ("A", "B")))
        except httpx.HTTPError as error:
            return [type(error).__name__]
    statuses: list[int | str] = [page.status_code, *(a.status_code for a in answers), *(c.status_code for c in clips)]
    return statuses if len(paths) == 3 and task is not None else [*statuses, "broken"]


def test_a_classroom_of_100_raters_behind_one_address_all_get_a_working_page(tmp_path):
    """100 raters of one classroom (one address) opening their links within a second: every page, stylesheet, script, task
    and both clips answered (60 at once broke 23 pages: the files were charged to the address's bucket)."""
    ws = byte_study(tmp_path / "study", 4096, n_pairs=60)  # clips of bytes: served, never played
    tokens = [invite(ws, f"pupil{i:03d}") for i in range(100)]

    async def classroom(url: str) -> list[list[int | str]]:
        return list(await asyncio.gather(*(_open_link(url, token, "127.0.0.91", i / 100) for i, token in enumerate(tokens))))

    with running_server(ws) as url:
        results = asyncio.run(asyncio.wait_for(classroom(url), 240))
    broken = [r for r in results if r != [200, 200, 200, 200, 206, 206]]
    assert broken == [], (len(broken), broken[:5])
