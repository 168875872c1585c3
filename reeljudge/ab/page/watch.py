"""The page's watch log as the server takes it: the one shape the page writes, within what the page can write.

The rating page (``static/rater.js``) logs each player event as ``{"side", "event", "t", "at_ms", "value"}``
and keeps the latest ``MAX_EVENTS`` of a task. A posted log is taken only in that shape: ``watch`` an object
whose ``log`` is a list of at most ``MAX_EVENTS`` objects with exactly those keys, ``side`` one of
``SIDES_LOGGED``, ``event`` one of ``EVENTS``, ``t`` and ``at_ms`` numbers within the clip and the session,
``value`` a number (|value| ≤ ``MAX_VALUE``), true, false or null; no number larger than ``MAX_NUMBER``
(checked before any conversion: a 401-digit integer was a 500). Anything else — a number or null for the
log, an event given as a list, a string value, an unknown key — is a violation (the submit's 422), never
skipped and never a server error. What is stored is bounded by it: ``t`` to the millisecond, ``at_ms`` whole,
about 80 bytes an event, so a record stays under ``records.MAX_RECORD_BYTES``.
"""

from __future__ import annotations

from typing import Any, Mapping

from reeljudge.ab.store.protocol import SIDES

EVENTS = ("play", "pause", "seek", "ended", "full_play", "rate", "step", "loop")
SIDES_LOGGED = ("A", "B", "both")
KEYS = frozenset({"side", "event", "t", "at_ms", "value"})
MAX_EVENTS = 500
MAX_AT_MS = 7 * 24 * 3600 * 1000  # a page open longer than a week is not a rating session
MAX_VALUE = 1e6
#: the largest size of any number in a log, checked before it is converted (a 401-digit integer overflows a float)
MAX_NUMBER = 1e15
SLACK_S = 0.1  # a media clock may read a little past the last frame
MAX_PROBLEMS = 5

Problems = list[dict[str, str]]


def read_watch(raw: Any, durations: Mapping[str, float]) -> tuple[dict[str, Any], Problems]:
    """The log as it will be stored, full plays counted per side, and the violations (at most ``MAX_PROBLEMS``)."""
    if raw is None:
        raw = {"log": []}
    if not isinstance(raw, dict) or not isinstance(raw.get("log", []), list):
        return _empty(), [_problem("watch must be an object whose log is a list of player events")]
    events = raw.get("log", [])
    if len(events) > MAX_EVENTS:
        return _empty(), [_problem(f"the watch log holds {len(events)} events; the page sends at most {MAX_EVENTS} (its latest)")]
    log, problems = [], []
    for i, event in enumerate(events):
        item, problem = _event(i, event, durations)
        if problem:
            problems.append(_problem(problem))
        else:
            log.append(item)
    plays = {side: sum(1 for e in log if e["side"] == side and e["event"] == "full_play") for side in SIDES}
    return {"full_plays": plays, "log": log}, problems[:MAX_PROBLEMS]


def _event(i: int, event: Any, durations: Mapping[str, float]) -> tuple[dict[str, Any], str | None]:
    """One event as stored, or why it is refused."""
    where = f"watch log event {i}"
    if not isinstance(event, dict):
        return {}, f"{where}: must be an object with side, event, t, at_ms and value"
    unknown = sorted(str(k)[:20] for k in event if k not in KEYS)
    if unknown:
        return {}, f"{where}: unknown field(s) {', '.join(unknown)}"
    side, kind, value = event.get("side"), event.get("event"), event.get("value")
    if not isinstance(side, str) or side not in SIDES_LOGGED:
        return {}, f"{where}: side must be one of {', '.join(SIDES_LOGGED)}"
    if not isinstance(kind, str) or kind not in EVENTS:
        return {}, f"{where}: event must be one of {', '.join(EVENTS)}"
    if not all(_number(event.get(k)) for k in ("t", "at_ms")):
        return {}, f"{where}: t and at_ms must be numbers (at most {MAX_NUMBER:g} in size)"
    if not (value is None or isinstance(value, bool) or (_number(value) and abs(value) <= MAX_VALUE)):
        return {}, f"{where}: value must be a number (at most {MAX_VALUE:g} in size), true, false or null"
    t, at_ms = float(event["t"]), float(event["at_ms"])
    bound = durations.get(side, max(durations.values(), default=0.0)) + SLACK_S
    if not (0 <= t <= bound and 0 <= at_ms <= MAX_AT_MS):
        return {}, (f"{where}: t = {t:g} s and at_ms = {at_ms:g} must lie within the clip (0 to {bound - SLACK_S:.2f} s) "
                    f"and the session (0 to {MAX_AT_MS} ms)")
    return {"side": side, "event": kind, "t": round(t, 3), "at_ms": int(at_ms), "value": value}, None


def _number(value: Any) -> bool:
    """An int or float, not a bool, of at most ``MAX_NUMBER`` in size (the body parser already refused NaN and Infinity;
    an int of any length compares with a float exactly, without conversion)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and -MAX_NUMBER <= value <= MAX_NUMBER


def _problem(message: str) -> dict[str, str]:
    return {"field": "watch", "message": message}


def _empty() -> dict[str, Any]:
    return {"full_plays": {side: 0 for side in SIDES}, "log": []}


def play_problems(watch: Mapping[str, Any], minimum: int) -> Problems:
    """A violation per clip the page did not report played to the end ``minimum`` times."""
    return [_problem(f"Play clip {side} to the end {minimum} times before submitting (so far {n}).")
            for side, n in watch["full_plays"].items() if n < minimum]
