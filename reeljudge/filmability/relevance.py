"""How closely each search term relates to its narration, read against the other topics it could be about.

A small sentence-embedding model rates some phrases close to everything and rates a concrete
scene low against an abstract sentence ("coins in a jar" against "Putting a little money aside
every week…"), so a raw similarity says little. The question a person asks is comparative: does
this narration explain the term, or is the term about something else? So each term is matched
twice (measured by ``benchmarks/relevance.py``; docs/decisions.md):

- its **match**, read in two views and averaged (``sentence_weight``): its best cosine to a narration
  chunk (the narration, its content words, adjacent content-word pairs) and its cosine to the whole
  narration. The chunk view alone lets a term ride on a side word of the sentence ("snowy street"
  on the "winter" of a flu-shot narration); the sentence view alone misses concrete scenes of an
  abstract sentence; together a term must fit a word of the narration *and* what it is about;
- its **rival**: best cosine to a fixed bank of everyday stock-footage topics (:data:`OTHER_TOPICS`)
  minus the narration's own topics (those within ``own_topic_similarity`` of any narration chunk;
  in a software explainer also those of the programming glosses).

Level 3 ("directly") when the narration fits the term about as well as any other topic (margin
≥ ``direct_margin``) and the whole sentence, not only one of its words, stands out from the term's
mean cosine to all the topics (by ``direct_over_background``: "egg carton" fits the "eggs" of a
salmon narration but not the sentence; not asked of a software explainer, whose abstract sentence
a visual stands in for: the spec's "fast motion blur" for "blazingly fast"); 2 ("generally") when
nearly as well (≥ ``general_margin``); 1 ("loosely") when its best chunk alone is clearly above its
mean similarity to all the topics (small models rate some phrases close to everything: "typing" ~
"pasta" 0.36); else 0. In a software explainer a term close to a programming gloss is at least generally
related (the spec's "developer coding" for a closures narration). Terms read as abstract or unknown
count at most ``abstract_relevance_cap`` ("related concepts but not visuals"). The list's relevance
is the level that at least half its terms reach.

**Evidence first** (issue 35): a term reaches any level above 0 only when its narration explains it
better than narrations about other things would. Its match is ranked against the same two-view
match to each of a few hundred background narrations (:mod:`reeljudge.filmability.background`;
those about the narration's own subject left out); when more than ``max_background_rank`` of them fit
it better, it is read as 0, "about something else", and the reason says how many. Without that,
"cat sleeping on a sofa" against a marathon narration (cosines 0.09 and 0.00) read as generally
related because no everyday topic fitted it much better either.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol, Sequence

from reeljudge.filmability.lexicon import tokenize

if TYPE_CHECKING:  # pragma: no cover - typing only
    import numpy as np

    from reeljudge.cache import JudgeCache
    from reeljudge.filmability.embeddings import Embedder

STOPWORDS = frozenset(
    "a an the and or but of to in on at for with by from is are was were be been being it its this that these "
    "those you your we our they their he she his her i me my how what when where why which who whom need needs "
    "make making makes made just so as into than then there here do does did can could will would should may "
    "might must about over under up down out all every everything very really also more most much many some any "
    "no not only own same such too get gets got let lets keep keeps".split()
)
#: everyday subjects of stock footage: a term closer to one of these than to its narration is about
#: something else. Broad themes, one or two words each, none taken from a labelled term list.
OTHER_TOPICS: tuple[str, ...] = tuple(
    t.strip()
    for t in (
        "money; shopping; business; cooking; food; restaurant; health; hospital; medicine; sleep; exercise; sport; "
        "football; swimming; running; history; war; ancient ruins; outer space; stars; science; laboratory; school; "
        "classroom; university; books; office; factory; computers; technology; travel; airport; hotel; beach; ocean; "
        "mountains; snow; forest; flowers; garden; animals; farm; weather; rain; city; traffic; cars; home; family; "
        "children; music; art; fashion; religion; politics; law; water; fire; night; party"
    ).split(";")
)
TECH_GLOSSES = ("computer programming", "computers and servers")
LEVEL_NAMES = {3: "direct", 2: "general", 1: "loose", 0: "none"}


class RelevanceThresholds(Protocol):
    """The options this module reads (``LocalJudgeOptions`` has them)."""

    own_topic_similarity: float
    sentence_weight: float
    direct_margin: float
    direct_over_background: float
    general_margin: float
    loose_over_background: float
    topic_general: float
    topic_loose: float
    abstract_relevance_cap: int
    background_same_topic: float
    max_background_rank: int


@dataclass(frozen=True)
class TermRelevance:
    """One term's relevance level and the evidence for it."""

    term: str
    level: int
    best_chunk: str
    similarity: float  # cosine to the best narration chunk
    sentence: float  # cosine to the whole narration
    match: float  # the two views together (see module doc)
    rival: str | None  # the closest other topic
    rival_similarity: float
    background: float  # mean cosine to all the everyday topics
    gloss: float  # similarity to a programming gloss (0.0 outside software explainers)
    why: str
    rank: int = 0  # background narrations whose match beats this narration's (the evidence, issue 35)
    bank: int = 0  # background narrations it was ranked among (those not about this narration's own subject)
    closer: str = ""  # the background narration that fits the term best
    margin_level: int = 0  # the level the match against the everyday topics alone gives

    @property
    def margin(self) -> float:
        """How much better the narration fits than the closest other topic."""
        return self.match - self.rival_similarity

    def as_dict(self) -> dict[str, object]:
        """JSON-serialisable evidence (rounded)."""
        return {"term": self.term, "level": self.level, "best_chunk": self.best_chunk,
                "similarity": round(self.similarity, 4), "sentence_similarity": round(self.sentence, 4),
                "rival_topic": self.rival,
                "rival_similarity": round(self.rival_similarity, 4), "match": round(self.match, 4),
                "margin": round(self.margin, 4), "topics_mean": round(self.background, 4),
                "topic": round(self.gloss, 4), "background_rank": self.rank, "background_size": self.bank,
                "closer_narration": self.closer, "margin_level": self.margin_level, "why": self.why}


def narration_chunks(narration: str) -> list[str]:
    """The narration, its content words and adjacent content-word pairs (deduplicated)."""
    tokens = tokenize(narration)
    content = [t for t in tokens if t not in STOPWORDS]
    pairs = [f"{a} {b}" for a, b in zip(tokens, tokens[1:]) if a not in STOPWORDS and b not in STOPWORDS]
    chunks = [narration.strip()] + content + pairs
    return list(dict.fromkeys(c for c in chunks if c))


_FIXED: dict[tuple[int, str], "np.ndarray"] = {}


def fixed_vectors(model: "Embedder", name: str, texts: Sequence[str]) -> "np.ndarray":
    """Vectors of a fixed phrase list (the topic bank, the glosses), embedded once per model and process."""
    key = (id(model), name)
    if key not in _FIXED:
        _FIXED[key] = model.embed(list(texts))
    return _FIXED[key]


def rival_topics(model: "Embedder", chunk_vectors: "np.ndarray", software: bool, o: RelevanceThresholds) -> tuple[list[str], "np.ndarray"]:
    """The other topics (names and vectors): the bank minus those the narration (its chunks' vectors) is about."""
    import numpy as np

    own = np.vstack([chunk_vectors, fixed_vectors(model, "glosses", TECH_GLOSSES)]) if software else chunk_vectors
    bank = fixed_vectors(model, "topics", OTHER_TOPICS)
    closeness = (bank @ own.T).max(axis=1)
    keep = [i for i, c in enumerate(closeness) if c < o.own_topic_similarity]
    return [OTHER_TOPICS[i] for i in keep], bank[keep]


def two_view_match(chunk_sim: float, sentence_sim: float, o: RelevanceThresholds) -> float:
    """A term's match to the narration: its best chunk and the whole sentence, weighted."""
    return (1.0 - o.sentence_weight) * chunk_sim + o.sentence_weight * sentence_sim


def _margin_level(sim: float, sentence: float, match: float, rival: float, background: float,
                  o: RelevanceThresholds, software: bool) -> int:
    """A term's level from its narration match against the closest other topic (3 when the whole
    sentence also stands out from all topics' mean, or in a software explainer, 2), else from its best
    chunk against that mean (1, 0)."""
    margin = match - rival
    if margin >= o.direct_margin and (software or sentence - background >= o.direct_over_background):
        return 3
    if margin >= o.general_margin:
        return 2
    return 1 if sim - background >= o.loose_over_background else 0


def _gloss_level(gloss: float, o: RelevanceThresholds) -> int:
    """The level a programming gloss gives in a software explainer (0 when it gives none)."""
    return 2 if gloss >= o.topic_general else 1 if gloss >= o.topic_loose else 0


def _rank_words(t: "TermRelevance") -> str:
    """The background evidence in plain words."""
    if t.rank == 0:
        return f"no other of {t.bank} background narrations fits it better"
    return f"{t.rank} of {t.bank} background narrations fit it better"


def _why(plain: int, margin: int, level: int, capped: bool, t: "TermRelevance", o: RelevanceThresholds) -> str:
    """One clause: why the term was read as related or not (``margin``: the level the match against the
    everyday topics gives; ``plain``: that level after the background evidence, before gloss and cap)."""
    rival_txt = f"other topic '{t.rival}' {t.rival_similarity:.2f}" if t.rival else "no other topic"
    views = f"'{t.best_chunk}' {t.similarity:.2f}, sentence {t.sentence:.2f} → match {t.match:.2f}"
    if capped:
        return f"relates to '{t.best_chunk}' {t.similarity:.2f} but is not a visual, so at most {level}"
    if level > plain:
        return f"a programming visual in a software narration (gloss {t.gloss:.2f}); {views}, {_rank_words(t)}"
    if plain < margin:
        if plain == 0:
            return (f"about something else: it fits {t.rank} other narrations better than this one "
                    f"(of {t.bank} background narrations; closest: \"{t.closer}\"); {views}")
        return f"{_rank_words(t)}, so at most {LEVEL_NAMES[plain]} ({views})"
    if level == 3:
        return f"the narration fits it about as well as any other topic: {views}, {rival_txt}; {_rank_words(t)}"
    if level == 2 and plain == 2 and t.margin >= o.direct_margin:
        return (f"fits one word of the narration, not what it says: '{t.best_chunk}' {t.similarity:.2f} "
                f"(match {t.match:.2f}, {rival_txt}), but sentence {t.sentence:.2f} against its mean "
                f"{t.background:.2f} over everyday topics")
    if level == 2:
        return f"{views}, nearly as close to the {rival_txt}; {_rank_words(t)}"
    if level == 1:
        return f"loosely: the {rival_txt} beats {views}; {_rank_words(t)}"
    return f"unrelated: best '{t.best_chunk}' {t.similarity:.2f}, sentence {t.sentence:.2f}, {rival_txt}"


@dataclass(frozen=True)
class BackgroundEvidence:
    """Where the narration ranks, for each term, among the background narrations about other things."""

    ranks: list[int]  # per term: background narrations whose match beats this narration's
    size: int  # background narrations ranked against (those not about the narration's own subject)
    closer: list[str]  # per term: the background narration that fits it best


def background_evidence(model: "Embedder", tv: "np.ndarray", own_match: "np.ndarray", sentence_vector: "np.ndarray",
                        software: bool, o: RelevanceThresholds, cache: "JudgeCache | None" = None) -> BackgroundEvidence:
    """Each term's match to every background narration (two views, as to its own), ranked against its own
    match. Background narrations about the same thing are left out: those within ``background_same_topic``
    (sentence cosine) of the narration and, for a software explainer, those about computing."""
    import numpy as np

    from reeljudge.filmability.background import SOFTWARE_DOMAINS, bank_vectors

    bank = bank_vectors(model, narration_chunks, cache)
    keep = (bank.sentences @ sentence_vector) < o.background_same_topic
    if software:
        keep &= np.array([n.domain not in SOFTWARE_DOMAINS for n in bank.narrations])
    chunk_best = np.maximum.reduceat(tv @ bank.chunks.T, bank.starts, axis=1)[:, keep]
    matches = two_view_match(chunk_best, (tv @ bank.sentences.T)[:, keep], o)
    kept = [n.text for n, k in zip(bank.narrations, keep) if k]
    ranks = [int(r) for r in (matches > own_match[:, None]).sum(axis=1)]
    closer = [kept[int(i)] for i in matches.argmax(axis=1)] if kept else [""] * len(ranks)
    return BackgroundEvidence(ranks, len(kept), closer)


def evidence_level(rank: int, o: RelevanceThresholds) -> int:
    """The highest level a term's background rank allows: any (3) when at most ``max_background_rank``
    background narrations about other things fit it better than its own, else 0 (no evidence)."""
    return 3 if rank <= o.max_background_rank else 0


def read_relevance(
    model: "Embedder", narration: str, terms: Sequence[str], filmable: Sequence[bool], software: bool,
    o: RelevanceThresholds, cache: "JudgeCache | None" = None,
) -> list[TermRelevance]:
    """Each term's relevance to the narration (see module doc); ``filmable`` caps abstract terms; ``cache``
    keeps the background narrations' vectors between processes."""
    chunks = narration_chunks(narration)
    tv = model.embed(list(terms))
    cv = model.embed(chunks)
    sim = tv @ cv.T
    names, rivals = rival_topics(model, cv, software, o)
    rsim = tv @ rivals.T if names else None
    background = (tv @ fixed_vectors(model, "topics", OTHER_TOPICS).T).mean(axis=1)
    gloss = (tv @ fixed_vectors(model, "glosses", TECH_GLOSSES).T).max(axis=1) if software else None
    own = two_view_match(sim.max(axis=1), sim[:, 0], o)  # chunk 0 is the whole narration
    evidence = background_evidence(model, tv, own, cv[0], software, o, cache)
    out = []
    for i, term in enumerate(terms):
        j = int(sim[i].argmax())
        k = int(rsim[i].argmax()) if rsim is not None else None
        s, whole = float(sim[i, j]), float(sim[i, 0])
        r = float(rsim[i, k]) if k is not None else -1.0
        g = float(gloss[i]) if gloss is not None else 0.0
        match = float(own[i])
        margin = _margin_level(s, whole, match, r, float(background[i]), o, software)
        plain = min(margin, evidence_level(evidence.ranks[i], o))
        level = max(plain, _gloss_level(g, o))
        capped = not filmable[i] and level > o.abstract_relevance_cap
        if not filmable[i]:
            level = min(level, o.abstract_relevance_cap)
        reading = TermRelevance(term, level, chunks[j], s, whole, match, names[k] if k is not None else None, r,
                                float(background[i]), g, "", evidence.ranks[i], evidence.size, evidence.closer[i], margin)
        out.append(replace(reading, why=_why(plain, margin, level, capped, reading, o)))
    return out


#: the highest list level when a term is read as unrelated: a list holding an off-topic term is not "directly related"
UNRELATED_TERM_CAP = 2


def half_level(readings: Sequence[TermRelevance]) -> int:
    """The level that at least half the terms reach (0 for no terms)."""
    ranked = sorted((r.level for r in readings), reverse=True)
    return ranked[(len(ranked) + 1) // 2 - 1] if ranked else 0


def list_level(readings: Sequence[TermRelevance]) -> int:
    """The list's relevance: :func:`half_level`, at most 2 when a term is unrelated by the everyday topics alone
    (its ``margin_level`` 0; a term that only lacks background evidence does not cap a list its others make direct)."""
    level = half_level(readings)
    return min(level, UNRELATED_TERM_CAP) if any(r.margin_level == 0 for r in readings) else level


def describe(readings: Sequence[TermRelevance], rel: int, o: RelevanceThresholds) -> str:
    """The relevance criterion's reason: the list level (and why: the cap, or terms that fit other narrations
    better), then each term and why."""
    parts = [f"'{r.term}' {LEVEL_NAMES[r.level]} ({r.why})" for r in readings]
    unrelated = [r.term for r in readings if r.margin_level == 0]
    elsewhere = [r for r in readings if r.level == 0 and r.bank and r.margin_level > 0]
    if unrelated and half_level(readings) > rel:
        head = f"a term is unrelated ({', '.join(unrelated)}), so the list is at most generally related → {rel}/3"
    elif rel == 0 and elsewhere:
        head = (f"about something else: {len([r for r in readings if r.level == 0])} of {len(readings)} terms fit "
                f"other narrations better than this one → 0/3")
    else:
        head = f"at least half the terms reach level {rel} → {rel}/3"
    return head + ": " + "; ".join(parts) + "."
