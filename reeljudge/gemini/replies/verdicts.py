"""Reading one multiple-choice verdict: a letter in any usual form or the exact text of a choice;
two different verdicts for one question are a conflict, never a guess.

Part of the one reply reader (``reeljudge.gemini.replies``; policy in its docstring).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, Sequence

from reeljudge.gemini.replies.json_values import quote

_DECOR = "*`\"'_ \t"
_PREFIX = re.compile(r"^(?:final\s+)?(?:answer|verdict|choice|option)\s*(?:is)?\s*[:\-]?\s*", re.IGNORECASE)
_LONE = re.compile(r"^\(?([a-jA-J])\)?[.):]?$")
_LEAD = re.compile(r"^\(?([a-jA-J])(?:\)|\)?[.:\-])\s*(.*)$", re.DOTALL)
_MENTION = re.compile(r"(?<![A-Za-z])\(([a-jA-J])\)|(?<![A-Za-z'])([a-jA-J])\)"
                      r"|(?:^|[\s,/])([a-jA-J])(?=\s*(?:,|/|$|\s+(?:or|and)\s))")
_NORM = re.compile(r"[\s\W_]+")


@dataclass(frozen=True)
class Choice:
    """What one verdict names: a letter, or why it names none (``problem``; ``conflict`` if two)."""

    letter: str | None
    problem: str | None = None
    conflict: bool = False


def _norm(text: str) -> str:
    return _NORM.sub(" ", text.lower()).strip()


def read_choice(raw: str, choices: Mapping[str, str]) -> Choice:
    """The choice letter a verdict names (``choices``: letter → text), or why it names none.

    Two different letters, or a letter whose written text is another choice's, is a conflict:
    the question is unanswered, never guessed.
    """
    text = _PREFIX.sub("", raw.strip().strip(_DECOR)).strip().strip(_DECOR).rstrip(".")
    if not text:
        return Choice(None, "no verdict")
    by_text = {_norm(t): letter for letter, t in choices.items() if _norm(t)}
    lone = _LONE.match(text)
    if lone:
        return _named(lone.group(1).lower(), choices)
    if _norm(text) in by_text:
        return Choice(by_text[_norm(text)])
    lead = _LEAD.match(text)
    if lead:
        letter, rest = lead.group(1).lower(), _norm(lead.group(2))
        other = by_text.get(rest)
        if other is not None and other != letter:
            return Choice(None, f"two verdicts: {letter!r} written with the text of {other!r}", conflict=True)
        mentioned = _mentions(lead.group(2)) - {letter}
        if mentioned:
            return Choice(None, f"two verdicts: {', '.join(sorted({letter} | mentioned))}", conflict=True)
        return _named(letter, choices)
    mentioned = _mentions(text)
    if len(mentioned) > 1:
        return Choice(None, f"two verdicts: {', '.join(sorted(mentioned))}", conflict=True)
    if len(mentioned) == 1 and re.fullmatch(r"[\s(),/a-jA-J]*", text):
        return _named(mentioned.pop(), choices)
    return Choice(None, f"no choice letter or choice text in {quote(text, width=40)}")


def _mentions(text: str) -> set[str]:
    """Letters written as choices in ``text``: ``(b)``, ``b)``, or a lone letter in a list (``b, c``, ``b or c``)."""
    found = set()
    for match in _MENTION.finditer(text):
        letter = next(g for g in match.groups() if g)
        found.add(letter.lower())
    return found


def _named(letter: str, choices: Mapping[str, str]) -> Choice:
    if letter not in choices:
        return Choice(None, f"letter {letter!r} names no choice (choices: {', '.join(choices)})")
    return Choice(letter)


def merge_choices(found: Sequence[Choice]) -> Choice:
    """One question's verdict from every place the reply gave one: agreeing letters merge, different ones conflict."""
    letters = sorted({c.letter for c in found if c.letter})
    if len(letters) > 1:
        return Choice(None, f"two verdicts for one question: {', '.join(letters)}", conflict=True)
    conflicts = [c for c in found if c.conflict]
    if conflicts:
        return conflicts[0]
    if letters:
        return Choice(letters[0])
    return found[0] if found else Choice(None, "no verdict")
