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

**Evidence first**: a list is related at all only on positive evidence that its narration
explains it better than narrations about other things would. Each term's match is ranked against the
same two-view match to each of a few hundred background narrations
(:mod:`reeljudge.filmability.background`; those about the narration's own subject left out): its
*rank* is how many of them fit it better. The decision is the list's, not each term's (a swapped list
is about something else in all its terms; a loosely related one usually has one term with clear
evidence): the list's rank is the weighted geometric mean of two list-level ranks, how many background
narrations fit the joined list ("a, b, c" embedded as one phrase) better than this narration, and
how many fit its terms better on average (:class:`ListEvidence`). Above ``max_list_rank`` the list
is read as 0, "about something else", and the reason names the ranks, per term too (not a software
explainer's list that is at least half programming visuals: their gloss decides, as before). Below it, when
fewer than two terms have clear evidence (the second-best term's rank above
``max_second_term_rank``), the list is at most loosely related (1). Without that, "cat sleeping on a
sofa" against a marathon narration (cosines 0.09 and 0.00) read as generally related because no
everyday topic fitted it much better either.

**Three answers**: the evidence is strong at both ends and weak between, so the judge decides a list
only there: related when its list rank is at most ``related_list_rank``, off-topic above
``off_topic_list_rank``, and "unsure" between (:func:`list_answer`), where related and swapped lists both
fall. An unsure list keeps the reading above as its breakdown; what it does is the verdict's (``unsure``
option; with Gemini and ``judge: auto``, Gemini decides it).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol, Sequence, TypeVar, cast

from reeljudge.filmability.lexicon import tokenize
from reeljudge.filmability.score_table import OFF_TOPIC, RELATED, UNSURE

if TYPE_CHECKING:  # pragma: no cover - typing only
    import numpy as np

    from reeljudge.cache import JudgeCache
    from reeljudge.filmability.embeddings import Embedder

    #: a similarity: one number, or an array of them
    Similarity = TypeVar("Similarity", float, np.ndarray)

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
    """The options this module reads, read-only (``LocalJudgeOptions`` has them)."""

    @property
    def own_topic_similarity(self) -> float: ...
    @property
    def sentence_weight(self) -> float: ...
    @property
    def direct_margin(self) -> float: ...
    @property
    def direct_over_background(self) -> float: ...
    @property
    def general_margin(self) -> float: ...
    @property
    def loose_over_background(self) -> float: ...
    @property
    def topic_general(self) -> float: ...
    @property
    def topic_loose(self) -> float: ...
    @property
    def abstract_relevance_cap(self) -> int: ...
    @property
    def background_same_topic(self) -> float: ...
    @property
    def max_list_rank(self) -> float: ...
    @property
    def related_list_rank(self) -> float: ...
    @property
    def off_topic_list_rank(self) -> float: ...
    @property
    def list_rank_joined_weight(self) -> float: ...
    @property
    def max_second_term_rank(self) -> int: ...


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
    rank: int = 0  # background narrations whose match beats this narration's (the list's evidence)
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


def rival_topics(model: "Embedder", chunk_vectors: "np.ndarray", software: bool,
                 o: RelevanceThresholds) -> tuple[list[str], "np.ndarray"]:
    """The other topics (names and vectors): the bank minus those the narration (its chunks' vectors) is about."""
    import numpy as np

    own = np.vstack([chunk_vectors, fixed_vectors(model, "glosses", TECH_GLOSSES)]) if software else chunk_vectors
    bank = fixed_vectors(model, "topics", OTHER_TOPICS)
    closeness = (bank @ own.T).max(axis=1)
    keep = [i for i, c in enumerate(closeness) if c < o.own_topic_similarity]
    return [OTHER_TOPICS[i] for i in keep], bank[keep]


def two_view_match(chunk_sim: Similarity, sentence_sim: Similarity, o: RelevanceThresholds) -> Similarity:
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


def _why(plain: int, level: int, capped: bool, t: "TermRelevance", o: RelevanceThresholds) -> str:
    """One clause: why the term was read as related or not (``plain``: the level before gloss and cap), with its
    background rank (the evidence the list-level decision uses)."""
    rival_txt = f"other topic '{t.rival}' {t.rival_similarity:.2f}" if t.rival else "no other topic"
    views = f"'{t.best_chunk}' {t.similarity:.2f}, sentence {t.sentence:.2f} → match {t.match:.2f}"
    if capped:
        return f"relates to '{t.best_chunk}' {t.similarity:.2f} but is not a visual, so at most {level}; {_rank_words(t)}"
    if level > plain:
        return f"a programming visual in a software narration (gloss {t.gloss:.2f}); {views}, {_rank_words(t)}"
    if level == 3:
        return f"the narration fits it about as well as any other topic: {views}, {rival_txt}; {_rank_words(t)}"
    if level == 2 and plain == 2 and t.margin >= o.direct_margin:
        return (f"fits one word of the narration, not what it says: '{t.best_chunk}' {t.similarity:.2f} "
                f"(match {t.match:.2f}, {rival_txt}), but sentence {t.sentence:.2f} against its mean "
                f"{t.background:.2f} over everyday topics; {_rank_words(t)}")
    if level == 2:
        return f"{views}, nearly as close to the {rival_txt}; {_rank_words(t)}"
    if level == 1:
        return f"loosely: the {rival_txt} beats {views}; {_rank_words(t)}"
    return f"unrelated: best '{t.best_chunk}' {t.similarity:.2f}, sentence {t.sentence:.2f}, {rival_txt}; {_rank_words(t)}"


@dataclass(frozen=True)
class BackgroundEvidence:
    """Where the narration ranks among the background narrations about other things: for each term, and for the
    list as a whole (its joined phrase; its terms' mean match)."""

    ranks: list[int]  # per term: background narrations whose match beats this narration's
    size: int  # background narrations ranked against (those not about the narration's own subject)
    closer: list[str]  # per term: the background narration that fits it best
    joined_rank: int = 0  # background narrations that fit the joined list better than this narration
    mean_rank: int = 0  # background narrations whose mean match over the terms beats this narration's


def background_evidence(model: "Embedder", tv: "np.ndarray", own_match: "np.ndarray", sentence_vector: "np.ndarray",
                        software: bool, o: RelevanceThresholds, cache: "JudgeCache | None" = None,
                        joined: "tuple[np.ndarray, float] | None" = None) -> BackgroundEvidence:
    """Each term's match to every background narration (two views, as to its own), ranked against its own
    match; likewise the list's mean match and, given ``joined`` (the joined list's vector and its own match), the
    joined list. Background narrations about the same thing are left out: those within ``background_same_topic``
    (sentence cosine) of the narration and, for a software explainer, those about computing."""
    import numpy as np

    from reeljudge.filmability.background import SOFTWARE_DOMAINS, bank_vectors

    bank = bank_vectors(model, narration_chunks, cache)
    keep = (bank.sentences @ sentence_vector) < o.background_same_topic
    if software:
        keep &= np.array([n.domain not in SOFTWARE_DOMAINS for n in bank.narrations])

    def matches(vectors: "np.ndarray") -> "np.ndarray":
        chunk_best = np.maximum.reduceat(vectors @ bank.chunks.T, bank.starts, axis=1)[:, keep]
        return two_view_match(chunk_best, (vectors @ bank.sentences.T)[:, keep], o)

    per_term = matches(tv)
    kept = [n.text for n, k in zip(bank.narrations, keep) if k]
    ranks = [int(r) for r in (per_term > own_match[:, None]).sum(axis=1)]
    closer = [kept[int(i)] for i in per_term.argmax(axis=1)] if kept else [""] * len(ranks)
    mean_rank = int((per_term.mean(axis=0) > own_match.mean()).sum()) if len(own_match) else 0
    joined_rank = int((matches(joined[0][None, :])[0] > joined[1]).sum()) if joined is not None else mean_rank
    return BackgroundEvidence(ranks, len(kept), closer, joined_rank, mean_rank)


@dataclass(frozen=True)
class ListEvidence:
    """The list-level evidence: how many background narrations fit the list better than its own."""

    joined_rank: int  # background narrations that fit the joined list better
    mean_rank: int  # background narrations that fit its terms better on average
    second_rank: int  # the second-best term's rank (a programming visual of a software explainer counts 0)
    size: int  # background narrations ranked against
    joined_weight: float  # weight of the joined rank in :attr:`rank`
    visuals: int = 0  # programming visuals of a software explainer (related by their gloss, whatever the background)
    terms: int = 0  # terms in the list

    @property
    def by_gloss(self) -> bool:
        """At least half the terms are programming visuals of a software explainer: their gloss decides, as before."""
        return self.terms > 0 and 2 * self.visuals >= self.terms

    @property
    def rank(self) -> float:
        """The list's rank: the weighted geometric mean of (1 + joined rank) and (1 + mean rank), minus 1."""
        import math

        w = self.joined_weight
        # rounded, so that equal ranks give exactly that rank
        return round(math.exp(w * math.log1p(self.joined_rank) + (1 - w) * math.log1p(self.mean_rank)) - 1, 6)

    def as_dict(self) -> dict[str, object]:
        """JSON-serialisable evidence (rounded)."""
        return {"joined_rank": self.joined_rank, "mean_rank": self.mean_rank, "list_rank": round(self.rank, 2),
                "second_term_rank": self.second_rank, "background_size": self.size, "joined_weight": self.joined_weight,
                "programming_visuals": self.visuals, "terms": self.terms}


def list_evidence(readings: Sequence["TermRelevance"], evidence: BackgroundEvidence, o: RelevanceThresholds) -> ListEvidence:
    """The list-level evidence of a reading (the second-best term's rank counts a programming visual as 0)."""
    visual = [_gloss_level(r.gloss, o) >= 1 for r in readings]
    ranks = sorted(0 if v else r.rank for r, v in zip(readings, visual))
    second = ranks[1] if len(ranks) > 1 else (ranks[0] if ranks else 0)
    return ListEvidence(evidence.joined_rank, evidence.mean_rank, second, evidence.size, o.list_rank_joined_weight,
                        sum(visual), len(readings))


def read_relevance(
    model: "Embedder", narration: str, terms: Sequence[str], filmable: Sequence[bool], software: bool,
    o: RelevanceThresholds, cache: "JudgeCache | None" = None,
) -> tuple[list[TermRelevance], ListEvidence]:
    """Each term's relevance to the narration and the list-level evidence (see module doc); ``filmable`` caps
    abstract terms; ``cache`` keeps the background narrations' vectors between processes."""
    chunks = narration_chunks(narration)
    tv = model.embed(list(terms))
    cv = model.embed(chunks)
    sim = tv @ cv.T
    names, rivals = rival_topics(model, cv, software, o)
    rsim = tv @ rivals.T if names else None
    background = (tv @ fixed_vectors(model, "topics", OTHER_TOPICS).T).mean(axis=1)
    gloss = (tv @ fixed_vectors(model, "glosses", TECH_GLOSSES).T).max(axis=1) if software else None
    own = two_view_match(sim.max(axis=1), sim[:, 0], o)  # chunk 0 is the whole narration
    jv = model.embed([", ".join(terms)])[0]  # the list as one phrase (embedded alone: no padding to other phrases)
    jsim = cv @ jv
    evidence = background_evidence(model, tv, own, cv[0], software, o, cache,
                                   joined=(jv, float(two_view_match(jsim.max(), jsim[0], o))))
    out = []
    for i, term in enumerate(terms):
        j = int(sim[i].argmax())
        k = int(rsim[i].argmax()) if rsim is not None else None
        s, whole = float(sim[i, j]), float(sim[i, 0])
        r = float(cast("np.ndarray", rsim)[i, k]) if k is not None else -1.0  # k is set only when rsim is
        g = float(gloss[i]) if gloss is not None else 0.0
        match = float(own[i])
        plain = _margin_level(s, whole, match, r, float(background[i]), o, software)
        level = max(plain, _gloss_level(g, o))
        capped = not filmable[i] and level > o.abstract_relevance_cap
        if not filmable[i]:
            level = min(level, o.abstract_relevance_cap)
        reading = TermRelevance(term, level, chunks[j], s, whole, match, names[k] if k is not None else None, r,
                                float(background[i]), g, "", evidence.ranks[i], evidence.size, evidence.closer[i], plain)
        out.append(replace(reading, why=_why(plain, level, capped, reading, o)))
    return out, list_evidence(out, evidence, o)


#: the highest list level when a term is read as unrelated: a list holding an off-topic term is not "directly related"
UNRELATED_TERM_CAP = 2


def half_level(readings: Sequence[TermRelevance]) -> int:
    """The level that at least half the terms reach (0 for no terms)."""
    ranked = sorted((r.level for r in readings), reverse=True)
    return ranked[(len(ranked) + 1) // 2 - 1] if ranked else 0


def topic_level(readings: Sequence[TermRelevance]) -> int:
    """The list's level from its terms' readings: :func:`half_level`, at most 2 when a term is unrelated by the
    everyday topics (its ``margin_level`` 0: one off-topic term is not "directly related")."""
    level = half_level(readings)
    return min(level, UNRELATED_TERM_CAP) if any(r.margin_level == 0 for r in readings) else level


def list_answer(evidence: ListEvidence | None, o: RelevanceThresholds | None) -> str:
    """Related, off-topic or unsure: related at or below ``related_list_rank`` (or when most terms are programming
    visuals of a software explainer: their gloss decides), off-topic above ``off_topic_list_rank``, unsure between."""
    if evidence is None or o is None or evidence.by_gloss or evidence.rank <= o.related_list_rank:
        return RELATED
    return OFF_TOPIC if evidence.rank > o.off_topic_list_rank else UNSURE


#: the list level when fewer than two terms have clear background evidence: loosely related at most
ONE_TERM_EVIDENCE_CAP = 1


def list_level(readings: Sequence[TermRelevance], evidence: ListEvidence | None = None,
               o: RelevanceThresholds | None = None) -> int:
    """The list's relevance: :func:`topic_level`; with ``evidence``, 0 when the list's rank exceeds
    ``max_list_rank`` (about something else), at most 1 when the second-best term's rank exceeds
    ``max_second_term_rank`` (one term at most has clear evidence). A software explainer's list that is at least
    half programming visuals keeps the gloss rule: its background rank does not zero it."""
    level = topic_level(readings)
    if evidence is None or o is None:
        return level
    if evidence.rank > o.max_list_rank and not evidence.by_gloss:
        return 0
    return min(level, ONE_TERM_EVIDENCE_CAP) if evidence.second_rank > o.max_second_term_rank else level


def _elsewhere(r: TermRelevance) -> str:
    """One term's background evidence, in plain words, for a list read as about something else."""
    if r.rank == 0:
        return f"'{r.term}' fits no other of {r.bank} background narrations better than this one"
    return f"'{r.term}' fits {r.rank} other narrations better than this one (closest: \"{r.closer}\")"


def _list_words(e: ListEvidence) -> str:
    """The list-level evidence in plain words."""
    return (f"{e.joined_rank} of {e.size} background narrations fit the whole list better than this one, "
            f"{e.mean_rank} fit its terms better on average (list rank {e.rank:.1f})")


def describe(readings: Sequence[TermRelevance], rel: int, o: RelevanceThresholds, evidence: ListEvidence | None = None) -> str:
    """The relevance criterion's reason: the list level and why (about something else, one term of evidence, the
    unrelated-term cap), then each term and why."""
    parts = [f"'{r.term}' {LEVEL_NAMES[r.level]} ({r.why})" for r in readings]
    unrelated = [r.term for r in readings if r.margin_level == 0]
    topic = topic_level(readings)
    unsure = ""
    if evidence is not None and o is not None and list_answer(evidence, o) == UNSURE:
        unsure = (f"Unsure whether the list is about this narration: list rank {evidence.rank:.1f}, between "
                  f"{o.related_list_rank:g} (at or below: related) and {o.off_topic_list_rank:g} (above: about something "
                  "else), where related and swapped lists both fall, so the background evidence cannot tell them apart. "
                  "The offline reading (what unsure: pass scores): ")
    if evidence is not None and o is not None and rel == 0 and evidence.rank > o.max_list_rank and not evidence.by_gloss:
        return (unsure + f"about something else: {_list_words(evidence)}, above {o.max_list_rank:g} → 0/3: "
                + "; ".join(_elsewhere(r) for r in readings) + ". Read by the topics alone: " + "; ".join(parts) + ".")
    if evidence is not None and o is not None and rel < topic and evidence.second_rank > o.max_second_term_rank:
        best = min(readings, key=lambda r: r.rank)
        head = (f"at most one term has clear evidence ('{best.term}'; the second-best fits {evidence.second_rank} other "
                f"narrations better than this one, above {o.max_second_term_rank}), so the list is at most loosely "
                f"related → {rel}/3 ({_list_words(evidence)})")
    elif unrelated and half_level(readings) > rel:
        head = f"a term is unrelated ({', '.join(unrelated)}), so the list is at most generally related → {rel}/3"
    else:
        head = f"at least half the terms reach level {rel} → {rel}/3"
        if evidence is not None:
            head += f" ({_list_words(evidence)}"
            if o is not None and evidence.rank > o.max_list_rank and evidence.by_gloss:
                head += "; most terms are programming visuals of a software explainer, so their gloss decides"
            head += ")"
    return unsure + head + ": " + "; ".join(parts) + "."
