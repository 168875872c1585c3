"""The offline filmability judge: the spec's rubric scored from norms and a small embedding model.

Used when no Gemini credentials are present; same result shape as the Gemini judge (a rubric
``Breakdown``). Each criterion maps a continuous signal onto the rubric's integer scale with the
thresholds in :class:`LocalJudgeOptions` (calibrated on the spec's three worked examples and the
labelled pairs in ``benchmarks/embeddings_compare.py``; see docs/decisions.md):

- filmability (0–3): each term read by its head, as a phrase and in the narration's domain
  (:mod:`reeljudge.filmability.term_reading`); 3 all filmable, 2 one non-filmable term (or ≥ 75 %
  filmable), 1 a mix (≥ 50 %), 0 mostly abstract.
- relevance (0–3): each term gets a level from its best match to the narration — the whole
  sentence, its content words and word pairs — minus the term's mean similarity to a fixed set of
  unrelated background words (small models rate some phrases close to everything); plus, when the
  narration reads as a software explainer (:func:`reeljudge.filmability.senses.narration_domain`),
  its similarity to short topic glosses ("computer programming"). Abstract or unknown terms count at most 1 ("related concepts but not
  visuals"). The criterion is the level that at least half the terms reach.
- variety (0–1): 1 when at least two terms are filmable and their mean pairwise cosine similarity
  is below ``variety_max_mean_similarity``.

Importing this module is cheap: numpy and the model load on the first judgement.
"""

from __future__ import annotations


from dataclasses import asdict, dataclass, field
from typing import Any

from reeljudge.filmability.lexicon import DEFAULT_THRESHOLD, tokenize
from reeljudge.filmability.score_table import Breakdown
from reeljudge.filmability.senses import NarrationDomain, narration_domain
from reeljudge.filmability.term_reading import DEFAULT_MIN_VISUAL, TermConcreteness, term_concreteness

STOPWORDS = frozenset(
    "a an the and or but of to in on at for with by from is are was were be been being it its this that these "
    "those you your we our they their he she his her i me my how what when where why which who whom need needs "
    "make making makes made just so as into than then there here do does did can could will would should may "
    "might must about over under up down out all every everything very really also more most much many some any "
    "no not only own same such too get gets got let lets keep keeps".split()
)
BACKGROUND_WORDS = (
    "weather music money family history garden animal city sport book car food water school health light time "
    "house game people"
).split()
TECH_GLOSSES = ("computer programming", "computers and servers")


@dataclass(frozen=True)
class LocalJudgeOptions:
    """Thresholds that map the continuous signals onto the rubric's integer points.

    Similarities are cosine similarities of all-MiniLM-L6-v2 vectors (other backends would need
    their own calibration). Defaults are calibrated as described in docs/decisions.md.
    """

    #: a term is filmable when its concreteness (1–5 norms scale) reaches this
    concreteness_threshold: float = DEFAULT_THRESHOLD
    #: a concrete head is still not filmable when its Lancaster visual strength (0–5) is at most this
    #: ("birdsong" 0.83, "smell" 0.16: heard or smelt, not seen)
    min_visual_strength: float = DEFAULT_MIN_VISUAL
    #: background-corrected best narration match for "directly related" (level 3)
    direct_match: float = 0.20
    #: … for "generally related" (level 2)
    general_match: float = 0.10
    #: … for "loosely connected" (level 1)
    loose_match: float = 0.09
    #: similarity to a topic gloss that counts as "generally related" (level 2) / "loosely" (level 1)
    topic_general: float = 0.40
    topic_loose: float = 0.25
    #: highest relevance level an abstract or unknown term can contribute
    abstract_relevance_cap: int = 1
    #: filmability 2 also when at least this share of terms is filmable
    mostly_filmable_share: float = 0.75
    #: filmability 1 ("a mix") needs at least this share of filmable terms
    mix_filmable_share: float = 0.5
    #: variety 1 needs the mean pairwise similarity of the filmable terms below this
    variety_max_mean_similarity: float = 0.70
    #: relevance is rated only when at least this share of narration words is in the English norms
    min_narration_coverage: float = 0.5
    #: embedding backend (see reeljudge.filmability.embeddings)
    backend: str = "minilm"


@dataclass(frozen=True)
class LocalJudgement:
    """A rubric breakdown plus the per-term evidence behind it (JSON-serialisable ``details``)."""

    breakdown: Breakdown
    details: dict[str, Any] = field(default_factory=dict)


def narration_chunks(narration: str) -> list[str]:
    """The narration, its content words and adjacent content-word pairs (deduplicated)."""
    tokens = tokenize(narration)
    content = [t for t in tokens if t not in STOPWORDS]
    pairs = [f"{a} {b}" for a, b in zip(tokens, tokens[1:]) if a not in STOPWORDS and b not in STOPWORDS]
    chunks = [narration.strip()] + content + pairs
    return list(dict.fromkeys(c for c in chunks if c))


def uses_tech_jargon(narration: str) -> list[str]:
    """Software words of the narration when it reads as a software explainer, else none."""
    return list(narration_domain(narration).evidence)


def read_terms(
    narration: str, terms: list[str], options: LocalJudgeOptions | None = None
) -> tuple[list[TermConcreteness], NarrationDomain]:
    """Each term read by its head and phrase in the narration's domain, and that domain."""
    o = options or LocalJudgeOptions()
    domain = narration_domain(narration)
    readings = [
        term_concreteness(t, o.concreteness_threshold, domain=domain, min_visual=o.min_visual_strength) for t in terms
    ]
    return readings, domain


def _relevance_level(match: float, topic: float, o: LocalJudgeOptions) -> int:
    """A term's relevance level 0–3 from its corrected narration match and topic similarity."""
    if match >= o.direct_match:
        return 3
    if match >= o.general_match or topic >= o.topic_general:
        return 2
    if match >= o.loose_match or topic >= o.topic_loose:
        return 1
    return 0


def filmability_points(n_terms: int, n_filmable: int, o: LocalJudgeOptions) -> int:
    """Rubric filmability from counts: 3 all, 2 one miss or mostly, 1 a mix, 0 mostly abstract."""
    if n_terms == 0:
        return 0
    share = n_filmable / n_terms
    misses = n_terms - n_filmable
    if misses == 0:
        return 3
    if (misses == 1 and n_terms >= 3) or share >= o.mostly_filmable_share:
        return 2
    if share >= o.mix_filmable_share:
        return 1
    return 0


def _clean_terms(terms: list[str]) -> list[str]:
    """Terms as stripped strings, empty ones dropped."""
    return [t.strip() for t in (str(x) for x in terms) if t.strip()]


def judge_terms_locally(
    narration: str, terms: list[str], *, options: LocalJudgeOptions | None = None
) -> LocalJudgement:
    """Score B-roll search terms for a narration with the spec's rubric, offline."""
    o = options or LocalJudgeOptions()
    narration = (narration or "").strip()
    clean = _clean_terms(list(terms or []))
    conc, domain = read_terms(narration, clean, o)
    filmable = [c.term for c in conc if c.status == "filmable"]
    abstract = [c.term for c in conc if c.status == "abstract"]
    unknown = [c.term for c in conc if c.status == "unknown"]
    details: dict[str, Any] = {
        "judge": "local",
        "options": asdict(o),
        "terms": [{"term": c.term, "concreteness": c.score, "status": c.status, "anchor": c.anchor,
                   "form": c.form, "sense": c.sense, "why": c.why,
                   "matches": [asdict(u) for u in c.units]} for c in conc],
        "software_narration": list(domain.evidence) if domain.software else [],
        "unknown_terms": unknown,
    }
    film = filmability_points(len(clean), len(filmable), o)
    film_reason = _filmability_reason(conc, film, o, domain)

    if not clean:
        bd = Breakdown(
            relevance=0, filmability=0, variety=0, unfilmable_terms=[],
            reason="Offline judge: no search terms were given, so there is nothing to film: 0 points.",
            criterion_reasons={
                "relevance": "no search terms were given → 0/3.",
                "filmability": "no search terms were given → 0/3.",
                "variety": "no search terms were given → 0/1.",
            },
        )
        return LocalJudgement(bd, details)

    rel, rel_reason, var, var_reason = _embedding_criteria(narration, clean, conc, o, details, domain)
    bd = Breakdown(
        relevance=rel,
        filmability=film,
        variety=var,
        unfilmable_terms=abstract,
        reason=_overall_reason(rel, film, var, abstract, unknown),
        criterion_reasons={"relevance": rel_reason, "filmability": film_reason, "variety": var_reason},
    )
    return LocalJudgement(bd, details)


def _filmability_reason(conc: list[TermConcreteness], points: int, o: LocalJudgeOptions, domain: NarrationDomain) -> str:
    """Plain words: which terms are filmable, which not, and how each was read."""

    def fmt(c: TermConcreteness) -> str:
        if c.score is None:
            return f"'{c.term}' (fewer than half its words in the English norms)"
        return f"'{c.term}' {c.score:.2f} ({c.why})"

    groups = []
    for status, label in (("filmable", "filmable"), ("abstract", "abstract"), ("unknown", "unknown, no lexicon coverage")):
        items = [fmt(c) for c in conc if c.status == status]
        if items:
            groups.append(f"{label}: " + ", ".join(items))
    n_f = sum(c.status == "filmable" for c in conc)
    head = f"{n_f} of {len(conc)} terms reach concreteness {o.concreteness_threshold} (1–5 scale) → {points}/3."
    if domain.software:
        head += f" Read as {domain.describe()}."
    return head + " " + "; ".join(groups) + ("." if groups else "")


def _embedding_criteria(
    narration: str, terms: list[str], conc: list[TermConcreteness], o: LocalJudgeOptions, details: dict[str, Any],
    domain: NarrationDomain,
) -> tuple[int, str, int, str]:
    """Relevance and variety (points and reasons) from sentence-embedding similarities."""
    from reeljudge.filmability.embeddings import get_embedder

    model = get_embedder(o.backend)
    details["model"] = model.info.as_dict()
    tv = model.embed(terms)
    filmable_idx = [i for i, c in enumerate(conc) if c.status == "filmable"]

    # variety
    if len(filmable_idx) < 2:
        var = 0
        var_reason = f"{len(filmable_idx)} filmable term(s); at least 2 are needed for different visual options → 0/1."
        mean_sim = None
    else:
        fv = tv[filmable_idx]
        sims = fv @ fv.T
        n = len(filmable_idx)
        mean_sim = float((sims.sum() - n) / (n * (n - 1)))
        var = int(mean_sim < o.variety_max_mean_similarity)
        word = "below" if var else "at or above"
        var_reason = (
            f"mean pairwise similarity of the {n} filmable terms is {mean_sim:.2f}, {word} "
            f"{o.variety_max_mean_similarity} → {var}/1" + (" (different visual options)." if var else " (too similar).")
        )
    details["variety_mean_similarity"] = None if mean_sim is None else round(mean_sim, 4)

    # relevance
    if not narration:
        details["relevance"] = []
        return 0, "no narration was given, so the terms relate to nothing → 0/3.", var, var_reason
    from reeljudge.filmability.lexicon import coverage

    share = coverage(narration)
    details["narration_english_coverage"] = round(share, 3)
    if share < o.min_narration_coverage:
        details["relevance"] = []
        return 0, (
            f"only {share:.0%} of the narration's words are in the English norms (needs "
            f"{o.min_narration_coverage:.0%}): it looks non-English, and the offline English model cannot "
            "rate relevance → 0/3."
        ), var, var_reason
    chunks = narration_chunks(narration)
    jargon = list(domain.evidence)
    cv = model.embed(chunks)
    bg = model.embed(BACKGROUND_WORDS)
    sim = tv @ cv.T
    base = (tv @ bg.T).mean(axis=1)
    topic = (tv @ model.embed(list(TECH_GLOSSES)).T).max(axis=1) if jargon else None
    per_term = []
    levels = []
    for i, c in enumerate(conc):
        j = int(sim[i].argmax())
        match = float(sim[i, j] - base[i])
        top = float(topic[i]) if topic is not None else 0.0
        level = _relevance_level(match, top, o)
        if c.status != "filmable":
            level = min(level, o.abstract_relevance_cap)
        levels.append(level)
        per_term.append({"term": c.term, "best_chunk": chunks[j], "similarity": round(float(sim[i, j]), 4),
                         "background": round(float(base[i]), 4), "match": round(match, 4),
                         "topic": round(top, 4), "level": level})
    details["relevance"] = per_term
    details["tech_jargon"] = jargon
    ranked = sorted(levels, reverse=True)
    rel = ranked[(len(ranked) + 1) // 2 - 1]
    names = {3: "direct", 2: "general", 1: "loose", 0: "none"}
    parts = [f"'{p['term']}' {names[p['level']]} (best '{p['best_chunk']}' {p['match']:+.2f}"
             + (f", topic {p['topic']:.2f}" if jargon else "") + ")" for p in per_term]
    capped = [c.term for c in conc if c.status != "filmable"]
    rel_reason = (
        f"at least half the terms reach level {rel} → {rel}/3: " + "; ".join(parts) + "."
        + (f" Abstract/unknown terms count at most {o.abstract_relevance_cap}: " + ", ".join(capped) + "." if capped else "")
        + (f" Software jargon in the narration ({', '.join(jargon)}) lets programming visuals count as related." if jargon else "")
    )
    return rel, rel_reason, var, var_reason


def _overall_reason(rel: int, film: int, var: int, abstract: list[str], unknown: list[str]) -> str:
    """One-sentence summary for the promptfoo reason field."""
    text = f"Offline judge: relevance {rel}/3, filmability {film}/3, variety {var}/1."
    if abstract:
        text += " Not filmable: " + ", ".join(abstract) + "."
    if unknown:
        text += " No lexicon coverage (unknown, e.g. non-English or jargon): " + ", ".join(unknown) + "."
    return text


