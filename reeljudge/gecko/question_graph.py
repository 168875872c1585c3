"""Which kept questions presuppose which: the DSG question graph of a Gecko question set.

A question belongs to the keywords its justification cites (``({4})``). Its parents are the
questions of the nearest keyword that encloses one of its keywords in the annotation
(``{3}[wearing a {4}[purple, color, 1.0] robe, …]``: the robe question is the parent of the
colour question; when the enclosing keyword has no question, the next one out), and the questions
its source names explicitly (a generator's ``parent_id``/``parents``, a declared item's
``depends_on``, both as question ids). A question citing no keyword gets only explicit parents.
Questions are numbered 1… in the order asked, as in the results (``q<n>``).
"""

from __future__ import annotations

from collections import defaultdict

from reeljudge.gecko.keywords import parse_annotation
from reeljudge.gecko.questions import Question


def question_parents(questions: list[Question], keywords: str = "") -> dict[int, list[int]]:
    """Question number → the numbers of its parent questions (only questions with a parent appear)."""
    by_id = parse_annotation(keywords).by_id if keywords else {}
    owners: dict[int, list[int]] = defaultdict(list)  # keyword id -> numbers of the questions citing it
    for number, question in enumerate(questions, 1):
        for keyword in question.cited:
            owners[keyword].append(number)
    numbers_of_id: dict[int, list[int]] = defaultdict(list)
    for number, question in enumerate(questions, 1):
        if question.question_id is not None:
            numbers_of_id[question.question_id].append(number)
    graph: dict[int, list[int]] = {}
    for number, question in enumerate(questions, 1):
        found: list[int] = []
        for keyword in question.cited:
            enclosing = by_id[keyword].parent_id if keyword in by_id else None
            while enclosing is not None:
                outer = [n for n in owners.get(enclosing, []) if n != number]
                if outer:
                    found.extend(outer)
                    break
                enclosing = by_id[enclosing].parent_id if enclosing in by_id else None
        for parent_id in question.parents:
            found.extend(n for n in numbers_of_id.get(parent_id, []) if n != number)
        if found:
            graph[number] = sorted(set(found))
    return graph
