"""Who judged a result: ``judge_identity`` (judge, engine, model, rubric/protocol version, the options
that change verdicts, and whether the answer was live or replayed), written into every judged result's
``metadata.judge_identity`` by the judges, and read back by the gates (``recorded_identity``,
``canonical_identity``, ``RecordedIdentity``), so a regression gate compares like with like.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Mapping

#: the metadata key of a judged result that says who judged it (read by ``reeljudge compare``)
IDENTITY_KEY = "judge_identity"
#: the identity's per-answer flag: offline, or replayed from the judge cache
DETERMINISTIC_KEY = "deterministic"
#: the engines: our offline judge, the video probes, a Gemini model
LOCAL_ENGINE: Final = "local"
PROBES_ENGINE: Final = "probes"
GEMINI_ENGINE: Final = "gemini"
Engine = Literal["local", "probes", "gemini"]
#: engines whose answers are a pure function of their inputs: a verdict flip is a fact, not noise
DETERMINISTIC_ENGINES = frozenset({LOCAL_ENGINE, PROBES_ENGINE})


def judge_identity(
    judge: str,
    engine: Engine,
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
    identity[DETERMINISTIC_KEY] = engine in DETERMINISTIC_ENGINES or bool(replayed)
    return identity


def recorded_identity(metadata: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The judge identity a result's ``metadata`` records, or None."""
    identity = metadata.get(IDENTITY_KEY)
    return identity if isinstance(identity, Mapping) else None


def is_deterministic(identity: Mapping[str, Any]) -> bool:
    """Whether the recorded answer was offline or replayed."""
    return bool(identity.get(DETERMINISTIC_KEY))


def canonical_identity(identity: Mapping[str, Any]) -> str:
    """A recorded identity as canonical JSON without the per-answer flag: equal for the same judge,
    live or replayed."""
    return json.dumps({k: v for k, v in identity.items() if k != DETERMINISTIC_KEY}, sort_keys=True)


@dataclass(frozen=True)
class RecordedIdentity:
    """A canonical identity read back (``?`` for a judge or engine it does not name)."""

    judge: str
    engine: str
    model: str | None = None
    version: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def parse(cls, canonical: str) -> RecordedIdentity:
        """The identity of ``canonical_identity``'s JSON."""
        raw: dict[str, Any] = json.loads(canonical)
        return cls(judge=str(raw.get("judge", "?")), engine=str(raw.get("engine", "?")), model=raw.get("model") or None,
                   version=raw.get("version") or None, options=raw.get("options") or {})
