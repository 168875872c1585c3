"""Reading one A/B judge reply: repaired where it has one reading, refused where it has two.

The reply's JSON comes through the one reply reader (``reeljudge.gemini.replies``). Before it is
checked against the reply schema and the protocol's rules, three things with one reading are
repaired, and each repair is recorded (``repaired``, kept in the result metadata):

- **a winner in a plain form of A, B or tie**: the side letter in either case, alone or after
  ``clip`` or ``video`` (joined by nothing, a space, ``_`` or ``-``), or ``tie`` / ``a tie`` in any
  case; wrapped at most in quotes, backticks, asterisks, one pair of brackets, and a final ``.``
  or ``!`` (``"a"``, ``"Clip A"``, ``"clip_b"``, ``"**B**"``, ``"(A)"``, ``"TIE"``, ``"Tie."``).
  Anything else stays as written and is refused by the schema: two sides (``"A or B"``, ``"A/B"``,
  ``"both"``), a side with a qualifier (``"A, barely"``), another name (``"clip 1"``, ``"left"``,
  ``"neither"``), no winner;
- **an optional field left out**: ``secondary_tags`` (also when null) is none, ``note`` is null;
- **a secondary tag that repeats the primary tag**: dropped.

The side letter itself is read by the one answer-letter reader (``reeljudge.gemini.replies.read_choice``);
this module only peels off the protocol's own words around it (``clip``/``video``, the wrapping, ``tie``).
"""

from __future__ import annotations

import json
import re
from typing import Any

_WRAP = " \t\n*`'\""
_CLIP = re.compile(r"^(?:clip|video)[\s_-]?", re.IGNORECASE)
_SIDES = {"a": "clip A", "b": "clip B"}
_TIE = re.compile(r"(?:a\s+)?tie", re.IGNORECASE)
_BRACKETS = {"(": ")", "[": "]", "{": "}", "<": ">"}


def plain_winner(raw: Any) -> str | None:
    """``A``, ``B`` or ``tie`` when ``raw`` is a plain form of one of them (see the module doc), else None."""
    if not isinstance(raw, str):
        return None
    text = raw.strip(_WRAP)
    if text[-1:] in ".!":
        text = text[:-1].strip(_WRAP)
    if text[:1] in _BRACKETS and text.endswith(_BRACKETS[text[:1]]):
        text = text[1:-1].strip(_WRAP)
    if _TIE.fullmatch(text):
        return "tie"
    letter = _CLIP.sub("", text, count=1)
    if len(letter) != 1:
        return None
    from reeljudge.gemini.replies import read_choice  # the one letter reader

    side = read_choice(letter, _SIDES).letter
    return side.upper() if side else None


def repair_reply(value: Any) -> tuple[Any, list[str]]:
    """``value`` with the one-reading repairs made, and a line per repair (unchanged when it is no object)."""
    if not isinstance(value, dict):
        return value, []
    out, notes = dict(value), []
    winner = plain_winner(out.get("winner"))
    if winner is not None and winner != out.get("winner"):
        notes.append(f"winner {json.dumps(out.get('winner'))} read as {json.dumps(winner)}")
        out["winner"] = winner
    if out.get("secondary_tags") is None:
        notes.append(f"secondary_tags {'null' if 'secondary_tags' in out else 'left out'}: read as none")
        out["secondary_tags"] = []
    if "note" not in out:
        notes.append("note left out: read as null")
        out["note"] = None
    primary, secondary = out.get("primary_tag"), out.get("secondary_tags")
    if isinstance(primary, str) and isinstance(secondary, list) and primary in secondary:
        out["secondary_tags"] = [t for t in secondary if t != primary]
        notes.append(f"secondary tag {json.dumps(primary)} repeats the primary tag: dropped")
    return out, notes


__all__ = ["plain_winner", "repair_reply"]
