"""Who judged a result: ``judge_identity`` (judge, engine, model, rubric/protocol version, the options
that change verdicts, and whether the answer was live or replayed), written into every judged result's
``metadata.judge_identity`` and read by the gates, so a regression gate compares like with like.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

#: the metadata key of a judged result that says who judged it (read by ``reeljudge compare``)
IDENTITY_KEY = "judge_identity"
#: engines whose answers are a pure function of their inputs: a verdict flip is a fact, not noise
DETERMINISTIC_ENGINES = frozenset({"local", "probes"})


def judge_identity(
    judge: str,
    engine: str,
    *,
    model: str | None = None,
    version: str | None = None,
    options: Mapping[str, Any] | None = None,
    replayed: bool | None = None,
) -> dict[str, Any]:
    """Who judged a result, for ``metadata.judge_identity``.

    Args:
        judge: the judge's name (``filmability``, ``gecko``, ``video_probes``, ``ab_judge``).
        engine: ``local`` or ``probes`` (offline, deterministic) or ``gemini`` (an LLM judge).
        model: the judge model, for an LLM engine.
        version: the judge's own version: an offline judge's code version, or the rubric/protocol files' hash.
        options: the judge options that change verdicts (e.g. probe thresholds), JSON-able.
        replayed: an LLM engine's answer came from the judge cache (the same answer every run).
    """
    identity: dict[str, Any] = {"judge": judge, "engine": engine}
    if model:
        identity["model"] = model
    if version:
        identity["version"] = version
    if options:
        identity["options"] = json.loads(json.dumps(dict(options), sort_keys=True, default=str))
    identity["deterministic"] = engine in DETERMINISTIC_ENGINES or bool(replayed)
    return identity
