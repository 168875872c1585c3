"""Questions that depend on each other: DSG's rule (Cho et al., "Davidsonian Scene Graph", ICLR 2024).

A question graph gives each question the questions it presupposes (its parents): "what colour is the
robe?" presupposes "is the rabbit wearing a robe?". DSG's rule: a question whose parent is scored 0
scores 0 itself, whatever its own answer; its own verdict is recorded, not used (a judge that says
"purple" about a robe it did not see is not credited, and one that says "red" is not penalised
twice). The item's score is the mean over *all* its questions: a zeroed child stays in the
denominator (DSG's ``average_score_with_dependency``).

Here the rule is transitive: a question is zeroed when any ancestor is answered wrong, so a
grandchild of a failed question scores 0 even when its own parent was answered right. DSG's
released scoring script (``dsg/vqa_utils.py: calc_vqa_score``) looks at the direct parents' own
answers only; ``direct_parents_score`` is that variant, kept to reproduce their published figures
(docs/gecko.md gives both).
"""

from __future__ import annotations

from typing import Mapping, Sequence

NO_PARENT = 0


def failed_ancestors(correct: Mapping[int, bool], parents: Mapping[int, Sequence[int]]) -> dict[int, int]:
    """Each question of ``correct`` that the rule zeroes → the id of its first parent that scored 0.

    A parent scores 0 when it was answered wrong or was zeroed itself (so a grandchild of a wrong
    question is zeroed too). A zeroed question's own answer, right or wrong, is not used. Parent id 0
    and ids not in ``correct`` are ignored; a cycle is cut where it closes.
    """
    verdict: dict[int, int | None] = {}
    open_: set[int] = set()

    def blame(question: int) -> int | None:
        if question in verdict:
            return verdict[question]
        open_.add(question)
        found = None
        for parent in parents.get(question, ()):
            if parent == NO_PARENT or parent not in correct or parent in open_:
                continue
            if not correct[parent] or blame(parent) is not None:
                found = parent
                break
        open_.discard(question)
        verdict[question] = found
        return found

    zeroed = {}
    for question in correct:
        culprit = blame(question)
        if culprit is not None:
            zeroed[question] = culprit
    return zeroed


def score_with_dependencies(correct: Mapping[int, bool], parents: Mapping[int, Sequence[int]]) -> float:
    """DSG's item score: the share of questions answered right whose ancestors were all answered right.

    ``correct`` maps question id → answered right; ``parents`` maps question id → the ids of the
    questions it depends on (0 means "no parent"; ids not in ``correct`` are ignored). A question
    with a wrong ancestor counts 0 and stays in the denominator. No questions → 0.0.

    >>> score_with_dependencies({1: False, 2: True, 3: True}, {2: [1], 3: [0]})
    0.3333333333333333
    """
    if not correct:
        return 0.0
    zeroed = failed_ancestors(correct, parents)
    return sum(1 for q, ok in correct.items() if ok and q not in zeroed) / len(correct)


def direct_parents_score(correct: Mapping[int, bool], parents: Mapping[int, Sequence[int]]) -> float:
    """DSG's released script's variant: a question is zeroed only when a *direct* parent was answered wrong.

    A child of a parent that was itself zeroed (but answered right) keeps its own score.
    """
    if not correct:
        return 0.0
    kept = 0
    for question, ok in correct.items():
        wrong_parent = any(p != NO_PARENT and p in correct and p != question and not correct[p]
                           for p in parents.get(question, ()))
        kept += ok and not wrong_parent
    return kept / len(correct)
