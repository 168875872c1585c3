"""No request stops the rating server's event loop (issue 46, item 1), held by the server's own loop-lag figure.

Before issue 46 a submit body of ``"`` followed by many ``\\"`` froze the server: the value count ran a
regex over the raw bytes that tried every quote as a string's start, in time quadratic in the body
(16 KB: 1.4 s; at the 512 KiB cap, minutes), holding the interpreter, so no request was answered.
Here adversarial bodies at the cap (escape runs, quotes, deep nesting, long strings, number runs)
and a Range header of spaces go to a server of its own process while an honest rater asks for
tasks; the server's loop-lag figure (``/healthz``: the largest lag of a periodic tick over the last
minute, counted up to the CPU time the server spent meanwhile, so a busy host's own delays are not
the server's) stays within ``loop_lag.BUDGET_MS``. Not a timing of the test: the server measures its loop.
Every loop here is bounded in count and time.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx

from reeljudge.ab.transport.bodies import MAX_BODY, count_values
from reeljudge.ab.transport.loop_lag import BUDGET_MS, LoopLag
from support.ab_study import free_port, invite, make_study, serve_process

CAP = MAX_BODY


def _fill(head: bytes, unit: bytes, tail: bytes = b"") -> bytes:
    """``head``, then ``unit`` repeated, then ``tail``: at most the body cap."""
    return head + unit * ((CAP - len(head) - len(tail)) // len(unit)) + tail


#: bodies at the cap that cost a parser the most: each must be refused (4xx) without holding the loop
ATTACKS = {
    "escape run, unclosed": _fill(b'"', b'\\"'),
    "escape run in a note": _fill(b'{"form": {"note": "', b'\\"', b'"}}'),
    "quotes": _fill(b"", b'"'),
    "backslash pairs and quotes": _fill(b"", b'"\\\\"\\"'),
    "unicode escapes": _fill(b'{"form": {"note": "', b"\\u00e9", b'"}}'),
    "deep arrays": _fill(b"", b"["),
    "deep objects": _fill(b"", b'{"a":'),
    "nesting under the value bound": b"[" * 30_000 + _fill(b"", b" ")[30_000:],
    "number run": _fill(b"[", b"1,", b"1]"),
    "one long integer": _fill(b'{"n": ', b"9", b"}"),
    "one long fraction": _fill(b'{"n": 0.', b"7", b"e5}"),
    "long string": _fill(b'{"form": {"note": "', b"a", b'"}}'),
    "not JSON": _fill(b"", b"\xff\xfe"),
}


def test_adversarial_bodies_at_the_cap_do_not_stall_the_loop_while_an_honest_rater_asks_for_tasks(tmp_path) -> None:
    ws = make_study(tmp_path, 2)
    honest, attacker = invite(ws, "ann"), invite(ws, "mallory")
    port = free_port()
    proc = serve_process(ws.root, port, tmp_path / "server.log", "--rate-per-token", "1000", "--burst-per-token", "1000")
    url, stop, answers = f"http://127.0.0.1:{port}", threading.Event(), []
    try:
        with httpx.Client(timeout=30) as client:
            clip = client.get(f"{url}/api/r/{honest}/task").json()["task"]["clips"]["A"]["url"]

        def rate() -> None:  # the honest rater: at most 400 requests, or until the attacks end
            with httpx.Client(timeout=30) as client:
                for _ in range(400):
                    if stop.is_set():
                        return
                    answers.append(client.get(f"{url}/api/r/{honest}/task").status_code)
                    time.sleep(0.02)

        def attack(name: str) -> tuple[str, int]:
            with httpx.Client(timeout=30) as client:
                response = client.post(f"{url}/api/r/{attacker}/submit", content=ATTACKS[name],
                                       headers={"Content-Type": "application/json"})
            return name, response.status_code

        honest_thread = threading.Thread(target=rate)
        honest_thread.start()
        try:
            with ThreadPoolExecutor(2) as pool:
                refused = dict(pool.map(attack, list(ATTACKS) * 2))
            with httpx.Client(timeout=30) as client:
                spaces = client.get(url + clip, headers={"Range": "bytes=" + " " * 8000 + "x"})
                health = client.get(f"{url}/healthz").json()
        finally:
            stop.set()
            honest_thread.join(60)
    finally:
        proc.kill()
        proc.wait(10)
    assert {name: status for name, status in refused.items() if not 400 <= status < 500} == {}
    assert spaces.status_code == 416
    assert answers and set(answers) == {200}
    lag = health["loop_lag_ms"]
    assert lag["measuring"] and lag["worst_busy_last_minute"] <= BUDGET_MS, lag


def test_the_value_count_is_the_parsers_on_every_body_the_parser_reads() -> None:
    """The single-pass count skips strings as JSON does (escaped quotes, backslash runs) and is never below the values
    a parse builds, so the bound before the parse still bounds it."""
    import json

    def values(item: object) -> int:
        if isinstance(item, dict):
            return 1 + sum(1 + values(v) for v in item.values())
        if isinstance(item, list):
            return 1 + sum(values(v) for v in item)
        return 1

    bodies = [b'{"a": "x,y:[{", "b": [1, 2, {"c": "\\\\"}], "d": "\\"[,"}', b'[]', b'{"e": "\\\\\\"", "f": {}}',
              b'"a\\\\\\\\"', b'{"g": ["\\u0022,", "\\\\", 3]}']
    for body in bodies:
        assert count_values(body) >= values(json.loads(body)), body
    assert count_values(b'{"a": "x,y:[{"}') == 3 and count_values(b'{"a": "\\"", "b": "\\\\"}') == 5
    assert count_values(b'"never closed, [1, 2]') == 1  # an unclosed string holds the rest, as a parser reads it


def test_the_lag_figure_keeps_the_largest_lag_of_the_last_minute_and_the_share_the_server_was_busy() -> None:
    lag = LoopLag()
    lag.note(0.0, 2.0, 1.9)  # the server's own work held the loop
    lag.note(30.0, 0.5, 0.001)  # the host did not run the server
    figure = lag.figure()["loop_lag_ms"]
    assert (figure["worst_last_minute"], figure["worst_busy_last_minute"], figure["last"]) == (2000.0, 1900.0, 500.0)
    lag.note(61.0, 0.02, 0.5)
    figure = lag.figure()["loop_lag_ms"]
    assert (figure["worst_last_minute"], figure["worst_busy_last_minute"]) == (500.0, 20.0)


def test_ab_status_shows_the_lag_figure_the_server_last_wrote(tmp_path, capsys) -> None:
    import json

    from reeljudge.ab.transport.loop_lag import FILE_NAME
    from reeljudge.cli import main

    ws = make_study(tmp_path, 1)
    assert main(["ab", "status", "--data", str(ws.root)]) == 0
    assert json.loads(capsys.readouterr().out)["server"] is None  # no server has run there
    lag = LoopLag(ws.root / FILE_NAME)
    lag.note(0.0, 0.3, 0.2)
    lag._write(lag.figure())
    assert main(["ab", "status", "--data", str(ws.root)]) == 0
    server = json.loads(capsys.readouterr().out)["server"]
    assert server["loop_lag_ms"]["worst_busy_last_minute"] == 200.0 and server["written_at"]


def test_the_storable_text_check_costs_memory_by_the_body_not_by_its_longest_key_times_its_values() -> None:
    """Found in issue 46's sweep: the check copied each value's whole path, so a long key over many values cost their
    product — a 100 KB key over 2,000 values 200 MB; at the body cap (a 440 KB key over 32,000 values) 14 GB."""
    import json
    import tracemalloc

    from reeljudge.ab.transport.bodies import parse_bounded, unstorable_field

    body = parse_bounded(json.dumps({"form": {"note": ["fine", "bad\u0000"]}, "k" * 100_000: [0] * 2_000}).encode())
    tracemalloc.start()
    try:
        found = unstorable_field(body)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found == "form.note[1]" and peak < 4_000_000, peak
    assert unstorable_field({"k" * 100: {"\ud800": 1}}) == "k" * 40  # a path names a key by its first 40 characters
