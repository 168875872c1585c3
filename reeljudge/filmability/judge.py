"""The filmability judgement: terms and narration in, a verdict scored by our table out.

``judge(narration, terms, options, settings)`` picks the judge (``judge: auto`` with Gemini is the
cascade: the offline judge first, Gemini only for a list the offline judge is unsure about or does not
read; without Gemini the offline judge), gets its breakdown (cached like every judge reply) of the
distinct terms (a repeat caps the score below EXCELLENT, or fails: ``repeated_terms``), and scores it with our
table (``score_table``); the judge's own total is recorded, never trusted. A judge that did not
judge raises ReelJudgeError. Beside the verdict, the findability signal (clip counts per term from
the stock-video APIs, :mod:`reeljudge.filmability.findability`) is attached; it gates the verdict only
through ``min_findability``. A list whose relevance is below ``min_relevance`` (default 1: one the
judge reads as unrelated to the narration) fails whatever its points; the score stays the table's.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Mapping

from reeljudge.cache import JudgeCache, open_cache, request_key
from reeljudge.errors import BadInputError, JudgeError
from reeljudge.filmability.local_version import LOCAL_JUDGE_VERSION, SOURCES_SHA256
from reeljudge.filmability.options import FilmabilityOptions
from reeljudge.filmability.repeats import Repeats, find_repeats
from reeljudge.filmability.score_table import (
    CRITERIA_MAX, RELATED, UNSURE, Breakdown, TableScore, breakdown_from_reply, cap_for_repeats, judge_disagreements,
    score_breakdown,
)
from reeljudge.gemini.settings import JudgeSettings, answers_without_credentials, has_gemini_credentials
from reeljudge.identity import GEMINI_ENGINE, IDENTITY_KEY, LOCAL_ENGINE, judge_identity
from reeljudge.options import verdict_options
from reeljudge.judging import FILMABILITY

if TYPE_CHECKING:  # pragma: no cover - typing only
    from reeljudge.filmability.findability import Findability

LOCAL_KIND = "filmability.local"
#: the prefix of its named scores and breakdown keys (``film_score``, ``film_relevance`` …)
METRIC_PREFIX = "film_"
#: the score table's levels that read as a pass: a failing list's verdict line names its cause instead
PASSING_LEVELS = frozenset({"EXCELLENT", "GOOD"})


@dataclass(frozen=True)
class FilmabilityVerdict:
    """One judged term list: the breakdown, our score, pass/fail and how it was obtained (``record``: the
    judge's reply facts, ``who``: who judged)."""

    terms: list[str]
    breakdown: Breakdown
    table: TableScore
    threshold: float
    judge: str
    record: dict[str, Any] = field(default_factory=dict)
    tokens: dict[str, int] | None = None
    judge_reported: dict[str, Any] = field(default_factory=dict)
    disagreements: list[str] = field(default_factory=list)
    findability: Findability | None = None  # clip counts per term (reeljudge.filmability.findability)
    min_findability: float = 0.0
    min_relevance: int = 0
    who: dict[str, Any] = field(default_factory=dict)
    repeats: Repeats | None = None  # the terms given more than once (the judge scored the distinct ones)
    repeated_terms: str = "cap"  # what a repeat does: cap (never EXCELLENT) or fail
    offline_answer: str | None = None  # the offline judge's answer on relatedness: related, off-topic or unsure
    unsure_rule: str = "fail"  # what an unsure answer does when the offline judge decides: fail or pass
    cascade: dict[str, Any] | None = None  # judge auto with Gemini: who decided, why, the offline judge's verdict

    judged = True

    @property
    def score(self) -> float:
        """Our score from the table (0.3, 0.6, 0.8 or 1.0)."""
        return self.table.score

    @property
    def passed(self) -> bool:
        """Whether the score reaches the threshold, relevance its minimum (and findable terms theirs)."""
        return (self.table.score >= self.threshold and not self.relevance_short and not self.findability_short
                and not self.repeats_fail and not self.unsure_fails)

    @property
    def list_evidence(self) -> dict[str, Any]:
        """The offline judge's list-level evidence (``details.relevance_list``: list rank, band, answer); empty for
        Gemini's verdict."""
        details = self.record.get("local_details") or {}
        return dict(details.get("relevance_list") or {})

    @property
    def unsure(self) -> bool:
        """Whether the offline judge could not tell whether the list is about the narration."""
        return self.offline_answer == UNSURE

    @property
    def unsure_fails(self) -> bool:
        """Whether the offline judge decided, was unsure, and ``unsure: fail`` fails the list."""
        return self.judge == "local" and self.unsure and self.unsure_rule == "fail"

    @property
    def repeat_count(self) -> int:
        """Terms given beyond the first of their kind (0 without repeats)."""
        return self.repeats.count if self.repeats is not None else 0

    @property
    def repeats_fail(self) -> bool:
        """Whether the list repeats a term and ``repeated_terms: fail`` fails it."""
        return self.repeat_count > 0 and self.repeated_terms == "fail"

    @property
    def relevance_short(self) -> bool:
        """Whether the judge read the list as less relevant than ``min_relevance`` asks (off-topic)."""
        return self.breakdown.relevance < self.min_relevance

    @property
    def findability_short(self) -> bool:
        """Whether fewer terms find footage than ``min_findability`` asks."""
        score = self.findability.score if self.findability is not None else None
        return bool(self.min_findability) and score is not None and score < self.min_findability

    @property
    def unfilmable_terms(self) -> list[str]:
        """The terms the judge found unfilmable."""
        return [t for t in self.breakdown.unfilmable_terms if t]

    def reason(self) -> str:
        """One readable line: score, level, points per criterion, cap, unfilmable terms, the judge's reason."""
        b, t = self.breakdown, self.table
        parts = [
            f"{t.score:.1f} {self._level_word()} (threshold {self.threshold:g}; {self.judge} judge): "
            f"relevance {b.relevance}/3, filmability {b.filmability}/3, variety {b.variety}/1 = {t.points}/7"
        ]
        if self.relevance_short:
            parts.append(f"relevance {b.relevance}/3 is under min_relevance {self.min_relevance}: the judge reads these terms "
                         "as unrelated to the narration, so the test fails whatever its points")
        if t.capped:
            parts.append("capped at 0.8 because 1.0 needs relevance 3")
        if self.repeats is not None and self.repeat_count:
            parts.append(self._repeat_words())
        if self.judge == "local" and self.unsure:
            parts.append(self._unsure_words())
        if self.cascade and self.cascade.get("decided_by") == "gemini":
            parts.append(str(self.cascade.get("why_words", "")))
        parts.append(f"unfilmable: {', '.join(self.unfilmable_terms)}" if self.unfilmable_terms else "no unfilmable terms")
        if b.reason and self.judge != "local":  # the offline judge's summary restates the line; its one extra, below
            parts.append(f"judge: {b.reason}")
        unknown = (self.record.get("local_details") or {}).get("unknown_terms") or []
        if unknown:
            parts.append("no lexicon coverage (unknown, e.g. non-English or jargon): " + ", ".join(unknown))
        if self.disagreements:
            parts.append("judge's own total disagreed with its breakdown (" + "; ".join(self.disagreements) + "), ours used")
        if self.findability is not None and not self.findability.no_keys:  # no stock key set: the same for every test (metadata)
            f = self.findability
            short = (f"; {f.score:.2f} is under min_findability {self.min_findability:g}, so the test fails"
                     if self.findability_short else "")
            parts.append(f.reason() + short)
        return ". ".join(part.rstrip().rstrip(".") for part in parts)  # a part's own full stop is not doubled

    def _repeat_words(self) -> str:
        """What the list repeats and what that costs."""
        r = self.repeats
        assert r is not None
        n = len(r.distinct)
        head = (f"repeated: {r.describe()} ({self.repeat_count} of {n + self.repeat_count} terms repeat another; "
                f"scored on the {n} distinct term{'s' if n != 1 else ''})")
        if self.repeats_fail:
            return (head + "; repeated_terms is 'fail', so the test fails: a generator that repeats itself gives fewer "
                    "shots than it says")
        if self.table.repeat_capped:
            return head + "; a list that repeats itself never reaches EXCELLENT, so 1.0 is lowered to 0.8 GOOD"
        return head + "; a list that repeats itself never reaches EXCELLENT (repeated_terms: fail fails it)"

    def _unsure_words(self) -> str:
        """What an unsure answer did and what would settle it."""
        lst = self.list_evidence
        evidence = (f"list rank {lst.get('list_rank')}, between {lst.get('related_list_rank'):g} and "
                    f"{lst.get('off_topic_list_rank'):g}" if lst.get("list_rank") is not None else "its list rank")
        settle = ("a Gemini judge settles it: set GEMINI_API_KEY with judge: auto (Gemini is asked about unsure lists "
                  "only) or judge: gemini")
        if self.unsure_fails:
            return (f"unsure: the offline judge cannot tell this list from one about something else ({evidence}), so with "
                    f"unsure: fail (the default) the test fails; {settle}, or unsure: pass scores it on the reading as "
                    "related above")
        return f"unsure ({evidence}): scored by the offline reading, as unsure: pass asks; {settle}"

    def _level_word(self) -> str:
        """The table's level (EXCELLENT, GOOD, …), or for a list that fails at a level that reads as a pass,
        what failed it instead (a failing list never reads FAIL 0.8 GOOD)."""
        level = self.table.level
        if self.passed or level not in PASSING_LEVELS:
            return level
        if self.relevance_short:
            return "off-topic"
        if self.findability_short:
            return "too few findable terms"
        if self.repeats_fail:
            return "repeated terms"
        if self.unsure_fails:
            return "unsure"
        return "under the threshold"

    def part_reasons(self) -> dict[str, str]:
        """Each criterion's points and the judge's reason for them, then (when counted) the terms' clip counts,
        keyed by their named scores (``film_relevance`` …)."""
        b = self.breakdown
        parts = {name: f"{getattr(b, name)}/{top}. {b.criterion_reasons.get(name, '')}".strip() for name,
                 top in CRITERIA_MAX.items()}
        f, gate = self.findability, self.min_findability
        if f is not None and f.score is not None:
            parts["findability"] = f"{f.score:.2f} of terms return clips{f' (min {gate:g})' if gate else ''}. {f.per_term()}"
        return {f"{METRIC_PREFIX}{name}": text for name, text in parts.items()}

    def part_status(self) -> dict[str, bool]:
        """The criteria are scored, not checks of their own: none is marked."""
        return {}

    def named_scores(self) -> dict[str, float]:
        """Our score, each criterion's share of its points and, when the stock APIs were asked, findability."""
        b = self.breakdown
        named = {f"{METRIC_PREFIX}score": self.score,
                 **{f"{METRIC_PREFIX}{name}": getattr(b, name) / top for name, top in CRITERIA_MAX.items()},
                 f"{METRIC_PREFIX}repeats": float(self.repeat_count)}
        if self.offline_answer is not None:  # the offline judge answered (alone, or first in the cascade)
            named[f"{METRIC_PREFIX}unsure"] = float(self.unsure)
        if self.findability is not None and self.findability.score is not None:
            named[f"{METRIC_PREFIX}findability"] = self.findability.score
        return named

    def tokens_used(self) -> dict[str, int] | None:
        """Gemini's tokens (None for the offline judge)."""
        return self.tokens

    def identity(self) -> dict[str, Any]:
        """Who judged: Gemini (model, rubric hash, replayed or live) or the offline judge (its version)."""
        return self.who

    def metadata(self) -> dict[str, Any]:
        """The judge's reply facts, the terms, the table's points and level, what failed the list."""
        metadata = {
            **self.record, "terms": self.terms, "points": self.table.points, "level": self.table.level,
            "capped_at_0_8": self.table.capped, "min_relevance": self.min_relevance, "relevance_short": self.relevance_short,
            "unfilmable_terms": self.unfilmable_terms, "judge_disagreements": self.disagreements,
            "repeats": self.repeats.as_dict() if self.repeats is not None else None, "repeated_terms": self.repeated_terms,
            "repeat_capped": self.table.repeat_capped, "offline_answer": self.offline_answer, "unsure": self.unsure_rule,
        }
        if self.cascade is not None:
            metadata["cascade"] = {k: v for k, v in self.cascade.items() if k != "why_words"}
        if self.judge_reported:
            metadata["judge_reported"] = self.judge_reported
        if self.findability is not None:
            metadata["findability"] = self.findability.as_dict()
        return metadata


def choose_judge(options: FilmabilityOptions, settings: JudgeSettings) -> str:
    """``gemini`` or ``local``: auto picks Gemini when it can answer (credentials, a replay cache, or plan mode), which
    ``judge`` then asks only after the offline judge (the cascade)."""
    if options.judge != "auto":
        return options.judge
    if has_gemini_credentials(settings) or answers_without_credentials(settings):
        return "gemini"
    return "local"


def check_narration(narration: str, options: FilmabilityOptions, test: str) -> str:
    """The narration, or BadInputError when it is longer than a B-roll narration should be, or is an HTML page,
    markup or a number rather than a sentence."""
    from reeljudge.filmability.text_kind import not_prose

    if kind := not_prose(narration):
        raise BadInputError(f"test {test!r}: var {options.narration_var!r} is {kind}, not a narration sentence "
                            f"(starts {narration.strip()[:60]!r})")
    if len(narration) > options.max_narration_chars:
        raise BadInputError(
            f"test {test!r}: var {options.narration_var!r} is {len(narration)} characters; a B-roll narration "
            f"is one or a few sentences (limit {options.max_narration_chars}, set max_narration_chars to change)"
        )
    return narration


def judge(narration: str, terms: list[str], options: FilmabilityOptions, settings: JudgeSettings) -> FilmabilityVerdict:
    """The verdict on ``terms`` for ``narration``; ReelJudgeError when the judge did not judge. Either judge scores the
    distinct terms; a list that repeats one is then capped below EXCELLENT (or failed: ``repeated_terms``)."""
    repeats = find_repeats(terms)
    distinct = repeats.distinct
    which = choose_judge(options, settings)
    if which == "gemini" and options.judge == "auto":
        verdict = _cascade(narration, distinct, options, settings)
    elif which == "gemini":
        verdict = _gemini(narration, distinct, options, settings)
    else:
        verdict = _local(narration, distinct, options, settings)
    table = cap_for_repeats(verdict.table) if repeats.count else verdict.table
    return replace(verdict, terms=list(terms), table=table, repeats=repeats, repeated_terms=options.repeated_terms,
                   findability=_findability(distinct, options, settings), min_findability=options.min_findability,
                   min_relevance=options.min_relevance)


def _cascade(narration: str, terms: list[str], options: FilmabilityOptions, settings: JudgeSettings) -> FilmabilityVerdict:
    """``judge: auto`` with Gemini: the offline judge first; Gemini only when it is unsure or does not read the text
    (another language). The verdict is the one that decided; ``cascade`` records both."""
    try:
        offline = _local(narration, terms, options, settings)
    except JudgeError as error:
        if error.kind != "not_english":
            raise
        summary: dict[str, Any] = {"not_judged": error.message}
        why = "not_english"
        words = f"the offline judge does not read it ({error.message.split('. ')[0]}), so Gemini decided"
    else:
        if not offline.unsure:
            return replace(offline, cascade={"decided_by": "local", "gemini_asked": False})
        why, summary = "unsure", _offline_summary(offline)
        words = (f"the offline judge was unsure (list rank {offline.list_evidence.get('list_rank')}; it read relevance "
                 f"{offline.breakdown.relevance}/3, filmability {offline.breakdown.filmability}/3, variety "
                 f"{offline.breakdown.variety}/1 = {offline.score:.1f}), so Gemini decided")
    try:
        decided = _gemini(narration, terms, options, settings)
    except JudgeError as error:  # Gemini did not judge: the test fails with its reason, and says what the cascade knew
        if type(error) is not JudgeError:
            raise
        words = words.replace("so Gemini decided", "so Gemini was asked")
        raise JudgeError(f"{error.message} ({words})", kind=error.kind, raw=error.raw) from error
    return replace(decided, offline_answer=UNSURE if why == "unsure" else None,
                   cascade={"decided_by": "gemini", "gemini_asked": True, "why": why, "offline": summary, "why_words": words})


def _offline_summary(verdict: FilmabilityVerdict) -> dict[str, Any]:
    """The offline judge's verdict in brief, for a cascade Gemini decided."""
    b = verdict.breakdown
    return {"answer": verdict.offline_answer, "relevance": b.relevance, "filmability": b.filmability, "variety": b.variety,
            "score": verdict.score, "relevance_list": verdict.list_evidence, IDENTITY_KEY: verdict.who}


def _findability(terms: list[str], options: FilmabilityOptions, settings: JudgeSettings) -> Findability:
    """Clip counts for the terms; absent with a reason when they cannot be had (unless required)."""
    from reeljudge.filmability.findability import find_clips, search_settings

    return find_clips(terms, mode=options.findability_mode, sources=options.findability_sources,
                      min_clips=options.findability_min_clips,
                      settings=search_settings(settings, options.findability_max_age_h))


def _verdict(terms: list[str], reply: Mapping[str, Any], options: FilmabilityOptions, judge_name: str,
             record: dict[str, Any], tokens: dict[str, int] | None,
             trusted_total: bool, who: dict[str, Any]) -> FilmabilityVerdict:
    breakdown = breakdown_from_reply(reply)
    table = score_breakdown(breakdown)
    reported = {} if trusted_total else {k: reply.get(k) for k in ("score", "points") if k in reply}
    disagreements = [] if trusted_total else judge_disagreements(reply, table)
    return FilmabilityVerdict(terms, breakdown, table, options.threshold, judge_name, record, tokens, reported, disagreements,
                              who=who)


def _gemini(narration: str, terms: list[str], options: FilmabilityOptions, settings: JudgeSettings) -> FilmabilityVerdict:
    """A verdict from Gemini (or its cached reply)."""
    from reeljudge.filmability.judge_gemini import judge_terms_with_gemini
    from reeljudge.batch.planner import judge_client

    from reeljudge.filmability.judge_gemini import RUBRIC_FILE, SCHEMA_FILE
    from reeljudge.gemini.prompts import rubric_version

    reply = judge_terms_with_gemini(narration, terms, judge_client(settings))
    who = judge_identity(FILMABILITY.name, GEMINI_ENGINE, model=reply.model, replayed=reply.cache_hit,
                         version=rubric_version(RUBRIC_FILE, SCHEMA_FILE), options=verdict_options(options, settings))
    return _verdict(terms, reply.value, options, "gemini", {"judge": "gemini", **reply.metadata()}, reply.usage.tokens_used(),
                    trusted_total=False, who=who)


def _local(narration: str, terms: list[str], options: FilmabilityOptions, settings: JudgeSettings) -> FilmabilityVerdict:
    """A verdict from the offline judge, cached like any other judge reply (keyed by its version)."""
    cache = open_cache(settings.cache_dir, "readwrite" if settings.cache_mode == "replay" else settings.cache_mode)
    key = request_key({"kind": LOCAL_KIND, "version": [LOCAL_JUDGE_VERSION, SOURCES_SHA256],
                       "narration": narration, "terms": terms})
    entry = cache.get(key)
    if entry is None:
        value = _run_local(narration, terms, cache)
        cache.put(key, LOCAL_KIND, {"value": value})
        cache_hit = False
    else:
        value, cache_hit = entry["value"], True
    record = {"judge": "local", "cache_hit": cache_hit, "local_details": value.get("details", {})}
    who = judge_identity(FILMABILITY.name, LOCAL_ENGINE, version=f"{LOCAL_JUDGE_VERSION}-{SOURCES_SHA256[:12]}",
                         options=verdict_options(options))  # the offline judge reads no Gemini setting
    answer = ((value.get("details") or {}).get("relevance_list") or {}).get("answer", RELATED)
    return replace(_verdict(terms, value, options, "local", record, None, trusted_total=True, who=who),
                   offline_answer=answer, unsure_rule=options.unsure)


def _run_local(narration: str, terms: list[str], cache: JudgeCache) -> dict[str, Any]:
    """The offline judge's breakdown as a reply-shaped dict (what the cache keeps; ``cache`` also keeps the
    background narrations' vectors)."""
    from reeljudge.filmability.judge_local import judge_terms_locally

    local = judge_terms_locally(narration, terms, cache=cache)
    b = local.breakdown
    return {
        "breakdown": {"relevance": b.relevance, "filmability": b.filmability, "variety": b.variety},
        "unfilmableTerms": list(b.unfilmable_terms),
        "reason": b.reason,
        "criterionReasons": dict(b.criterion_reasons),
        "details": local.details,
    }
