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
#: the declared defaults of the options that change verdicts (what ``options``' absent keys mean)
DEFAULTS_KEY = "option_defaults"
#: the engines: our offline judge, the video probes, a Gemini model
LOCAL_ENGINE: Final = "local"
PROBES_ENGINE: Final = "probes"
GEMINI_ENGINE: Final = "gemini"
Engine = Literal["local", "probes", "gemini"]
#: engines whose answers are a pure function of their inputs: a verdict flip is a fact, not noise
DETERMINISTIC_ENGINES = frozenset({LOCAL_ENGINE, PROBES_ENGINE})


@dataclass(frozen=True)
class RecordedOptions:
    """How a judge was configured, as it records it (``reeljudge.options.verdict_options`` derives it from the
    options each judge declares to change verdicts): ``values``, the ones set away from their defaults (what
    ``options`` holds; a judge at its defaults records none); ``defaults``, every such option's default."""

    values: Mapping[str, Any] = field(default_factory=dict)
    defaults: Mapping[str, Any] = field(default_factory=dict)


def judge_identity(
    judge: str,
    engine: Engine,
    *,
    model: str | None = None,
    version: str | None = None,
    options: RecordedOptions | None = None,
    replayed: bool | None = None,
) -> dict[str, Any]:
    """Who judged a result, for ``metadata.judge_identity``.

    Args:
        judge: the judge's name (``filmability``, ``gecko``, ``video_probes``, ``ab_judge``).
        engine: ``local`` or ``probes`` (offline, deterministic) or ``gemini`` (an LLM judge).
        model: the judge model, for an LLM engine.
        version: the judge's own version: an offline judge's code version, or the rubric/protocol files' hash.
        options: the judge options that change verdicts (``reeljudge.options.verdict_options``): those set away
            from their defaults as ``options``, every one's default as ``option_defaults``.
        replayed: an LLM engine's answer came from the judge cache (the same answer every run).
    """
    identity: dict[str, Any] = {"judge": judge, "engine": engine}
    if model:
        identity["model"] = model
    if version:
        identity["version"] = version
    if options is not None and options.values:
        identity["options"] = _json(options.values)
    if options is not None and options.defaults:
        identity[DEFAULTS_KEY] = _json(options.defaults)
    identity[DETERMINISTIC_KEY] = engine in DETERMINISTIC_ENGINES or bool(replayed)
    return identity


def _json(values: Mapping[str, Any]) -> dict[str, Any]:
    """Option values as JSON reads them back (tuples as lists, anything else as text)."""
    return json.loads(json.dumps(dict(values), sort_keys=True, default=str))


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
    #: the declared defaults of the verdict options (None: an identity recorded before they were)
    defaults: Mapping[str, Any] | None = None

    @classmethod
    def parse(cls, canonical: str) -> RecordedIdentity:
        """The identity of ``canonical_identity``'s JSON."""
        raw: dict[str, Any] = json.loads(canonical)
        return cls(judge=str(raw.get("judge", "?")), engine=str(raw.get("engine", "?")), model=raw.get("model") or None,
                   version=raw.get("version") or None, options=raw.get("options") or {}, defaults=raw.get(DEFAULTS_KEY))

    def option(self, key: str, defaults: Mapping[str, Any] | None = None) -> Any:
        """The value option ``key`` had: as recorded, else its default (its own, else ``defaults``)."""
        if key in self.options:
            return self.options[key]
        return (self.defaults if self.defaults is not None else defaults or {}).get(key)

    def without_defaults(self, defaults: Mapping[str, Any] | None = None) -> RecordedIdentity:
        """This identity with every option at its default dropped (its own defaults, else ``defaults``: an identity
        recorded before defaults were, some of whose options it recorded at their default values)."""
        known = self.defaults if self.defaults is not None else defaults or {}
        kept = {k: v for k, v in self.options.items() if k not in known or known[k] != v}
        return RecordedIdentity(self.judge, self.engine, self.model, self.version, kept, None)

    def key(self) -> str:
        """Canonical JSON of who judged and the options set away from their defaults."""
        return json.dumps({"judge": self.judge, "engine": self.engine, "model": self.model, "version": self.version,
                           "options": dict(self.options)}, sort_keys=True)
