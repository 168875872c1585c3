"""The planner a judge client gets from the batch layer: in cache mode ``plan``, the one that
records a missed request for the Gemini Batch API (``reeljudge.batch.plan``); otherwise none.

Judges make their client as ``JudgeClient(settings, planner=planner_for(settings))``. This module
imports nothing itself, so a cache hit outside plan mode loads no batch code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover - typing only
    from reeljudge.gemini.client import Planner
    from reeljudge.gemini.settings import JudgeSettings


def planner_for(settings: "JudgeSettings") -> "Planner | None":
    """The batch planner when ``settings`` put the cache in mode ``plan``, else None."""
    if settings.cache_mode != "plan":
        return None
    from reeljudge.batch.plan import plan_request

    return plan_request
