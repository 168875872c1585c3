"""The planner a judge client gets from the batch layer: in cache mode ``plan``, the one that
records a missed request for the Gemini Batch API (``reeljudge.batch.plan``); otherwise none.

Judges make their client with ``judge_client(settings)``: the one constructor of a judge client with
its planner. This module imports nothing at load time, so a cache hit outside plan mode loads no batch code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - typing only
    from reeljudge.gemini.client import JudgeClient, Planner
    from reeljudge.gemini.settings import JudgeSettings


def planner_for(settings: "JudgeSettings") -> "Planner | None":
    """The batch planner when ``settings`` put the cache in mode ``plan``, else None."""
    if settings.cache_mode != "plan":
        return None
    from reeljudge.batch.plan import plan_request

    return plan_request


def judge_client(settings: "JudgeSettings", **fields: Any) -> "JudgeClient":
    """A judge client under ``settings`` with the planner they call for (``fields``: JudgeClient's others, e.g. ``cache``)."""
    from reeljudge.gemini.client import JudgeClient

    return JudgeClient(settings, planner=planner_for(settings), **fields)
