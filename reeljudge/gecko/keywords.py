"""The keyword annotation of a prompt: ``{i}[phrase, type, weight]`` marks, possibly nested, as a tree.

Example: ``A {1}[fat, attribute, 1.0] {2}[rabbit, entity, 1.0] {3}[wearing a {4}[purple, color, 1.0]
robe, attribute, 1.0]``. Parsing is lenient: a missing weight means 1.0, a mark left unclosed at the
end (as in one of Google's own examples) closes there with type ``other``, and every such repair is
reported in ``Annotation.problems``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from reeljudge.gecko.tags import normalise_tag

_OPEN = re.compile(r"\{(\d+)\}\s*\[")


@dataclass
class Keyword:
    """One marked keyword: its id, plain phrase, raw and normalised type, weight and nested keywords."""

    id: int
    phrase: str
    type: str
    weight: float = 1.0
    children: list["Keyword"] = field(default_factory=list)
    parent_id: int | None = None

    @property
    def tag(self) -> str:
        """The vocabulary tag of this keyword's type."""
        return normalise_tag(self.type)

    def as_dict(self) -> dict[str, object]:
        """A JSON-able view (children nested)."""
        return {
            "id": self.id,
            "phrase": self.phrase,
            "type": self.type,
            "tag": self.tag,
            "weight": self.weight,
            "children": [c.as_dict() for c in self.children],
        }


@dataclass
class Annotation:
    """A parsed annotation: top-level keywords, every keyword by id, the plain text and repairs made."""

    roots: list[Keyword]
    by_id: dict[int, Keyword]
    text: str
    problems: list[str] = field(default_factory=list)

    def keywords(self) -> list[Keyword]:
        """Every keyword, in id order."""
        return [self.by_id[k] for k in sorted(self.by_id)]


@dataclass
class _Open:
    id: int
    chunks: list[str] = field(default_factory=list)
    children: list[Keyword] = field(default_factory=list)


def parse_annotation(annotated: str) -> Annotation:
    """The keyword tree of an annotated prompt (never raises; repairs are listed in ``problems``)."""
    stack: list[_Open] = []
    roots: list[Keyword] = []
    by_id: dict[int, Keyword] = {}
    problems: list[str] = []
    plain: list[str] = []
    i = 0
    while i < len(annotated):
        opened = _OPEN.match(annotated, i)
        if opened:
            stack.append(_Open(int(opened.group(1))))
            i = opened.end()
            continue
        ch = annotated[i]
        if ch == "]" and stack:
            keyword = _close(stack.pop(), problems, unclosed=False)
            _attach(keyword, stack, roots, by_id, problems)
            (stack[-1].chunks if stack else plain).append(keyword.phrase)
            i += 1
            continue
        (stack[-1].chunks if stack else plain).append(ch)
        i += 1
    while stack:
        keyword = _close(stack.pop(), problems, unclosed=True)
        _attach(keyword, stack, roots, by_id, problems)
        (stack[-1].chunks if stack else plain).append(keyword.phrase)
    text = re.sub(r"\s+", " ", "".join(plain)).strip()
    return Annotation(roots, by_id, text, problems)


def _close(item: _Open, problems: list[str], *, unclosed: bool) -> Keyword:
    """The keyword for a finished mark: phrase, type and weight from its comma-separated fields."""
    body = "".join(item.chunks)
    fields = [f.strip() for f in body.split(",")]
    weight = 1.0
    kw_type = "other"
    if unclosed:
        problems.append(f"keyword {{{item.id}}} was never closed with ']'; closed at the end, type 'other'")
        phrase = body.strip()
    else:
        if len(fields) >= 2 and _is_number(fields[-1]):
            weight = float(fields[-1])
            fields = fields[:-1]
        elif len(fields) >= 2:
            problems.append(f"keyword {{{item.id}}} has no weight; 1.0 assumed")
        if len(fields) >= 2:
            kw_type = fields[-1]
            fields = fields[:-1]
        else:
            problems.append(f"keyword {{{item.id}}} has no type; 'other' assumed")
        phrase = ", ".join(fields).strip()
    keyword = Keyword(item.id, re.sub(r"\s+", " ", phrase), kw_type or "other", weight, item.children)
    for child in item.children:
        child.parent_id = item.id
    return keyword


def _attach(keyword: Keyword, stack: list[_Open], roots: list[Keyword], by_id: dict[int, Keyword], problems: list[str]) -> None:
    """Register a finished keyword under its parent (or as a root); a repeated id keeps the first."""
    if keyword.id in by_id:
        problems.append(f"keyword id {{{keyword.id}}} used twice; the first is kept")
    else:
        by_id[keyword.id] = keyword
    (stack[-1].children if stack else roots).append(keyword)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
