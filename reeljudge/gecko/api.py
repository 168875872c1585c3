"""``GeckoScorer``: the Gecko judgement as a one-line Python call, same options as the assertion."""

from __future__ import annotations

from typing import Any

from reeljudge.promptfoo import Result


class GeckoScorer:
    """Score media against a prompt: ``GeckoScorer(**config)(prompt, media, qas=None)`` → promptfoo-style result.

    ``config`` takes the assertion's options and judge settings (``threshold``, ``scoring``,
    ``model``…). The result is the same dict the assertion returns; a judge that did not judge
    gives ``pass: False`` with the reason.
    """

    def __init__(self, **config: Any) -> None:
        self.config = dict(config)

    def __call__(self, prompt: str, media: str, qas: list[dict[str, Any]] | None = None) -> Result:
        from reeljudge.gecko.assertion import get_assert

        vars_: dict[str, Any] = {"prompt": prompt, "video": media}
        config = {**self.config, "prompt_var": "prompt", "media_var": "video", "qas_var": "qas"}
        if qas is not None:
            vars_["qas"] = qas
        return get_assert(media, {"vars": vars_, "config": config, "test": {"description": prompt[:60]}})
