"""Findability: will each search term actually find footage? Clip counts from Pexels and Pixabay.

An optional signal beside the filmability rubric. For each term it asks the stock-video
search APIs whose keys are in the environment (``PEXELS_API_KEY``, ``PIXABAY_API_KEY``; base URLs
``PEXELS_API_BASE_URL``, ``PIXABAY_API_BASE_URL`` for a local fake) how many clips the term returns
(:mod:`reeljudge.stock.search`: cached, retried by the shared policy). A term is *found* when the
sources together return at least ``min_clips`` clips; the score is the share of terms found.

Modes: ``off`` never asks; ``auto`` asks the sources that have keys and, when none has a key or
every source fails, leaves the signal out and says why — it never blocks the filmability judge;
``required`` asks every listed source and turns a missing key or a failure into a judge error.
In cache mode ``replay`` counts come from the cache only, keys or not.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from typing import Any, Mapping

from reeljudge.errors import BadInputError
from reeljudge.stock.search import SearchSettings, StockSearchError, count_clips
from reeljudge.stock.sources import SOURCES, Source

MODES = ("auto", "off", "required")


@dataclass(frozen=True)
class TermFindability:
    """Clip counts of one term, per source that answered."""

    term: str
    counts: dict[str, int]
    found: bool

    @property
    def total(self) -> int:
        """Clips over all sources."""
        return sum(self.counts.values())


@dataclass(frozen=True)
class Findability:
    """The findability signal of one term list, or why it is absent."""

    status: str  # "checked", "absent" or "off"
    sources: tuple[str, ...] = ()  # the sources whose counts are used
    terms: tuple[TermFindability, ...] = ()
    min_clips: int = 1
    notes: tuple[str, ...] = ()  # keys missing, sources that failed, terms not searched
    cached: int = 0  # counts served from the cache
    requested: int = 0  # counts asked from an API
    no_keys: bool = False  # absent because no source's key is set (the same for every test: the verdict line leaves it out)

    @property
    def score(self) -> float | None:
        """Share of terms found; None when the signal is absent."""
        if self.status != "checked" or not self.terms:
            return None
        return sum(t.found for t in self.terms) / len(self.terms)

    @property
    def not_found(self) -> list[str]:
        """Terms that return fewer than ``min_clips`` clips."""
        return [t.term for t in self.terms if not t.found]

    def reason(self) -> str:
        """One sentence for the assertion's reason."""
        if self.status == "off":
            return "findability off"
        if self.status == "absent":
            return "findability not checked: " + "; ".join(self.notes)
        labels = ", ".join(SOURCES[s].label for s in self.sources)
        found = len(self.terms) - len(self.not_found)
        text = f"findability ({labels}): {found} of {len(self.terms)} terms return at least {self.min_clips} clip(s)"
        if self.not_found:
            text += "; no results: " + ", ".join(f"'{t}'" for t in self.not_found)
        return text + ("; " + "; ".join(self.notes) if self.notes else "")

    def per_term(self) -> str:
        """Each term's clip counts, for the findability line of the breakdown."""
        parts = []
        for t in self.terms:
            by = ", ".join(f"{SOURCES[s].label} {n:,}" for s, n in t.counts.items()) or "not searched"
            parts.append(f"'{t.term}' {t.total:,} ({by})" + ("" if t.found else " — no results"))
        return "; ".join(parts)

    def as_dict(self) -> dict[str, Any]:
        """JSON-serialisable form, with the score."""
        return {**asdict(self), "score": self.score, "not_found": self.not_found}


def find_clips(
    terms: list[str], *, mode: str = "auto", sources: tuple[str, ...] = ("pexels", "pixabay"), min_clips: int = 1,
    settings: SearchSettings | None = None, env: Mapping[str, str] | None = None,
) -> Findability:
    """Clip counts for ``terms`` (see module doc); StockSearchError only in mode ``required``.

    ``find_clips(["server room", "efficiency"])`` asks the sources whose keys are in the environment,
    caching in the default cache folder.
    """
    env = os.environ if env is None else env
    if mode not in MODES or not sources or any(name not in SOURCES for name in sources):
        raise BadInputError(f"findability mode must be one of {', '.join(MODES)} and sources among "
                            f"{', '.join(SOURCES)}; got {mode!r}, {list(sources)!r}")
    if settings is None:
        from reeljudge.cache import default_cache_dir

        settings = SearchSettings(cache_dir=default_cache_dir())
    if mode == "off":
        return Findability("off", min_clips=min_clips)
    wanted = [SOURCES[name] for name in sources]
    replay = settings.cache_mode == "replay"
    missing = [s for s in wanted if not env.get(s.key_env, "").strip()]
    usable = wanted if replay else [s for s in wanted if s not in missing]
    notes = [] if replay else [f"{s.label} not asked: no {s.key_env} in the environment" for s in missing]
    if mode == "required" and missing and not replay:
        raise StockSearchError("findability is required but " + "; ".join(notes), kind="no_credentials")
    if not usable:
        return Findability("absent", min_clips=min_clips, notes=tuple(notes), no_keys=len(missing) == len(wanted))
    counts, failures, unsearched, tally = _ask(terms, usable, mode, settings, env)
    answered = [s.name for s in usable if s.name not in failures]
    notes += [f"{SOURCES[n].label} did not answer: {why}" for n, why in failures.items()]
    notes += [f"'{t}' not searched on {', '.join(SOURCES[n].label for n in ns)} ({why})" for t, (ns, why) in unsearched.items()]
    if not answered:
        return Findability("absent", min_clips=min_clips, notes=tuple(notes), cached=tally[0], requested=tally[1])
    rows = tuple(
        TermFindability(t, {n: c for n, c in counts[t].items() if n in answered},
                        sum(c for n, c in counts[t].items() if n in answered) >= min_clips)
        for t in terms
    )
    return Findability("checked", tuple(answered), rows, min_clips, tuple(notes), tally[0], tally[1])


def _ask(
    terms: list[str], sources: list[Source], mode: str, settings: SearchSettings, env: Mapping[str, str]
) -> tuple[dict[str, dict[str, int]], dict[str, str], dict[str, tuple[list[str], str]], list[int]]:
    """Counts per term and source; sources that failed (auto mode), terms a source cannot take."""
    from reeljudge.cache import open_cache

    cache = open_cache(settings.cache_dir, settings.cache_mode)
    counts: dict[str, dict[str, int]] = {t: {} for t in terms}
    failures: dict[str, str] = {}
    unsearched: dict[str, tuple[list[str], str]] = {}
    tally = [0, 0]  # cached, requested
    for source in sources:
        base = env.get(source.base_url_env, "").strip() or source.default_base_url
        for term in terms:
            try:
                found = count_clips(source, term, key=env.get(source.key_env), base_url=base, settings=settings, cache=cache)
            except StockSearchError as error:
                if error.kind == "query_too_long":
                    unsearched.setdefault(term, ([], error.message))[0].append(source.name)
                    continue
                if mode == "required":
                    raise
                failures[source.name] = f"{error.message} ({error.kind})"
                break  # a source that failed once (rate limit, bad key, outage) is not asked again in this test
            counts[term][source.name] = found.total
            tally[0 if found.cached else 1] += 1
    return counts, failures, unsearched, tally


def search_settings(judge_settings: Any, max_age_h: float) -> SearchSettings:
    """Stock-search settings from the judge's settings: its cache, its retry policy with shorter waits."""
    from dataclasses import replace

    policy = judge_settings.retry
    policy = replace(policy, timeout_s=min(policy.timeout_s, 20.0), deadline_s=min(policy.deadline_s, 60.0))
    return SearchSettings(cache_dir=judge_settings.cache_dir, cache_mode=judge_settings.cache_mode,
                          max_age_h=max_age_h, policy=policy)
