"""The offline filmability judge: the spec's rubric scored from norms and a small embedding model.

Used when no Gemini credentials are present; same result shape as the Gemini judge (a rubric
``Breakdown``). Each criterion maps a continuous signal onto the rubric's integer scale with the
thresholds in :class:`LocalJudgeOptions` (calibrated on the spec's three worked examples and the
labelled pairs in ``benchmarks/embeddings_compare.py``; see docs/decisions.md):

- filmability (0–3): each term read by its head, as a phrase and in the narration's domain
  (:mod:`reeljudge.filmability.term_reading`); 3 all filmable, 2 one non-filmable term (or ≥ 75 %
  filmable), 1 a mix (≥ 50 %), 0 mostly abstract.
- relevance (0–3): each term is matched against the narration and against the other everyday topics
  it could be about (:mod:`reeljudge.filmability.relevance`; the match is its best narration chunk
  and the whole narration together): 3 when the narration fits it about as well as any other
  topic, 2 nearly as well, 1 loosely; in a software explainer a programming
  visual is at least generally related. Abstract or unknown terms count at most 1 ("related concepts
  but not visuals"). The criterion is the level that at least half the terms reach, unless the list
  lacks evidence: when more than ``max_list_rank`` background narrations about other
  things fit the list better than its own (a weighted geometric mean of the joined list's rank and
  of its terms' mean rank), it is 0; when fewer than two terms have clear evidence, at most 1.
- not judged: when fewer than half the narration's or the terms' words are English words of the norms.
- variety (0–1): 1 when at least two terms are filmable and their mean pairwise cosine similarity
  is below ``variety_max_mean_similarity``.

Importing this module is cheap: numpy and the model load on the first judgement.
"""

from __future__ import annotations


from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from reeljudge.filmability.lexicon import DEFAULT_THRESHOLD
from reeljudge.filmability.relevance import STOPWORDS  # noqa: F401  (re-exported: the term generators use it)
from reeljudge.filmability.score_table import Breakdown
from reeljudge.filmability.senses import NarrationDomain, narration_domain
from reeljudge.filmability.term_reading import DEFAULT_MIN_VISUAL, TermConcreteness, term_concreteness

if TYPE_CHECKING:  # pragma: no cover - typing only
    from reeljudge.cache import JudgeCache

@dataclass(frozen=True)
class LocalJudgeOptions:
    """Thresholds that map the continuous signals onto the rubric's integer points.

    Similarities are cosine similarities of all-MiniLM-L6-v2 vectors (other backends would need
    their own calibration). Defaults are calibrated as described in docs/decisions.md.
    """

    #: a term is filmable when its concreteness (1–5 norms scale) is above this
    concreteness_threshold: float = DEFAULT_THRESHOLD
    #: a concrete head is still not filmable when its Lancaster visual strength (0–5) is at most this
    #: ("birdsong" 0.83, "smell" 0.16: heard or smelt, not seen)
    min_visual_strength: float = DEFAULT_MIN_VISUAL
    #: an everyday topic this close (cosine) to a narration chunk is the narration's own, not a rival
    own_topic_similarity: float = 0.50
    #: weight of the whole-narration view in a term's match (the rest: its best narration chunk)
    sentence_weight: float = 0.5
    #: a term is directly related (level 3) when its narration match is at least the best rival topic's plus this
    direct_margin: float = -0.05
    #: … and only when the whole narration is closer to it than its mean cosine to all topics by this
    #: (else level 2: it rides on one word of the sentence, "egg carton" on a salmon narration's "eggs");
    #: not asked in a software explainer, whose abstract sentence a visual stands in for
    direct_over_background: float = 0.10
    #: … generally related (level 2) when it is at least the best rival topic's plus this
    general_margin: float = -0.30
    #: … loosely related (level 1) when its narration match exceeds its mean cosine to all topics by this
    loose_over_background: float = 0.08
    #: in a software explainer, similarity to a programming gloss that counts as level 2 / level 1
    topic_general: float = 0.40
    topic_loose: float = 0.25
    #: highest relevance level an abstract or unknown term can contribute
    abstract_relevance_cap: int = 1
    #: a background narration this close (sentence cosine) to the narration is about the same thing: not ranked against
    background_same_topic: float = 0.50
    #: a list is related at all (relevance above 0) only when its list rank is at most this: the weighted geometric mean
    #: of (1 + the background narrations that fit the joined list better than its own) and (1 + those that fit its
    #: terms better on average), minus 1; calibrated on the train splits with an off-topic pass costing 10 and a
    #: related list failing 2 one-level misses (docs/decisions.md, "The list decides")
    max_list_rank: float = 13.0
    #: the offline judge decides a list only where its evidence is strong: related when its list rank is at most
    #: ``related_list_rank``, off-topic when above ``off_topic_list_rank``, "unsure" between (where related and swapped
    #: lists both fall; its breakdown there is the reading above, by ``max_list_rank``). Both calibrated on the train
    #: splits with the same cost and a deferred list costing 0.5 (docs/decisions.md, "Three answers offline")
    related_list_rank: float = 2.0
    off_topic_list_rank: float = 60.0
    #: weight of the joined list's rank in the list rank (the terms' mean rank has the rest); a logistic fit on the
    #: train split's off-topic and related lists, rounded
    list_rank_joined_weight: float = 0.6
    #: a list is at most loosely related (1) when its second-best term is fitted better by more than this many
    #: background narrations (at most one term has clear evidence)
    max_second_term_rank: int = 16
    #: filmability 2 also when at least this share of terms is filmable
    mostly_filmable_share: float = 0.75
    #: filmability 1 ("a mix") needs at least this share of filmable terms
    mix_filmable_share: float = 0.5
    #: variety 1 needs the mean pairwise similarity of the filmable terms below this
    variety_max_mean_similarity: float = 0.70
    #: the judge judges only when at least this share of the narration's words, and of the terms' words, is in
    #: the English norms; else it does not judge (the offline judge reads English only)
    min_narration_coverage: float = 0.5
    #: embedding backend (see reeljudge.filmability.embeddings)
    backend: str = "minilm"


@dataclass(frozen=True)
class LocalJudgement:
    """A rubric breakdown plus the per-term evidence behind it (JSON-serialisable ``details``)."""

    breakdown: Breakdown
    details: dict[str, Any] = field(default_factory=dict)


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
    narration: str, terms: list[str], *, options: LocalJudgeOptions | None = None, cache: "JudgeCache | None" = None
) -> LocalJudgement:
    """Score B-roll search terms for a narration with the spec's rubric, offline (``cache`` keeps the background
    narrations' vectors between processes)."""
    o = options or LocalJudgeOptions()
    narration = (narration or "").strip()
    clean = _clean_terms(list(terms or []))
    require_english(narration, clean, o)
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

    rel, rel_reason, var, var_reason = _embedding_criteria(narration, clean, conc, o, details, domain, cache)
    bd = Breakdown(
        relevance=rel,
        filmability=film,
        variety=var,
        unfilmable_terms=abstract,
        reason=_overall_reason(rel, film, var, abstract, unknown),
        criterion_reasons={"relevance": rel_reason, "filmability": film_reason, "variety": var_reason},
    )
    return LocalJudgement(bd, details)


def require_english(narration: str, terms: list[str], o: LocalJudgeOptions) -> None:
    """JudgeError (kind ``not_english``) when the narration or the terms are mostly words the English norms do not
    hold: the offline judge reads English, and a judge that did not judge never passes."""
    from reeljudge.errors import JudgeError
    from reeljudge.filmability.lexicon import coverage

    for what, text in (("narration's", narration), ("terms'", " ".join(terms))):
        share = coverage(text) if text else 1.0
        if share < o.min_narration_coverage:
            raise JudgeError(
                f"not judged: the offline judge reads English, and only {share:.0%} of the {what} words are in its "
                f"English lexicon (needs {o.min_narration_coverage:.0%}; another language, or words it does not know). "
                "Judge them with Gemini (judge: gemini) or give English text", kind="not_english")


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
    head = f"{n_f} of {len(conc)} terms are rated above concreteness {o.concreteness_threshold} (1–5 scale) → {points}/3."
    if domain.software:
        head += f" Read as {domain.describe()}."
    return head + " " + "; ".join(groups) + ("." if groups else "")


def _embedding_criteria(
    narration: str, terms: list[str], conc: list[TermConcreteness], o: LocalJudgeOptions, details: dict[str, Any],
    domain: NarrationDomain, cache: "JudgeCache | None" = None,
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
    from reeljudge.filmability.relevance import describe, list_answer, list_level, read_relevance

    jargon = list(domain.evidence)
    readings, evidence = read_relevance(model, narration, terms, [c.status == "filmable" for c in conc], domain.software,
                                        o, cache)
    details["relevance"] = [r.as_dict() for r in readings]
    details["relevance_list"] = {**evidence.as_dict(), "answer": list_answer(evidence, o),
                                 "related_list_rank": o.related_list_rank, "off_topic_list_rank": o.off_topic_list_rank}
    details["tech_jargon"] = jargon
    rel = list_level(readings, evidence, o)
    capped = [c.term for c in conc if c.status != "filmable"]
    rel_reason = (
        describe(readings, rel, o, evidence)
        + (f" Abstract/unknown terms count at most {o.abstract_relevance_cap}: " + ", ".join(capped) + "." if capped else "")
        + (f" Software jargon in the narration ({', '.join(jargon)}) lets programming visuals count as related."
           if jargon else "")
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


