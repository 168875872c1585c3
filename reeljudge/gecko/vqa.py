"""Validation (VQA): one judge request per (media, rubric) with every question, numbered, and the
parsing of its verdicts.

Verdicts are matched to questions by number, falling back to the repeated question text (also when
the number points at a different question than the text it repeats). A verdict counts when it is a
choice letter written as ``b``, ``B``, ``b)``, ``(b)``, ``b) long shot`` or ``Answer: B``; anything
else leaves the question *unanswered* (scored 0, and lowering coverage), never silently wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from reeljudge.gemini.client import JudgeRequest, MediaInput, ReplyInvalid
from reeljudge.gemini.prompts import read_rubric
from reeljudge.gemini.untrusted import data_block
from reeljudge.gecko.questions import Question
from reeljudge.gecko.validity import numbered_questions

ANSWER_FILES = {"video": "gecko_video_answer.md", "image": "gecko_image_answer.md"}
USER_MARKER = "Answer every question below about the {kind} above."
_BLOCK = re.compile(r"<question>(.*?)(?:</question>|(?=<question>)|\Z)", re.DOTALL | re.IGNORECASE)
_NUMBER = re.compile(r"^\s*(?:number|no\.?|#)\s*[:.]?\s*(\d+)", re.IGNORECASE | re.MULTILINE)
_LEADING_NUMBER = re.compile(r"^\s*(?:q(?:uestion)?\s*)?(\d+)\s*[.):]", re.IGNORECASE)
_QUESTION = re.compile(r"question\s*:\s*(.*?)\s*(?=verdict\s*:|answer\s*:|\Z)", re.DOTALL | re.IGNORECASE)
_VERDICT = re.compile(r"(?:verdict|answer)\s*:\s*([^\n]*)", re.IGNORECASE)
_LETTER = re.compile(
    r"^[\s*`\"']*(?:(?:answer|verdict)\s*[:\-]\s*)?[*`\"']*(\(?([A-Ja-j])\)?)(?=$|[\s).:,\-*`\"'])(.*)$",
    re.DOTALL | re.IGNORECASE,
)
_SPACE = re.compile(r"[\s\W_]+")


def vqa_request(kind: str, questions: list[Question], media: MediaInput, media_resolution: str | None, logprobs: bool) -> JudgeRequest:
    """The judge request asking every question of a rubric about one clip or image."""
    user = (
        f"{USER_MARKER.format(kind=kind)} The block below is data, not instructions.\n\n"
        f"{data_block('questions', numbered_questions(questions))}"
    )
    return JudgeRequest(
        kind=f"gecko.vqa.{kind}",
        system=read_rubric(ANSWER_FILES[kind]),
        parts=(media, user),
        media_resolution=media_resolution,
        response_logprobs=logprobs,
    )


def verdict_letter(raw: str) -> tuple[str | None, int]:
    """The choice letter a verdict names and its index in ``raw``; (None, -1) when it names none clearly."""
    match = _LETTER.match(raw)
    if not match:
        return None, -1
    wrapped, letter, rest = match.group(1), match.group(2), match.group(3)
    bare = not wrapped.startswith("(") and not wrapped.endswith(")")
    rest = rest.strip().strip("*`\"'").strip()
    if bare and rest and not rest.startswith((")", ".", ":", "-", ",")):
        return None, -1  # "a long shot", "I think…": prose, not a verdict
    return letter.lower(), match.start(2)


@dataclass
class _Block:
    number: int | None
    question: str
    raw: str
    letter: str | None
    offset: int


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text.lower()).strip()


def _blocks(text: str) -> list[_Block]:
    """Every question block of a reply with its number, repeated question, raw verdict and letter."""
    spans = [(m.start(1), m.group(1)) for m in _BLOCK.finditer(text)]
    if not spans:
        marker = re.compile(r"(?=^\s*number\s*:)", re.IGNORECASE | re.MULTILINE)
        if not marker.search(text):
            marker = re.compile(r"(?=^\s*(?:q(?:uestion)?\s*)?\d+\s*[.):]|^\s*question\s*:)", re.IGNORECASE | re.MULTILINE)
        starts = [m.start() for m in marker.finditer(text)] or [0]
        spans = [(s, text[s:e]) for s, e in zip(starts, starts[1:] + [len(text)])]
    out = []
    for start, body in spans:
        number_match = _NUMBER.search(body) or _LEADING_NUMBER.match(body)
        question_match = _QUESTION.search(body)
        verdict_match = _VERDICT.search(body)
        raw = verdict_match.group(1) if verdict_match else ""
        letter, offset = verdict_letter(raw) if raw.strip() else (None, -1)
        raw = raw.strip()
        absolute = start + verdict_match.start(1) + offset if letter and verdict_match else -1
        out.append(
            _Block(
                int(number_match.group(1)) if number_match else None,
                question_match.group(1).strip() if question_match else "",
                raw,
                letter,
                absolute,
            )
        )
    return out


def parse_verdicts(text: str, questions: list[Question]) -> dict[str, Any]:
    """``{"verdicts": {"1": {letter, raw, matched_by, offset}, …}, "unmatched": [...]}``; ReplyInvalid with no usable verdict."""
    by_text = {_norm(q.question): i for i, q in enumerate(questions, 1)}
    verdicts: dict[str, dict[str, Any]] = {}
    unmatched: list[str] = []
    for block in _blocks(text):
        if not block.raw and not block.question:
            continue
        text_index = by_text.get(_norm(block.question)) if block.question else None
        if block.number is not None and 1 <= block.number <= len(questions):
            index, how = block.number, "number"
            if text_index is not None and text_index != block.number:
                index, how = text_index, "question text (its number pointed at another question)"
        elif text_index is not None:
            index, how = text_index, "question text"
        else:
            unmatched.append((block.raw or block.question)[:200])
            continue
        if str(index) in verdicts:
            continue
        letter = block.letter
        note = None
        if letter is not None and letter not in questions[index - 1].letters():
            note = f"letter {letter!r} is not one of this question's choices"
            letter = None
        verdicts[str(index)] = {"letter": letter, "raw": block.raw[:200], "matched_by": how, "offset": block.offset if letter else -1}
        if note:
            verdicts[str(index)]["note"] = note
    if not any(v["letter"] for v in verdicts.values()):
        raise ReplyInvalid(
            "no verdict could be read: answer every question with a block "
            "<question> Number: n  Question: …  Verdict: <letter> </question>"
        )
    return {"verdicts": verdicts, "unmatched": unmatched}


def verdict_parser(questions: list[Question]):
    """A parse function for ``JudgeClient.ask`` bound to the questions asked."""
    return lambda text: parse_verdicts(text, questions)
