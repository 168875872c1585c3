"""The explicit "not judged" result of a judge's Python face: no score, never a pass.

A typed face (``reeljudge.judge_terms``, ``reeljudge.score_gecko``) returns its judge's verdict
when the judge judged, and a :class:`NotJudged` when it did not (no credentials, an API error, a
refused or ambiguous reply, a missing clip): ``judged`` tells them apart, ``passed`` is always
False and ``score`` None, ``kind`` and ``reason`` say what happened.
"""

from __future__ import annotations

from dataclasses import dataclass

from reeljudge.errors import ReelJudgeError


@dataclass(frozen=True)
class NotJudged:
    """A judgement that did not happen, and why."""

    judge: str
    kind: str
    reason: str
    raw: str | None = None

    judged = False
    passed = False
    score = None

    @classmethod
    def from_error(cls, judge: str, error: ReelJudgeError) -> "NotJudged":
        """The not-judged result for a judge error."""
        raw = error.raw if error.raw is None or isinstance(error.raw, str) else repr(error.raw)
        return cls(judge, error.kind, error.message, raw)
