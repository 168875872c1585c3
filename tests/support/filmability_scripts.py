"""Fake-server scripts for the filmability judge (test support)."""

from __future__ import annotations

from typing import Any


def judgement(r: int, f: int, v: int) -> dict[str, Any]:
    """A filmability judge's answer: relevance ``r``, filmability ``f``, variety ``v`` (one abstract term when ``f`` < 3)."""
    return {"breakdown": {"relevance": r, "filmability": f, "variety": v},
            "criterionReasons": {"relevance": "scripted", "filmability": "scripted", "variety": "scripted"},
            "unfilmableTerms": [] if f == 3 else ["efficiency"], "points": r + f + v, "score": 1.0, "reason": "scripted"}
