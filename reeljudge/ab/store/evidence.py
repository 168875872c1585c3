"""Server-side evidence of watching: which bytes of each clip the server sent, and how long the task was open.

The page's watch log is the rater's own account; this is the server's. Every clip response that
was sent to the end adds its byte spans to the task's coverage of that clip: merged intervals, at
most ``MAX_INTERVALS`` of them, and a response count, one row per (task, clip) however many
requests come. At submit, each
clip must have been sent in full for this task, and the time since the task was handed out must
be at least ``min_full_plays`` × the longer clip's duration ÷ the fastest speed the page offers.
What this cannot prove: that the bytes were decoded and shown, that anyone looked at the screen,
or that a later play did not come from the browser's cache (it usually does). A record that passes
but took less time than real-time viewing at 1× is accepted and flagged ``thin`` for the report.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterable, Mapping, TypedDict

MAX_SPEED = 2.0
#: intervals kept per (task, clip); past it the smallest are dropped, which only ever lowers the credit
MAX_INTERVALS = 32
MAX_RANGES = 16  # ranges one request may ask for (browsers ask for one)
MAX_DIGITS = 18  # a byte position of at most 18 digits (no file is larger); more is malformed


class RangeError(ValueError):
    """A Range header that cannot be satisfied: malformed, too many ranges, or past the end (answer 416)."""


def requested_spans(range_header: str | None, size: int) -> list[tuple[int, int]]:
    """The byte spans (first, last; inclusive) a response to this Range header sends of a ``size``-byte file.

    No header: the whole file. Overlapping and adjacent ranges are merged, sorted. RangeError for a
    header that is not ``bytes=`` ranges of at most 18-digit numbers, asks for more than MAX_RANGES
    ranges, or has a range starting past the end.
    """
    if size <= 0:
        return []
    if not range_header:
        return [(0, size - 1)]
    unit, _, specs = range_header.partition("=")
    if unit.strip().lower() != "bytes" or specs.count(",") >= MAX_RANGES:
        raise RangeError(f"Range must be bytes=first-last, at most {MAX_RANGES} ranges")
    spans = [_span(spec, size) for spec in specs.split(",")]
    return merge_spans(spans)


def _span(spec: str, size: int) -> tuple[int, int]:
    """One ``first-last`` / ``first-`` / ``-suffix`` range of a ``size``-byte file, clipped to it."""
    first, dash, last = (part.strip() for part in spec.partition("-"))  # linear: no regex (one with \s* around an
    # optional number took time quadratic in a header of spaces)
    if not dash or first == last == "" or not all(_digits(part) for part in (first, last)):
        raise RangeError(f"malformed range {spec[:40]!r}")
    if first == "":
        start, end = max(0, size - int(last)), size - 1
        if int(last) == 0:
            raise RangeError("an empty suffix range")
    else:
        start, end = int(first), min(size - 1, int(last)) if last else size - 1
        if last and int(last) < start:
            raise RangeError(f"range {spec[:40]!r} ends before it starts")
    if start >= size:
        raise RangeError(f"range {spec[:40]!r} starts past the end ({size} bytes)")
    return start, end


def _digits(text: str) -> bool:
    """An empty or a number of at most ``MAX_DIGITS`` ASCII digits."""
    return len(text) <= MAX_DIGITS and (text == "" or (text.isascii() and text.isdigit()))


def merge_spans(spans: Iterable[tuple[int, int]], limit: int = MAX_INTERVALS) -> list[tuple[int, int]]:
    """The spans (first, last; inclusive) as sorted disjoint intervals, touching ones joined, at most ``limit``.

    Past ``limit`` the smallest intervals are dropped: the coverage can only shrink, never be inflated.
    """
    merged: list[tuple[int, int]] = []
    for first, last in sorted(spans):
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    if len(merged) > limit:
        merged = sorted(sorted(merged, key=lambda s: s[0] - s[1])[:limit])
    return merged


def covered_bytes(spans: Iterable[tuple[int, int]]) -> int:
    """How many distinct bytes the spans cover."""
    return sum(last - first + 1 for first, last in merge_spans(spans, limit=1 << 62))


@dataclass(frozen=True)
class Evidence:
    """What the server saw of one task: bytes sent per side, seconds open, and what that falls short of."""

    served: Mapping[str, Mapping[str, int]]  # side -> {"bytes": size, "sent": distinct bytes sent, "responses": n}
    elapsed_s: float
    min_elapsed_s: float
    realtime_s: float  # min_full_plays × the longer clip at 1×
    log_flags: tuple[str, ...] = ()  # where the page's watch log does not fit the page or the clips

    def violations(self, min_full_plays: int) -> list[dict[str, str]]:
        """Why a submit must be refused (empty when the evidence is enough)."""
        out = []
        for side, s in self.served.items():
            if s["sent"] < s["bytes"]:
                out.append({"field": "watch", "message": (
                    f"Clip {side} has not been loaded in full from the server for this task ({s['sent']} of {s['bytes']} bytes): "
                    f"play it to the end.")})
        if self.elapsed_s < self.min_elapsed_s:
            out.append({"field": "watch", "message": (
                f"Submitted {self.elapsed_s:.1f} s after the task was handed out; playing both clips {min_full_plays} times "
                f"at up to {MAX_SPEED:g}× takes at least {self.min_elapsed_s:.1f} s. Watch the clips, then submit again.")})
        return out

    def as_dict(self) -> dict[str, Any]:
        """The form stored in the record's ``watch.server``, with ``thin`` reasons for the report."""
        thin = []
        if self.elapsed_s < self.realtime_s:
            thin.append(f"open {self.elapsed_s:.1f} s, less than {self.realtime_s:.1f} s of real-time viewing at 1×")
        thin += self.log_flags
        return {"served": {k: dict(v) for k, v in self.served.items()}, "elapsed_s": round(self.elapsed_s, 3),
                "min_elapsed_s": round(self.min_elapsed_s, 3), "thin": thin}


def gather(
    coverage: Mapping[str, tuple[list[tuple[int, int]], int]], sizes: Mapping[str, int], durations: Mapping[str, float],
    served_at: str, min_full_plays: int, max_speed: float = MAX_SPEED, log: Iterable[Mapping[str, Any]] = (),
) -> Evidence:
    """The evidence from a task's coverage (side → (intervals sent, responses)), clip sizes and durations per side,
    and the hand-out time."""
    served = {}
    for side in sizes:
        spans, responses = coverage.get(side, ([], 0))
        served[side] = {"bytes": sizes[side], "sent": covered_bytes(spans), "responses": responses}
    start = datetime.fromisoformat(served_at.replace("Z", "+00:00"))
    elapsed = (datetime.now(timezone.utc) - start).total_seconds()
    longest = max(durations.values(), default=0.0)
    flags = tuple(log_flags(log, durations, max_speed))
    return Evidence(served, max(0.0, elapsed), min_full_plays * longest / max_speed, min_full_plays * longest, flags)


PLAY_SHARE = 0.85  # the page counts a play when the media time played covers this share of the clip
MAX_FLAGS = 5


def log_flags(log: Iterable[Mapping[str, Any]], durations: Mapping[str, float], max_speed: float = MAX_SPEED) -> list[str]:
    """Where the page's watch log cannot be what the page wrote (at most ``MAX_FLAGS``): a speed above the page's
    limit, or a full play that came sooner after the last one of its clip than playing it at that limit takes."""
    flags, last_play = [], {side: 0.0 for side in durations}
    for i, event in enumerate(log):
        value, at_ms, side = event.get("value"), event.get("at_ms"), event.get("side")
        if (event.get("event") == "rate" and isinstance(value, (int, float)) and not isinstance(value, bool)
            and value > max_speed + 1e-9):
            flags.append(f"watch log event {i}: rate {value:g}× above the page's {max_speed:g}× limit")
        elif event.get("event") == "full_play" and side in last_play and isinstance(at_ms, (int, float)):
            shortest = 1000 * PLAY_SHARE * durations[side] / max_speed
            if at_ms - last_play[side] < shortest - 50:  # 50 ms: the page's clock and events are not exact
                flags.append(f"watch log event {i}: a full play of clip {side} {at_ms - last_play[side]:.0f} ms after the last, "
                             f"shorter than the {shortest:.0f} ms it takes at {max_speed:g}×")
            last_play[side] = float(at_ms)
    return flags[:MAX_FLAGS]


class ThinRecord(TypedDict):
    """A record whose server evidence is thin, and why."""

    record_id: str
    sample_id: str
    reasons: list[str]


class RaterEvidence(TypedDict):
    """One rater's records, those whose server evidence is thin, and how many have none."""

    records: int
    thin: list[ThinRecord]
    without_evidence: int


def evidence_by_rater(records: Iterable[Mapping[str, Any]]) -> dict[str, RaterEvidence]:
    """Per human rater: records, records whose server evidence is thin (with ids and reasons), records without any."""
    out: dict[str, RaterEvidence] = {}
    for r in records:
        entry = out.setdefault(r["rater"]["id"], {"records": 0, "thin": [], "without_evidence": 0})
        entry["records"] += 1
        server = (r.get("watch") or {}).get("server")
        if server is None:
            entry["without_evidence"] += 1
        elif server["thin"]:
            entry["thin"].append({"record_id": r["record_id"], "sample_id": r["sample_id"], "reasons": list(server["thin"])})
    return out
