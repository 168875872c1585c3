"""What a probe reports: its verdict, a score and a reason that names frame ranges and times."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence

import numpy as np

from reeljudge.identity import PROBES_ENGINE, judge_identity
from reeljudge.judging import VIDEO_PROBES
from reeljudge.options import verdict_options
from reeljudge.probes.signals import ClipInfo, Signals

if TYPE_CHECKING:
    from reeljudge.probes.thresholds import Thresholds


@dataclass
class ProbeResult:
    """One probe's verdict; ``gating`` False means it is reported for reference and never fails a clip."""

    name: str
    passed: bool
    score: float
    reason: str
    gating: bool = True
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Plain Python values only (a NumPy scalar in a score or a detail would break promptfoo's JSON)."""
        self.passed = bool(self.passed)
        self.score = float(self.score)
        self.details = plain(self.details)


def too_short(result: ProbeResult, frames: int, needed: int, what: str) -> ProbeResult:
    """``result`` replaced by "too short to judge": the clip's ``frames`` analysed frames are fewer than the
    ``needed`` in which the probe could find ``what`` it looks for; never a pass, gating as the probe's result
    was (a property nobody required stays a report), the whole clip unjudged (``ruined_share`` 1)."""
    reason = (f"too short to judge: {frames} analysed frame(s), and {result.name} needs at least {needed} "
              f"({what}); a clip this short can hide the fault it looks for")
    return ProbeResult(result.name, False, 0.0, reason, gating=result.gating,
                       details={"too_short": True, "frames_analysed": frames, "frames_needed": needed, "ruined_share": 1.0})


def plain(value: Any) -> Any:
    """``value`` with every NumPy scalar inside it (dicts, lists, tuples) turned into its Python value."""
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, tuple):
        return tuple(plain(item) for item in value)
    if isinstance(value, (np.float16, np.float32)):
        return float(str(value))  # its shortest decimal: round(np.float32(x), 3) stays 1.235, not 1.2350000143
    if isinstance(value, np.generic):
        return value.item()
    return value


def runs(flags: Sequence[bool], min_length: int = 1) -> list[tuple[int, int]]:
    """Inclusive (start, end) index ranges where ``flags`` is true for at least ``min_length`` in a row."""
    found: list[tuple[int, int]] = []
    start: int | None = None
    for index, flag in enumerate(list(flags) + [False]):
        if flag and start is None:
            start = index
        elif not flag and start is not None:
            if index - start >= min_length:
                found.append((start, index - 1))
            start = None
    return found


def frame_range(signals: Signals, start: int, end: int) -> str:
    """A frame range with its times, e.g. ``frames 24–31 (1.00–1.29 s)``."""
    t0, t1 = signals.time_of(start), signals.time_of(end)
    if start == end:
        return f"frame {start} ({t0:.2f} s)"
    return f"frames {start}–{end} ({t0:.2f}–{t1:.2f} s)"


def list_ranges(signals: Signals, ranges: Iterable[tuple[int, int]], limit: int = 6) -> str:
    """Several frame ranges, the first ``limit`` spelled out and the rest counted."""
    ranges = list(ranges)
    text = ", ".join(frame_range(signals, a, b) for a, b in ranges[:limit])
    if len(ranges) > limit:
        text += f" and {len(ranges) - limit} more"
    return text


def share_of_clip(signals: Signals, frames: int) -> float:
    """The share of the analysed frames that ``frames`` is (how much of the clip a fault ruins), rounded."""
    return round(frames / max(1, signals.count), 4)


def range_details(signals: Signals, ranges: Iterable[tuple[int, int]]) -> list[dict[str, float | int]]:
    """Frame ranges as JSON-able dicts with start/end frames and times."""
    return [
        {"start_frame": a, "end_frame": b, "start_s": round(signals.time_of(a), 3), "end_s": round(signals.time_of(b), 3)}
        for a, b in ranges
    ]


@dataclass
class ProbesVerdict:
    """Every selected probe's result on one clip, with the clip's facts; iterates over the results.

    ``options``: the ProbeOptions it was probed with; ``clip``: how its reason names the clip.
    """

    results: list[ProbeResult]
    info: ClipInfo | None = None  # container facts and what decoding found
    options: Thresholds | None = None
    clip: str = "the clip"

    @property
    def judged(self) -> bool:
        """Whether any probe could fail the clip (only properties of the shot selected: nothing was checked)."""
        return bool(self.gating)

    def __iter__(self) -> Iterator[ProbeResult]:
        return iter(self.results)

    def __len__(self) -> int:
        return len(self.results)

    @property
    def gating(self) -> list[ProbeResult]:
        """The results that can fail a clip."""
        return [r for r in self.results if r.gating]

    @property
    def failed(self) -> list[ProbeResult]:
        """The gating results that failed."""
        return [r for r in self.gating if not r.passed]

    @property
    def passed(self) -> bool:
        """Whether every gating probe passed (and at least one ran)."""
        return bool(self.gating) and not self.failed

    @property
    def score(self) -> float:
        """1.0 when every gating probe passed, else the lowest failing score."""
        return min((r.score for r in self.failed), default=1.0) if self.failed else 1.0

    def by_name(self) -> dict[str, ProbeResult]:
        """The results keyed by probe name."""
        return {r.name: r for r in self.results}

    def reason(self, clip: str | None = None) -> str:
        """The verdict on ``clip`` (how it is named; ``self.clip`` when not given) in one line: how many checks
        failed and why, or that nothing was checked (only properties of the shot were selected, and no
        requirement on them)."""
        clip = clip or self.clip
        if not self.gating:
            properties = ", ".join(r.name for r in self.results) or "none"
            return (f"video probes on {clip}: nothing was checked: the selected probes ({properties}) report properties of the "
                    "shot and fail nothing unless a requirement is set (expect_motion, motion_from_prompt, "
                    "min_dynamic_degree, min_smoothness)")
        failed = self.failed
        head = (f"video probes on {clip}: "
                + (f"{len(failed)} of {len(self.gating)} checks failed" if failed else f"all {len(self.gating)} checks passed"))
        return head + "".join(f"; FAIL {r.name}: {r.reason}" for r in failed)

    def part_reasons(self) -> dict[str, str]:
        """Each probe's reason by name; a probe that only reports says it was not checked."""
        return {r.name: r.reason if r.gating else f"(reported, not checked) {r.reason}" for r in self.results}

    def part_status(self) -> dict[str, bool]:
        """The checks (gating probes): whether each passed; a probe that only reports is not marked."""
        return {r.name: r.passed for r in self.results if r.gating}

    def named_scores(self) -> dict[str, float]:
        """Each probe's score by its name."""
        return {r.name: r.score for r in self.results}

    def tokens_used(self) -> None:
        """None: the probes are offline."""
        return None

    def identity(self) -> dict[str, Any]:
        """Who judged: the probes, with the options that change verdicts (those set away from their defaults)."""
        return judge_identity(VIDEO_PROBES.name, PROBES_ENGINE, options=verdict_options(self.options))

    def metadata(self) -> dict[str, Any]:
        """The clip's facts (and what bounded its decoding), each probe's result and details."""
        metadata: dict[str, Any] = {"judge": VIDEO_PROBES.name}
        if self.info is not None:
            metadata["clip_info"] = self.info.as_metadata()
            if self.info.capped:
                metadata["bounded"] = self.info.capped
        if not self.judged:
            metadata["judged"] = False
        metadata["probes"] = {r.name: {"passed": r.passed, "gating": r.gating, "score": r.score, **r.details}
                              for r in self.results}
        return metadata
