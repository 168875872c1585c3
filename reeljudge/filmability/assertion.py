"""The filmability assertion: terms from the output, a judge (Gemini or local), our score, a result."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from reeljudge.cache import open_cache, request_key
from reeljudge.errors import BadInputError
from reeljudge.promptfoo import Result, assertion_config, component, grading_result, require_var, run_judged
from reeljudge.gemini.settings import JudgeSettings, has_gemini_credentials, load_settings
from reeljudge.filmability.score_table import CRITERIA_MAX, Breakdown, RubricScore, breakdown_from_reply, judge_disagreements, score_breakdown
from reeljudge.filmability.terms import parse_terms

if TYPE_CHECKING:  # pragma: no cover - typing only
    from reeljudge.filmability.findability import Findability

JUDGE_NAME = "filmability"
METRIC_PREFIX = "film_"


@dataclass(frozen=True)
class FilmabilityOptions:
    """Assertion options (YAML ``config:``), with their defaults."""

    narration_var: str = "narration"
    threshold: float = 0.8
    max_terms: int = 50
    max_narration_chars: int = 4000
    #: stock-footage findability (reeljudge.filmability.findability): ``auto`` asks Pexels/Pixabay when
    #: PEXELS_API_KEY / PIXABAY_API_KEY are set and otherwise says it did not; ``off``; ``required``
    #: (a missing key or a failed search fails the test). Env: REELJUDGE_FINDABILITY.
    findability: str = "auto"
    #: which stock sources to ask (a list, or comma-separated text)
    findability_sources: tuple[str, ...] = ("pexels", "pixabay")
    #: a term is findable when the sources together return at least this many clips
    findability_min_clips: int = 1
    #: the test fails when a smaller share of terms is findable (0: findability is shown, never gates;
    #: above 0 the signal is needed, as with ``required``)
    min_findability: float = 0.0
    #: cached clip counts older than this many hours are asked again (Pixabay asks for at least 24)
    findability_max_age_h: float = 168.0

    @classmethod
    def from_config(cls, config: Mapping[str, Any], env: Mapping[str, str] | None = None) -> "FilmabilityOptions":
        """Options from an assertion config; BadInputError on a bad value."""
        env = os.environ if env is None else env
        try:
            options = cls(
                narration_var=str(config.get("narration_var", cls.narration_var)),
                threshold=float(config.get("threshold", cls.threshold)),
                max_terms=int(config.get("max_terms", cls.max_terms)),
                max_narration_chars=int(config.get("max_narration_chars", cls.max_narration_chars)),
                findability=str(config.get("findability", env.get("REELJUDGE_FINDABILITY") or cls.findability)).strip().lower(),
                findability_sources=_names(config.get("findability_sources", cls.findability_sources)),
                findability_min_clips=int(config.get("findability_min_clips", cls.findability_min_clips)),
                min_findability=float(config.get("min_findability", cls.min_findability)),
                findability_max_age_h=float(config.get("findability_max_age_h", cls.findability_max_age_h)),
            )
        except (TypeError, ValueError) as exc:
            raise BadInputError(f"invalid filmability assertion config: {exc}") from None
        options.check()
        return options

    def check(self) -> None:
        """BadInputError naming the option when a findability value is out of range."""
        from reeljudge.filmability.findability import MODES
        from reeljudge.stock.sources import SOURCES

        if self.findability not in MODES:
            raise BadInputError(f"filmability option 'findability' must be one of {', '.join(MODES)}; got {self.findability!r}")
        unknown = [s for s in self.findability_sources if s not in SOURCES]
        if unknown or not self.findability_sources:
            raise BadInputError(f"filmability option 'findability_sources' takes {', '.join(SOURCES)}; got {list(self.findability_sources)!r}")
        if self.findability_min_clips < 1 or not 0 <= self.min_findability <= 1 or self.findability_max_age_h < 0:
            raise BadInputError("filmability options: findability_min_clips must be ≥ 1, min_findability within 0–1, "
                                "findability_max_age_h ≥ 0")
        if self.min_findability > 0 and self.findability == "off":
            raise BadInputError("filmability options: min_findability is set but findability is 'off'")

    @property
    def findability_mode(self) -> str:
        """The mode in force: a findability minimum makes the signal required."""
        return "required" if self.min_findability > 0 and self.findability == "auto" else self.findability


def _names(value: Any) -> tuple[str, ...]:
    """A list of names from a YAML list or comma-separated text, lower-cased."""
    items = value.split(",") if isinstance(value, str) else list(value)
    return tuple(str(v).strip().lower() for v in items if str(v).strip())


@dataclass(frozen=True)
class Judgement:
    """A breakdown from some judge plus what to report about how it was obtained."""

    breakdown: Breakdown
    judge: str
    metadata: dict[str, Any]
    tokens: dict[str, int] | None
    judge_reply: Mapping[str, Any] | None = None


def get_assert(output: Any, context: Mapping[str, Any] | None) -> Result:
    """promptfoo entry: grade the search terms in ``output`` for the test's narration."""
    return run_judged(JUDGE_NAME, context, lambda test: _grade(output, context or {}, test))


def choose_judge(settings: JudgeSettings) -> str:
    """``gemini`` or ``local``: auto picks Gemini when it can answer (credentials, or replay cache)."""
    if settings.judge != "auto":
        return settings.judge
    if has_gemini_credentials(settings) or settings.cache_mode == "replay":
        return "gemini"
    return "local"


def _grade(output: Any, context: Mapping[str, Any], test: str) -> Result:
    """The full grading of one test."""
    config = assertion_config(context)
    options = FilmabilityOptions.from_config(config)
    settings = load_settings(config)
    narration = str(require_var(context, options.narration_var, test=test))
    if len(narration) > options.max_narration_chars:
        raise BadInputError(
            f"test {test!r}: var {options.narration_var!r} is {len(narration)} characters; a B-roll narration "
            f"is one or a few sentences (limit {options.max_narration_chars}, set max_narration_chars to change)"
        )
    try:
        terms = parse_terms(output, max_terms=options.max_terms)
    except BadInputError as error:
        raise BadInputError(f"test {test!r}: {error.message}") from None
    which = choose_judge(settings)
    judgement = _judge_gemini(narration, terms, settings) if which == "gemini" else _judge_local(narration, terms, settings)
    return with_findability(_result(terms, judgement, options), _findability(terms, options, settings), options)


def _judge_gemini(narration: str, terms: list[str], settings: JudgeSettings) -> Judgement:
    """A judgement from Gemini (or its cached reply)."""
    from reeljudge.gemini.client import JudgeClient
    from reeljudge.filmability.gemini_judge import judge_terms_with_gemini

    reply = judge_terms_with_gemini(narration, terms, JudgeClient(settings))
    meta = {"judge": "gemini", **reply.metadata()}
    return Judgement(breakdown_from_reply(reply.value), "gemini", meta, reply.usage.tokens_used(), reply.value)


def _judge_local(narration: str, terms: list[str], settings: JudgeSettings) -> Judgement:
    """A judgement from the offline judge, cached like any other judge reply."""
    cache = open_cache(settings.cache_dir, "readwrite" if settings.cache_mode == "replay" else settings.cache_mode)
    key = request_key({"kind": "filmability.local", "code": _local_judge_fingerprint(), "narration": narration, "terms": terms})
    entry = cache.get(key)
    if entry is None:
        from reeljudge.filmability.local_judge import judge_terms_locally

        local = judge_terms_locally(narration, terms)
        b = local.breakdown
        value = {
            "breakdown": {"relevance": b.relevance, "filmability": b.filmability, "variety": b.variety},
            "unfilmableTerms": list(b.unfilmable_terms),
            "reason": b.reason,
            "criterionReasons": dict(b.criterion_reasons),
            "details": local.details,
        }
        cache.put(key, "filmability.local", {"value": value})
        cache_hit = False
    else:
        value, cache_hit = entry["value"], True
    meta = {"judge": "local", "cache_hit": cache_hit, "local_details": value.get("details", {})}
    return Judgement(breakdown_from_reply(value), "local", meta, None)


def _local_judge_fingerprint() -> str:
    """A hash of the offline judge's code and data, so a changed judge never replays old verdicts."""
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    files = sorted(here.glob("*.py")) + sorted(p for p in (here / "data").rglob("*") if p.is_file())
    for path in files:
        if path.name in ("assertion.py", "gemini_judge.py", "findability.py"):
            continue
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _result(terms: list[str], judgement: Judgement, options: FilmabilityOptions) -> Result:
    """The promptfoo result for a judgement: our score, criteria as named scores and components."""
    b = judgement.breakdown
    rubric = score_breakdown(b)
    disagreements = judge_disagreements(judgement.judge_reply, rubric) if judgement.judge_reply else []
    unfilmable = [t for t in b.unfilmable_terms if t]
    passed = rubric.score >= options.threshold
    components = [
        component(
            name=f"{METRIC_PREFIX}{name}",
            passed=getattr(b, name) / top >= options.threshold,
            score=getattr(b, name) / top,
            reason=f"{getattr(b, name)}/{top}. {b.criterion_reasons.get(name, '')}".strip(),
        )
        for name, top in CRITERIA_MAX.items()
    ]
    metadata = {
        **judgement.metadata,
        "terms": terms,
        "points": rubric.points,
        "level": rubric.level,
        "capped_at_0_8": rubric.capped,
        "unfilmable_terms": unfilmable,
        "judge_disagreements": disagreements,
    }
    if judgement.judge_reply is not None:
        metadata["judge_reported"] = {k: judgement.judge_reply.get(k) for k in ("score", "points") if k in judgement.judge_reply}
    return grading_result(
        passed=passed,
        score=rubric.score,
        reason=_reason(rubric, b, unfilmable, judgement.judge, options.threshold, disagreements),
        named_scores={
            f"{METRIC_PREFIX}score": rubric.score,
            **{f"{METRIC_PREFIX}{name}": getattr(b, name) / top for name, top in CRITERIA_MAX.items()},
        },
        components=components,
        tokens=judgement.tokens,
        metadata=metadata,
    )


def _reason(
    rubric: RubricScore, b: Breakdown, unfilmable: list[str], judge: str, threshold: float, disagreements: list[str]
) -> str:
    """One readable line: score, level, points per criterion, cap, unfilmable terms, judge's reason."""
    verdict = "PASS" if rubric.score >= threshold else "FAIL"
    parts = [
        f"{verdict} {rubric.score:.1f} {rubric.level} (threshold {threshold:g}; {judge} judge): "
        f"relevance {b.relevance}/3, filmability {b.filmability}/3, variety {b.variety}/1 = {rubric.points}/7"
    ]
    if rubric.capped:
        parts.append("capped at 0.8 because 1.0 needs relevance 3")
    parts.append(f"unfilmable: {', '.join(unfilmable)}" if unfilmable else "no unfilmable terms")
    if b.reason:
        parts.append(f"judge: {b.reason}")
    if disagreements:
        parts.append("judge's own total disagreed with its breakdown (" + "; ".join(disagreements) + "), ours used")
    return ". ".join(parts)


def _findability(terms: list[str], options: FilmabilityOptions, settings: JudgeSettings) -> "Findability":
    """The findability signal for the terms (absent with a reason when it cannot be had in auto mode)."""
    from reeljudge.filmability.findability import find_clips, search_settings

    return find_clips(
        terms, mode=options.findability_mode, sources=options.findability_sources,
        min_clips=options.findability_min_clips, settings=search_settings(settings, options.findability_max_age_h),
    )


def with_findability(result: Result, f: "Findability", options: FilmabilityOptions) -> Result:
    """``result`` with the findability signal: named score, component, reason and metadata; the
    test fails when the share of findable terms is under ``min_findability``."""
    result = {**result, "metadata": {**result.get("metadata", {}), "findability": f.as_dict()}}
    sentence = f.reason()
    score = f.score
    if score is not None:
        name = f"{METRIC_PREFIX}findability"
        gate = options.min_findability
        result["namedScores"] = {**result.get("namedScores", {}), name: score}
        result["componentResults"] = [*result.get("componentResults", []), component(
            name=name, passed=score >= gate, score=score,
            reason=f"{score:.2f} of terms return clips{f' (min {gate:g})' if gate else ''}. {f.per_term()}",
        )]
        if gate and score < gate and result["pass"]:
            result["pass"] = False
            result["reason"] = "FAIL" + result["reason"].removeprefix("PASS")
            sentence += f"; {score:.2f} is under min_findability {gate:g}, so the test fails"
    result["reason"] = f"{result['reason']}. {sentence}"
    return result
