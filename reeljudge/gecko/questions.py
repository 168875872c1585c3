"""Gecko's multiple-choice questions: one record type, choice letters, and test-declared ``qas:``."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any, Mapping

from reeljudge.errors import BadInputError
from reeljudge.gecko.tags import TAGS, normalise_tag

LETTERS = "abcdefghij"
_LETTERED = re.compile(r"^\s*\(?([A-Ja-j])\s*[).:]\s*(.*)$", re.DOTALL)


@dataclass
class Question:
    """One question of a question_set: text, lettered choices, ground-truth letter, tag and provenance."""

    question: str
    choices: list[str]
    answer: str
    tag: str = "other"
    justification: str = ""
    question_id: int | None = None
    cited: list[int] = field(default_factory=list)
    tag_source: str = "declared"
    parents: list[int] = field(default_factory=list)  # question_ids this one presupposes, as its source named them

    def letters(self) -> list[str]:
        """The letters of the choices, in order (``a``, ``b``…)."""
        return [choice_letter(c, i)[0] for i, c in enumerate(self.choices)]

    def choice_texts(self) -> list[str]:
        """The choices without their letters."""
        return [choice_letter(c, i)[1] for i, c in enumerate(self.choices)]

    def answer_text(self) -> str:
        """The text of the correct choice ('' when the answer letter names no choice)."""
        for letter, text in zip(self.letters(), self.choice_texts()):
            if letter == self.answer:
                return text
        return ""

    def as_dict(self) -> dict[str, Any]:
        """A JSON-able view (``parents`` only when named)."""
        view = asdict(self)
        if not self.parents:
            del view["parents"]
        return view


def parent_list(value: Any) -> list[int]:
    """Question ids from an explicit parent field: ``3``, ``"3"``, ``[1, 2]``, ``"1, 2"``; 0 and junk left out."""
    items = value if isinstance(value, list) else str(value if value is not None else "").split(",")
    ids = []
    for item in items:
        text = str(item).strip()
        if text.isdigit() and int(text) > 0 and int(text) not in ids:
            ids.append(int(text))
    return ids


def questions_to_json(arguments: dict[str, Any]) -> dict[str, Any]:
    """A parser factory's ``questions`` argument as JSON (for a reply parser's identity)."""
    return {**arguments, "questions": [q.as_dict() for q in arguments["questions"]]}


def questions_from_json(arguments: dict[str, Any]) -> dict[str, Any]:
    """The inverse of ``questions_to_json``."""
    return {**arguments, "questions": [Question(**q) for q in arguments["questions"]]}


def choice_letter(choice: str, index: int) -> tuple[str, str]:
    """The letter and text of a choice: ``"b) close up"`` → (``b``, ``close up``); unlettered gets its position's letter."""
    match = _LETTERED.match(str(choice))
    if match and match.group(2).strip():
        return match.group(1).lower(), match.group(2).strip()
    return LETTERS[index] if index < len(LETTERS) else "?", str(choice).strip()


def lettered(choices: list[str]) -> list[str]:
    """Choices written ``"a) …"``, adding letters by position where they are missing."""
    out = []
    for i, choice in enumerate(choices):
        letter, text = choice_letter(choice, i)
        out.append(f"{letter}) {text}")
    return out


def choice_map(choices: list[str]) -> dict[str, str]:
    """Letter → text of each choice."""
    return dict(choice_letter(c, i) for i, c in enumerate(choices))


def answer_letter(answer: Any, choices: list[str]) -> str | None:
    """The letter an answer names (``b``, ``B``, ``b)``, ``(b)``, the correct choice's text…); None if it names no choice."""
    from reeljudge.gemini.replies import read_choice

    return read_choice(str(answer if answer is not None else ""), choice_map(choices)).letter


def declared_questions(value: Any, *, test: str, var: str = "qas") -> list[Question]:
    """Questions a test declares in YAML (``question``, ``choices``, ``answer``, optional ``tag`` and
    ``depends_on``: the numbers of the items it presupposes), used as is.

    BadInputError naming the test and item when one is malformed.
    """
    if isinstance(value, str):
        import yaml

        try:
            value = yaml.safe_load(value)
        except yaml.YAMLError as error:
            raise BadInputError(f"test {test!r}: var {var!r} is not valid YAML/JSON ({error})") from None
    if not isinstance(value, list) or not value:
        raise BadInputError(f"test {test!r}: var {var!r} must be a non-empty list of questions")
    questions = []
    for n, item in enumerate(value, 1):
        where = f"test {test!r}: {var}[{n}]"
        if not isinstance(item, Mapping):
            raise BadInputError(f"{where} must be a mapping with question, choices, answer")
        question = str(item.get("question") or "").strip()
        choices = item.get("choices")
        if not question:
            raise BadInputError(f"{where} has no question")
        if not isinstance(choices, list) or len(choices) < 2:
            raise BadInputError(f"{where} needs a list of at least 2 choices")
        choices = lettered([str(c) for c in choices])
        letter = answer_letter(item.get("answer"), choices)
        if letter is None or letter not in [choice_letter(c, i)[0] for i, c in enumerate(choices)]:
            raise BadInputError(f"{where}: answer {item.get('answer')!r} is not one of the choices' letters")
        raw_tag = item.get("tag")
        tag = normalise_tag(str(raw_tag)) if raw_tag else "other"
        questions.append(
            Question(question, choices, letter, tag, str(item.get("justification") or ""), n, [], "declared",
                     parent_list(item.get("depends_on")))
        )
    return questions


__all__ = ["Question", "TAGS", "LETTERS", "choice_letter", "lettered", "answer_letter", "declared_questions"]


@dataclass
class Dropped:
    """A question the validity checks removed, and why."""

    question: Question
    reason: str
    check: str

    def as_dict(self) -> dict[str, Any]:
        """A JSON-able view."""
        return {**self.question.as_dict(), "dropped_by": self.check, "why": self.reason}


@dataclass
class QuestionSet:
    """The questions a prompt is judged by: kept ones, dropped ones with reasons, and their origin."""

    prompt: str
    source: str  # generated | declared | file
    kept: list[Question]
    dropped: list[Dropped] = field(default_factory=list)
    keywords: str = ""
    keyword_tree: list[dict[str, Any]] = field(default_factory=list)
    annotation_problems: list[str] = field(default_factory=list)
