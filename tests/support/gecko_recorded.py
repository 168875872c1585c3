"""Gecko results of fixed scenarios against the fake server, for comparing with results recorded
before issue 30 (``tests/data/gecko_before_issue30.json``): nested keyword annotations, a generated prompt,
declared questions. The file was written at commit eced15c (before the change) by a one-off test
that ran ``scenario_results(fake, {})`` and wrote ``normalised(...)`` as indented, key-sorted JSON.
"""

from __future__ import annotations

import json
from typing import Any

from support.gecko_scripts import NESTED, script_nested, script_prompt
from support.paths import ROOT

CLIP = str(ROOT / "datasets" / "clips" / "gen_clean.mp4")
RECORDED = ROOT / "tests" / "data" / "gecko_before_issue30.json"
KITE = "A red kite flying over a green meadow while clouds drift"
DECLARED = [
    {"question": "What colour is the kite?", "choices": ["blue", "red", "yellow"], "answer": "b", "tag": "color"},
    {"question": "Where does it fly?", "choices": ["over a meadow", "over the sea"], "answer": "a", "tag": "scene"},
]
_VOLATILE = {"latency_ms"}


def _context(prompt: str, config: dict[str, Any], **vars_: Any) -> dict[str, Any]:
    return {"vars": {"prompt": prompt, "video": CLIP, **vars_}, "config": dict(config), "test": {"description": prompt}}


def scenario_results(fake: Any, config: dict[str, Any]) -> dict[str, Any]:
    """name → the assertion's result for every scenario, judged under ``config`` (replies scripted on ``fake``)."""
    from reeljudge.assertions.gecko import get_assert
    from reeljudge.gecko.questions import declared_questions
    from reeljudge.gecko.shuffle import shuffled
    from support.gecko_scripts import verdict_text, vqa_match

    shuffle = config.get("shuffle_choices", True)
    out = {}
    for name in NESTED:
        script_nested(fake, name, shuffle=shuffle)
        out[name] = get_assert(CLIP, _context(NESTED[name]["prompt"], config))
    script_prompt(fake, KITE, matched=True, shuffle=shuffle)
    out["kite"] = get_assert(CLIP, _context(KITE, config))
    declared = declared_questions(DECLARED, test="declared")
    asked = shuffled(declared) if shuffle else declared
    fake.on(vqa_match(asked),
            {"kind": "text", "text": verdict_text(asked, [False, True], shuffle=False), "finish": "STOP",
             "usage": (900, 50), "logprobs": None})
    out["declared"] = get_assert(CLIP, _context("A red kite over a meadow", config, qas=DECLARED))
    return out


def normalised(results: dict[str, Any]) -> Any:
    """The results as JSON with the repository's path and per-run timings taken out."""
    def clean(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if k not in _VOLATILE}
        if isinstance(value, list):
            return [clean(v) for v in value]
        if isinstance(value, str):
            return value.replace(str(ROOT), "<repo>")
        return value

    return json.loads(json.dumps(clean(results), sort_keys=True))
