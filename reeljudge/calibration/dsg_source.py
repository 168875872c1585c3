"""DSG's released files as ``reeljudge calibrate`` inputs (Cho et al., ICLR 2024; github.com/j-min/DSG).

- VQA answer files (``vqa_answers_release/<vqa>_dsg.csv``: ``item_id, question_id, dependency_id,
  answer`` and ``t2i_model``): one row per (image, question), answers ``yes``/``no``. Each image's
  score is ``score_with_dependencies`` over its questions (right = ``yes``), item id
  ``<t2i_model>/<item_id>``. With a dependency file (``dsg-1k-anns.csv``: ``item_id,
  proposition_id, dependency``) the questions and parents come from it, and a listed question with
  no answer counts as wrong (so an image the VQA model never answered scores 0, as in DSG's script);
  without one, from the answer file's ``dependency_id``.
- Human Likert files (``tifa160-likert-anns.csv``: ``t2i_model, item_id, worker_id, answer``): one
  rating per (image, worker), item ids as above.

``rule="released"`` scores as DSG's released ``scripts/tifa160_correlation.py`` does: only direct
parents' own answers zero a question, and an item whose dependency column holds a cell that is
not a list of ids gets no dependencies at all (their parser gives up on the item).
"""

from __future__ import annotations

import csv
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from reeljudge.calibration.inputs import HumanRatings, Item, JudgeScores
from reeljudge.gates.results import CannotCompare
from reeljudge.gecko.dependencies import direct_parents_score, score_with_dependencies

ANSWER_COLUMNS = ("item_id", "question_id", "answer")
LIKERT_COLUMNS = ("t2i_model", "item_id", "worker_id", "answer")
RULES = ("transitive", "released")
METRIC = "score"


@dataclass
class Graph:
    """One prompt's questions: parents per question id, and whether a cell could not be read."""

    parents: dict[int, list[int]] = field(default_factory=dict)
    unreadable: bool = False


def _header(path: Path) -> list[str]:
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            return next(csv.reader(handle), [])
    except (OSError, UnicodeDecodeError):
        return []


def is_dsg_answers(path: str | Path) -> bool:
    """Whether ``path`` is a DSG VQA answer CSV (by its header)."""
    path = Path(path)
    if path.suffix.lower() != ".csv":
        return False
    header = set(_header(path))
    return set(ANSWER_COLUMNS) <= header and "item" not in header


def is_dsg_likert(path: str | Path) -> bool:
    """Whether ``path`` is DSG's TIFA160 Likert rating CSV (by its header)."""
    path = Path(path)
    return path.suffix.lower() == ".csv" and set(LIKERT_COLUMNS) <= set(_header(path))


def _rows(path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            yield from enumerate(csv.DictReader(handle), 2)
    except FileNotFoundError:
        raise CannotCompare(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise CannotCompare(f"{path}: cannot be read ({exc})") from None


def _int(path: Path, n: int, name: str, value: str | None) -> int:
    try:
        return int(str(value).strip())
    except ValueError:
        raise CannotCompare(f"{path}: row {n}: {name} {value!r} is not a whole number") from None


def parent_ids(cell: str | None) -> tuple[list[int], bool]:
    """The parent ids of a dependency cell (``"0"``, ``"1,2"``) and whether every part was an id."""
    ids, clean = [], True
    for part in str(cell if cell is not None else "0").split(","):
        part = part.strip()
        if part.isdigit():
            ids.append(int(part))
        elif part:
            clean = False
    return ids or [0], clean


def read_dependencies(path: str | Path) -> dict[str, Graph]:
    """Question graphs per prompt (``item_id``) from a DSG annotation file (``proposition_id``, ``dependency``)."""
    path = Path(path)
    graphs: dict[str, Graph] = defaultdict(Graph)
    for n, row in _rows(path):
        if not {"item_id", "proposition_id", "dependency"} <= set(row):
            raise CannotCompare(f"{path}: a DSG dependency file needs item_id, proposition_id and dependency columns")
        ids, clean = parent_ids(row["dependency"])
        graph = graphs[row["item_id"]]
        graph.parents[_int(path, n, "proposition_id", row["proposition_id"])] = ids
        graph.unreadable |= not clean
    if not graphs:
        raise CannotCompare(f"{path}: no questions")
    return dict(graphs)


def read_dsg_answers(path: str | Path, dependencies: str | Path | None = None, rule: str = "transitive") -> JudgeScores:
    """Per-image DSG scores from a VQA answer file (see the module doc); CannotCompare on bad input."""
    if rule not in RULES:
        raise CannotCompare(f"--dsg-rule {rule!r}: use one of {', '.join(RULES)}")
    path = Path(path)
    answers: dict[str, dict[int, bool]] = defaultdict(dict)
    graphs: dict[str, Graph] = defaultdict(Graph)
    models: set[str] = set()
    for n, row in _rows(path):
        model = (row.get("t2i_model") or "").strip()
        models.add(model)
        image = f"{model}/{row['item_id']}" if model else row["item_id"]
        question = _int(path, n, "question_id", row["question_id"])
        answers[image][question] = str(row["answer"]).strip().lower() == "yes"
        ids, clean = parent_ids(row.get("dependency_id"))
        graphs[row["item_id"]].parents[question] = ids
        graphs[row["item_id"]].unreadable |= not clean
    if not answers:
        raise CannotCompare(f"{path}: no answers")
    if dependencies is not None:
        graphs = defaultdict(Graph, read_dependencies(dependencies))
        for prompt in graphs:  # every listed question of every image: an unanswered one is wrong
            for model in models:
                image = f"{model}/{prompt}" if model else prompt
                answers[image] = {q: answers.get(image, {}).get(q, False) for q in graphs[prompt].parents}
    items = {image: Item(scores={METRIC: _score(answers[image], graphs[image.split("/")[-1]], rule)}, family=image.split("/")[0]
                         if "/" in image else None)
             for image in sorted(answers)}
    return JudgeScores([METRIC], items)


def _score(correct: dict[int, bool], graph: Graph, rule: str) -> float:
    if rule == "released":
        return direct_parents_score(correct, {} if graph.unreadable else graph.parents)
    return score_with_dependencies(correct, graph.parents)


def read_dsg_likert(path: str | Path) -> HumanRatings:
    """Human Likert ratings per image (``<t2i_model>/<item_id>``), one per worker."""
    path = Path(path)
    items: dict[str, Item] = defaultdict(Item)
    raters: set[str] = set()
    for n, row in _rows(path):
        image, worker = f"{row['t2i_model']}/{row['item_id']}", str(row["worker_id"]).strip()
        try:
            rating = float(row["answer"])
        except ValueError:
            raise CannotCompare(f"{path}: row {n}: answer {row['answer']!r} is not a number") from None
        if worker in items[image].scores:
            raise CannotCompare(f"{path}: worker {worker!r} rated {image!r} twice (row {n})")
        items[image].scores[worker] = rating
        items[image].ratings.append(rating)
        items[image].family = row["t2i_model"]
        raters.add(worker)
    if not items:
        raise CannotCompare(f"{path}: no ratings")
    return HumanRatings(dict(items), raters, max(len(v.ratings) for v in items.values()))
