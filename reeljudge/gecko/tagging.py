"""Which tag a generated question gets: from the keywords its justification cites, else by matching.

The justification cites keywords as ``({2})`` or ``({4}, {5})``. Among the cited keywords (and the
keywords nested inside them) the one whose phrase shares most words with the correct choice, then
with the question, decides the tag; ties go to a keyword with a known type, then to the first cited.
A question citing none is matched the same way against every keyword; with no overlap at all
(and nothing cited) it is ``other``.
"""

from __future__ import annotations

import re

from reeljudge.gecko.keywords import Annotation, Keyword
from reeljudge.gecko.questions import Question

_CITE = re.compile(r"\{(\d+)\}")
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "a an the of in on at to is are was were be by with and or for from as it its this that what which who "
    "whom whose where when how does do did video image picture shown scene".split()
)


def cited_ids(justification: str) -> list[int]:
    """The keyword ids a justification cites, in order, without repeats."""
    seen: list[int] = []
    for match in _CITE.finditer(justification or ""):
        value = int(match.group(1))
        if value not in seen:
            seen.append(value)
    return seen


def stem(word: str) -> str:
    """A crude stem: common suffixes off, at most five letters (``rotating``, ``rotates`` → ``rotat``)."""
    for suffix in ("ing", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:5]


def content_words(text: str) -> set[str]:
    """Stems of the words of ``text``, stop words left out."""
    return {stem(w) for w in _WORD.findall((text or "").lower()) if w not in _STOP}


def _with_nested(keywords: list[Keyword]) -> list[Keyword]:
    """The keywords followed by every keyword nested inside them, without repeats."""
    out: list[Keyword] = []
    todo = list(keywords)
    while todo:
        keyword = todo.pop(0)
        if all(k is not keyword for k in out):
            out.append(keyword)
            todo.extend(keyword.children)
    return out


def best_matching_keyword(
    question: Question, candidates: list[Keyword], *, need_overlap: bool = True
) -> Keyword | None:
    """The candidate sharing most words with the correct choice, then the question (known types win ties)."""
    answer_words = content_words(question.answer_text())
    question_words = content_words(question.question)
    best, best_key = None, None
    for position, keyword in enumerate(candidates):
        phrase = content_words(keyword.phrase)
        a, q = len(phrase & answer_words), len(phrase & question_words)
        if need_overlap and a == 0 and q == 0:
            continue
        key = (a, q, keyword.tag != "other", -position)
        if best_key is None or key > best_key:
            best, best_key = keyword, key
    return best


def assign_tag(question: Question, annotation: Annotation) -> Question:
    """The question with ``tag``, ``cited`` and ``tag_source`` (cited / matched / none) filled in."""
    question.cited = cited_ids(question.justification)
    cited = [annotation.by_id[k] for k in question.cited if k in annotation.by_id]
    if cited:
        keyword = best_matching_keyword(question, _with_nested(cited), need_overlap=False)
        assert keyword is not None
        question.tag, question.tag_source = keyword.tag, f"cited {{{keyword.id}}}"
        return question
    keyword = best_matching_keyword(question, annotation.keywords())
    if keyword is not None:
        question.tag, question.tag_source = keyword.tag, f"matched {{{keyword.id}}}"
    else:
        question.tag, question.tag_source = "other", "none"
    return question
