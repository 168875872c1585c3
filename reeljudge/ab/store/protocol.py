"""The A/B protocol as data: families, priority order, dimensions, reason tags and form rules.

``load_protocol()`` reads ``protocols/<id>.yaml`` (through its parsed twin ``<id>.parsed.json`` when the
twin was made from the file's exact bytes: an assertion then loads no YAML parser); ``check_form()`` applies the protocol's rules
to
one verdict (in terms of the sides shown) and returns every violation with the field it concerns,
so the rating page and the server show the same messages. Standard library + PyYAML only.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from reeljudge.errors import BadInputError
from reeljudge.package_data import protocols_folder

PROTOCOL_DIR = protocols_folder()
DEFAULT_PROTOCOL = "ab-v1"
#: the winner of a verdict that prefers neither clip
TIE = "tie"
#: the parsed twin of ``<id>.yaml``: its content as JSON, with the sha256 of the YAML bytes it was made from
TWIN_SUFFIX = ".parsed.json"
SIDES = ("A", "B")


@dataclass(frozen=True)
class Family:
    """A task family (text-to-video, edit, …)."""

    id: str
    label: str
    needs_source: bool = False


@dataclass(frozen=True)
class Dimension:
    """A 1–5 rating dimension with its anchor texts; ``families`` empty means every family."""

    id: str
    label: str
    priority: str
    anchors: Mapping[int, str]
    families: tuple[str, ...] = ()

    def applies_to(self, family: str) -> bool:
        """Whether this dimension is rated on tasks of ``family``."""
        return not self.families or family in self.families


@dataclass(frozen=True)
class Tag:
    """A reason tag: stable id, label, group, scope (``loser`` or ``tie``) and allowed families."""

    id: str
    label: str
    group: str
    scope: str = "loser"
    families: tuple[str, ...] = ()

    def applies_to(self, family: str) -> bool:
        """Whether this tag may be used on tasks of ``family``."""
        return not self.families or family in self.families


@dataclass(frozen=True)
class Rules:
    """The form rules of the protocol."""

    winners: tuple[str, ...] = ("A", "B", "tie")
    primary_tags: int = 1
    secondary_tags_max: int = 3
    note_max_sentences: int = 2
    note_max_chars: int = 400
    ratings_required: bool = True
    min_full_plays: int = 2


@dataclass(frozen=True)
class Protocol:
    """One version of the protocol, as loaded from its data file."""

    id: str
    title: str
    instructions: tuple[str, ...]
    families: dict[str, Family]
    priority: tuple[str, ...]
    dimensions: tuple[Dimension, ...]
    tags: dict[str, Tag]
    groups: tuple[dict[str, Any], ...]
    rules: Rules
    raw: Mapping[str, Any] = field(repr=False, default_factory=dict)

    def dimensions_for(self, family: str) -> tuple[Dimension, ...]:
        """The dimensions rated on tasks of ``family``, in file order."""
        return tuple(d for d in self.dimensions if d.applies_to(family))

    def family(self, family_id: str) -> Family:
        """The family with this id; BadInputError listing the known ones otherwise."""
        try:
            return self.families[family_id]
        except KeyError:
            known = ", ".join(self.families)
            raise BadInputError(f"unknown task family {family_id!r} (protocol {self.id} knows: {known})") from None

    def public(self) -> dict[str, Any]:
        """The protocol as JSON for the rating page (the data file's content, ids and labels)."""
        return dict(self.raw)


@dataclass(frozen=True)
class Violation:
    """One broken rule: the form field it concerns and a message for the rater."""

    field: str
    message: str

    def as_dict(self) -> dict[str, str]:
        """JSON form."""
        return {"field": self.field, "message": self.message}


@lru_cache(maxsize=8)
def load_protocol(protocol_id: str = DEFAULT_PROTOCOL, directory: Path | None = None) -> Protocol:
    """Read and check ``<directory>/<protocol_id>.yaml``; BadInputError naming the file if it is wrong."""
    path = (directory or PROTOCOL_DIR) / f"{protocol_id}.yaml"
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise BadInputError(f"{path.name}: no such protocol (looked in {path.parent.name}/)") from None
    data = _from_twin(path, raw)
    if data is None:
        data = _parse_yaml(raw)
    if not isinstance(data, dict) or data.get("id") != protocol_id:
        raise BadInputError(f"{path.name}: the file's id must be {protocol_id!r}")
    return _build(data)


def _parse_yaml(raw: bytes) -> Any:
    """The protocol file's content, parsed as YAML, in its JSON form (what the twin holds)."""
    import yaml  # here: only a protocol without an up-to-date twin needs the parser

    data = yaml.load(raw.decode("utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # libyaml: ~10x faster
    return json.loads(json.dumps(data, ensure_ascii=False))  # JSON form: the same whichever way it was read


def twin_path(path: Path) -> Path:
    """Where the parsed twin of a protocol file lives (beside it)."""
    return path.with_name(path.name.removesuffix(".yaml") + TWIN_SUFFIX)


def _from_twin(path: Path, raw: bytes) -> Any | None:
    """The content the twin holds when it was made from exactly ``raw``; None when absent, unreadable or stale.

    Sound by content, not by time: the twin records the sha256 of the YAML bytes it was parsed from,
    so an edited protocol file is parsed again, whatever its modification time."""
    try:
        twin = json.loads(twin_path(path).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(twin, dict) or twin.get("source_sha256") != hashlib.sha256(raw).hexdigest():
        return None
    return twin.get("protocol")


def twin_text(protocol_id: str, directory: Path | None = None) -> str:
    """The parsed twin ``protocol_id``'s YAML file should have (parsed now, never read from a twin)."""
    path = (directory or PROTOCOL_DIR) / f"{protocol_id}.yaml"
    raw = path.read_bytes()
    twin = {"source": path.name, "source_sha256": hashlib.sha256(raw).hexdigest(), "protocol": _parse_yaml(raw)}
    return json.dumps(twin, indent=1, ensure_ascii=False) + "\n"


def _build(data: Mapping[str, Any]) -> Protocol:
    """A Protocol from parsed YAML."""
    families = {f["id"]: Family(f["id"], f["label"], bool(f.get("needs_source"))) for f in data["families"]}
    dims = tuple(
        Dimension(d["id"], d["label"], d["priority"], {int(k): v for k, v in d["anchors"].items()},
                  tuple(d.get("families") or ()))
        for d in data["dimensions"]
    )
    tags: dict[str, Tag] = {}
    for group in data["tag_groups"]:
        for t in group["tags"]:
            if t["id"] in tags:
                raise BadInputError(f"protocol {data['id']}: tag id {t['id']!r} appears twice")
            tags[t["id"]] = Tag(t["id"], t["label"], group["id"], group.get("scope", "loser"), tuple(group.get("families") or ()))
    given: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in (data.get("rules") or {}).items()}
    rules = Rules(**given)
    for d in dims:
        if d.priority not in data["priority"]:
            raise BadInputError(f"protocol {data['id']}: dimension {d.id} has unknown priority {d.priority!r}")
    return Protocol(
        data["id"], data["title"], tuple(data.get("instructions") or ()), families, tuple(data["priority"]),
        dims, tags, tuple(data["tag_groups"]), rules, data,
    )


def check_form(protocol: Protocol, family: str, form: Mapping[str, Any]) -> list[Violation]:
    """Every protocol rule that a verdict breaks (empty when it is valid).

    ``form`` is in terms of the sides shown: ``winner`` (A/B/tie), ``primary_tag``,
    ``secondary_tags``, ``ratings`` ({"A": {dimension: 1..5}, "B": {...}}) and ``note``.
    """
    problems: list[Violation] = []
    winner = form.get("winner")
    if winner not in protocol.rules.winners:
        problems.append(Violation("winner", "Choose the winner: A, B or Tie."))
    problems += _check_tags(protocol, family, winner, form.get("primary_tag"), form.get("secondary_tags"))
    problems += _check_ratings(protocol, family, form.get("ratings"))
    problems += _check_note(protocol, form.get("note"))
    return problems


def _check_tags(protocol: Protocol, family: str, winner: Any, primary: Any, secondary: Any) -> list[Violation]:
    """The tag rules: one known primary tag, 0–3 distinct secondary tags, scope and family fit."""
    problems: list[Violation] = []
    if not isinstance(primary, str) or not primary:
        problems.append(Violation("primary_tag", "Choose exactly one primary reason tag."))
    if secondary is None:
        secondary = []
    if not isinstance(secondary, list) or not all(isinstance(t, str) for t in secondary):
        return problems + [Violation("secondary_tags", "Secondary tags must be a list of tag ids.")]
    if len(secondary) > protocol.rules.secondary_tags_max:
        problems.append(Violation("secondary_tags",
                                  f"Choose at most {protocol.rules.secondary_tags_max} secondary tags (you "
                                  f"chose {len(secondary)})."))
    if len(set(secondary)) != len(secondary):
        problems.append(Violation("secondary_tags", "Each secondary tag may be chosen once."))
    if isinstance(primary, str) and primary in secondary:
        problems.append(Violation("secondary_tags", "The primary tag cannot also be a secondary tag."))
    for slot, tag_id in [("primary_tag", primary)] * isinstance(primary, str) + [("secondary_tags", t) for t in secondary]:
        problems += _check_tag(protocol, family, winner, slot, tag_id)
    return problems


def _check_tag(protocol: Protocol, family: str, winner: Any, slot: str, tag_id: str) -> list[Violation]:
    """One tag's rules: known, allowed for the family, and of the right scope for the verdict."""
    tag = protocol.tags.get(tag_id)
    if tag is None:
        return [Violation(slot, f"Unknown reason tag {tag_id!r}.")] if tag_id else []
    if not tag.applies_to(family):
        return [Violation(slot, f"“{tag.label}” is for {', '.join(tag.families)} tasks only; this is a {family} task.")]
    if winner == "tie" and tag.scope == "loser":
        return [Violation(slot,
                          f"A tie has no loser: “{tag.label}” names a failure of the losing clip. Pick a tie "
                          "reason, or pick a winner.")]
    if winner in ("A", "B") and tag.scope == "tie":
        return [Violation(slot, f"“{tag.label}” is a reason for a tie, but you chose {winner} as the winner.")]
    return []


def _check_ratings(protocol: Protocol, family: str, ratings: Any) -> list[Violation]:
    """Ratings 1–5 for every applicable dimension of both clips, and none for the others."""
    if ratings is None:
        ratings = {}
    if not isinstance(ratings, Mapping):
        return [Violation("ratings", "Ratings must be given per clip.")]
    problems: list[Violation] = []
    wanted = {d.id: d for d in protocol.dimensions_for(family)}
    everyone = {d.id: d for d in protocol.dimensions}
    for side in SIDES:
        given = ratings.get(side) or {}
        if not isinstance(given, Mapping):
            problems.append(Violation(f"ratings.{side}", f"Ratings for clip {side} must map dimensions to 1–5."))
            continue
        for dim_id, value in given.items():
            if dim_id not in everyone:
                problems.append(Violation(f"ratings.{side}.{dim_id}", f"Unknown dimension {dim_id!r}."))
            elif dim_id not in wanted:
                fams = ", ".join(everyone[dim_id].families)
                problems.append(Violation(f"ratings.{side}.{dim_id}",
                                          f"{everyone[dim_id].label} is rated only on {fams} tasks; this is a {family} task."))
            elif isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 5:
                problems.append(Violation(f"ratings.{side}.{dim_id}",
                                          f"{wanted[dim_id].label} of clip {side} must be a whole number from 1 to 5."))
        if protocol.rules.ratings_required:
            for dim_id, dim in wanted.items():
                if dim_id not in given or given[dim_id] is None:
                    problems.append(Violation(f"ratings.{side}.{dim_id}", f"Rate {dim.label} for clip {side}."))
    return problems


#: a run of sentence marks before a space or the end, tried from the run's first mark only (linear in the note)
_SENTENCE_END = re.compile(r"(?<![.!?…])[.!?…]+(?=\s|$)")


def _check_note(protocol: Protocol, note: Any) -> list[Violation]:
    """An optional note of at most the allowed sentences and characters."""
    if note is None or note == "":
        return []
    if not isinstance(note, str):
        return [Violation("note", "The note must be text.")]
    if len(note) > protocol.rules.note_max_chars:
        return [Violation("note", f"Keep the note under {protocol.rules.note_max_chars} characters (it has {len(note)}).")]
    sentences = len(_SENTENCE_END.findall(note.strip())) or 1
    if not note.strip().endswith((".", "!", "?", "…")):
        sentences += 1 if _SENTENCE_END.search(note.strip()) else 0
    if sentences > protocol.rules.note_max_sentences:
        return [Violation("note", f"Keep the note to {protocol.rules.note_max_sentences} sentences (it has {sentences}).")]
    return []
