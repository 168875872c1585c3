"""The off-topic set of issue 35: lists about something else, built from the labelled sets by the swap
rule of ``datasets/relevance_off_topic.yaml``, plus its hand-written off-topic lists and near misses.

Every case is one term list judged against one narration, with the relevance a person gives it:

- ``on-topic``: a list labelled relevance >= 1 for its own narration (all three sets);
- ``swap``: a list labelled relevance >= 2 and filmability >= 2 paired with narrations of another,
  incompatible domain of the same split, not a hand-reviewed related pair (relevance 0 by construction):
  :data:`SWAPS_PER_LIST` of them per list, the first by a hash of the two ids (a fixed, even spread);
- ``off-topic``: a hand-written list about something else (relevance 0);
- ``near-miss``: a hand-written list loosely but really related (relevance 1 or 2).

Splits: ``train`` (the labelled train split, the second author's second-train, the new train narrations)
and ``test`` (test, second-test, the new test narrations).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
OFF_TOPIC = ROOT / "datasets" / "relevance_off_topic.yaml"
LABELLED = (ROOT / "datasets" / "relevance_labelled.yaml", ROOT / "datasets" / "relevance_second_author.yaml")
SPLITS = {"train": "train", "second-train": "train", "test": "test", "second-test": "test"}
#: narrations of other domains each on-topic list is judged against
SWAPS_PER_LIST = 6


@dataclass(frozen=True)
class Narration:
    """A narration of one of the three sets, with its domain, split (train | test) and lists."""

    id: str
    domain: str
    split: str
    text: str
    lists: tuple[dict[str, Any], ...]
    source: str  # "labelled", "second" or "new"


@dataclass(frozen=True)
class Case:
    """One term list judged against one narration, and the relevance a person gives it."""

    kind: str  # on-topic | swap | off-topic | near-miss
    split: str
    narration_id: str
    narration: str
    list_id: str  # "<narration id>/<list id>" of the list's own narration
    terms: tuple[str, ...]
    relevance: int
    label_score: float | None  # the labelled table score (lists of the labelled sets), else None
    source: str


def load_narrations() -> list[Narration]:
    """Every narration of the labelled sets and of the off-topic set."""
    out = []
    for path, source in zip(LABELLED, ("labelled", "second")):
        for n in yaml.safe_load(path.read_text(encoding="utf-8")):
            out.append(Narration(n["id"], n["domain"], SPLITS[n["split"]], n["narration"], tuple(n["lists"]), source))
    for n in yaml.safe_load(OFF_TOPIC.read_text(encoding="utf-8"))["narrations"]:
        out.append(Narration(n["id"], n["domain"], n["split"], n["narration"], tuple(n["lists"]), "new"))
    ids = [n.id for n in out]
    if twice := sorted({i for i in ids if ids.count(i) > 1}):
        raise ValueError(f"narration ids used twice: {', '.join(twice)}")
    return out


def swap_rule() -> tuple[set[frozenset[str]], set[frozenset[str]]]:
    """The compatible domain pairs and the hand-reviewed related narration pairs (each a frozenset of two)."""
    data = yaml.safe_load(OFF_TOPIC.read_text(encoding="utf-8"))
    return ({frozenset(p) for p in data["compatible_domains"]}, {frozenset(p) for p in data["related_narrations"]})


def may_swap(a: Narration, b: Narration, compatible: set[frozenset[str]], related: set[frozenset[str]]) -> bool:
    """Whether a list of ``a`` is about something else for ``b`` by the swap rule."""
    return (a.split == b.split and a.domain != b.domain and frozenset((a.domain, b.domain)) not in compatible
            and frozenset((a.id, b.id)) not in related)


def _spread(list_id: str, narration_id: str) -> str:
    """A fixed pseudo-random order of the narrations a list may be swapped to."""
    return hashlib.sha256(f"{list_id}>{narration_id}".encode()).hexdigest()


def _kind(source: str, lst: dict[str, Any]) -> str:
    return lst.get("kind", "on-topic") if source == "new" else "on-topic"


def build_cases(narrations: list[Narration] | None = None) -> list[Case]:
    """The on-topic, swapped, hand-written off-topic and near-miss cases of every split."""
    narrations = narrations if narrations is not None else load_narrations()
    compatible, related = swap_rule()
    known = {n.id for n in narrations}
    if unknown := sorted({i for pair in related for i in pair} - known):
        raise ValueError(f"related_narrations name unknown narrations: {', '.join(unknown)}")
    cases = []
    for n in narrations:
        for lst in n.lists:
            kind = _kind(n.source, lst)
            score = lst.get("score")
            if kind != "on-topic" or lst["relevance"] >= 1:
                cases.append(Case(kind, n.split, n.id, n.text, f"{n.id}/{lst['id']}", tuple(lst["terms"]), lst["relevance"],
                                  score, n.source))
            if kind == "on-topic" and lst["relevance"] >= 2 and lst.get("filmability", 3) >= 2:
                list_id = f"{n.id}/{lst['id']}"
                others = sorted((o for o in narrations if may_swap(n, o, compatible, related)),
                                key=lambda o: _spread(list_id, o.id))
                cases += [Case("swap", o.split, o.id, o.text, list_id, tuple(lst["terms"]), 0, None, n.source)
                          for o in others[:SWAPS_PER_LIST]]
    return cases
