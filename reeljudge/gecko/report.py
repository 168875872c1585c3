"""The per-tag report of Gecko results files: per model and tag, how well, how sure, what moved.

Read from promptfoo results files (``promptfoo eval -o``) through ``reeljudge.promptfoo.results_file``. A *series*
is one provider (model) in one file. Per series and tag: the mean over tests of each test's score on
that tag's questions, with a 95 % bootstrap interval over tests (``reeljudge.stats.bootstrap``: the
tests are the units; questions of one test share a clip), how many tests and questions; ``overall``
is the test's Gecko score. Only tests that judged and expect a match count: a counter-prompt
(``expect: mismatch``) is meant to score low and would drag its tags down.

Between files, the first is the baseline: each later file's series is paired with the baseline
series of the same provider (or, when each file has one provider, with that one), its tests paired
by description and vars; per tag the change is the mean paired difference with its interval. A tag
*moved* when the interval leaves out 0 over at least ``MIN_PAIRED`` paired tests.

The answer-letter check (``reeljudge.gecko.bias``) adds up each series' ``metadata.answer_letters``
(``{"judge": {letter: n}, "truth": {letter: n}}``); a series whose results carry none says "not recorded".
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from reeljudge.errors import BadInputError
from reeljudge.gecko.bias import LetterBias, letter_bias, merge_counts
from reeljudge.gecko.pairs import gecko_results
from reeljudge.gecko.results_extra import ANSWER_LETTERS
from reeljudge.promptfoo.results_file import Grading, ResultRow, read_results_file
from reeljudge.stats.bootstrap import Interval, bootstrap_column_means

OVERALL = "overall"
MIN_PAIRED = 3
LETTERS_KEY = ANSWER_LETTERS  # the key the assertion writes


@dataclass(frozen=True)
class JudgedTest:
    """One judged matched-prompt test: its scores per tag (and ``overall``), questions per tag, letters."""

    key: str
    scores: dict[str, float]
    questions: dict[str, int]
    letters: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class TagScore:
    """One tag of one series: the mean with its interval, how many tests and questions."""

    tag: str
    interval: Interval
    tests: int
    questions: int


@dataclass
class Series:
    """One provider (model) in one results file."""

    file: str
    provider: str
    file_label: str = ""  # the shortest end of the file's path that tells it from the other files
    tests: list[JudgedTest] = field(default_factory=list)
    not_judged: int = 0
    counter_prompts: int = 0
    scores: dict[str, TagScore] = field(default_factory=dict)
    bias: LetterBias | None = None  # None: no result recorded its answer letters

    @property
    def label(self) -> str:
        return f"{self.provider or '(no provider)'} · {self.file_label or Path(self.file).name}"


@dataclass(frozen=True)
class TagMove:
    """A tag's change from a baseline series to a candidate series, over their paired tests."""

    base: str
    candidate: str
    tag: str
    base_mean: float
    candidate_mean: float
    change: Interval
    paired: int

    @property
    def moved(self) -> bool:
        """The interval leaves out 0 over at least MIN_PAIRED paired tests."""
        return self.paired >= MIN_PAIRED and (self.change.low > 0 or self.change.high < 0)


@dataclass(frozen=True)
class GeckoReport:
    """Every series of every file, the tags in display order and the changes against the first file."""

    files: list[str]
    series: list[Series]
    tags: list[str]
    moves: list[TagMove]

    @property
    def moved(self) -> list[TagMove]:
        return [m for m in self.moves if m.moved]


def build_report(paths: Sequence[str | Path]) -> GeckoReport:
    """The report of one or more results files (the first is the baseline); BadInputError when a file
    cannot be read or none holds a Gecko result."""
    if not paths:
        raise BadInputError("gecko report: give at least one promptfoo results file")
    per_file = [read_series(p) for p in paths]
    for group, label in zip(per_file, file_labels(paths)):
        for s in group:
            s.file_label = label
    series = [s for group in per_file for s in group]
    if not any(s.tests or s.not_judged or s.counter_prompts for s in series):
        raise BadInputError(f"gecko report: no Gecko result in {', '.join(map(str, paths))} (assertion gecko, "
                            "metadata.judge 'gecko')")
    for s in series:
        _summarise(s)
    tags = sorted({t for s in series for t in s.scores}, key=lambda t: (t != OVERALL, t))
    moves = [m for group in per_file[1:] for base, cand in _matched(per_file[0], group) for m in tag_moves(base, cand)]
    return GeckoReport([str(p) for p in paths], series, tags, moves)


def file_labels(paths: Sequence[str | Path]) -> list[str]:
    """Short names that tell the files apart: the file name, else the folder and name, else the path (``#k`` for a repeat)."""
    for make in (lambda p: Path(p).name, lambda p: "/".join(Path(p).parts[-2:]), str):
        names = [make(p) for p in paths]
        if len(set(names)) == len(names):
            return names
    return [f"{p} #{k + 1}" for k, p in enumerate(paths)]


def read_series(path: str | Path) -> list[Series]:
    """The Gecko series of one results file, in the order their providers first appear."""
    found: dict[str, Series] = {}
    for row in read_results_file(path):
        series = found.setdefault(row.provider, Series(str(path), row.provider))
        for graded in gecko_results(row.grading.raw if row.grading else {}):
            meta = graded["metadata"]
            if meta.get("judged") is False or meta.get("error_kind") or "score" not in meta:
                series.not_judged += 1
            elif meta.get("expect") == "mismatch":
                series.counter_prompts += 1
            else:
                series.tests.append(judged_test(row, graded, str(path)))
    return [s for s in found.values() if s.tests or s.not_judged or s.counter_prompts]


def judged_test(row: ResultRow, graded: Mapping[str, Any], where: str = "results") -> JudgedTest:
    """A judged Gecko result (``graded``, in result ``row``) as scores and question counts per tag."""
    meta = graded["metadata"]
    key = json.dumps([row.description, dict(row.vars)], sort_keys=True, default=str)
    per_tag = meta.get("per_tag") or {}
    if not isinstance(per_tag, Mapping) or not all(_is_number(v) for v in per_tag.values()) or not _is_number(meta["score"]):
        raise BadInputError(f"{where}: test {row.description or key[:80]!r}: gecko metadata score/per_tag are not numbers")
    questions: dict[str, int] = {}
    for q in _question_records(graded):
        if q.get("tag") and q.get("status") != "dropped":
            questions[str(q["tag"])] = questions.get(str(q["tag"]), 0) + 1
    questions[OVERALL] = sum(questions.values())
    scores = {OVERALL: float(meta["score"]), **{str(t): float(v) for t, v in per_tag.items()}}
    letters = meta.get(LETTERS_KEY)
    return JudgedTest(key, scores, questions, letters if isinstance(letters, Mapping) else None)


def _question_records(graded: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The per-question records of a Gecko result: ``metadata.questions``, or the per-question
    component results' metadata of results written before the assertion became one check."""
    listed = graded["metadata"].get("questions")
    if isinstance(listed, list):
        return [q for q in listed if isinstance(q, Mapping)]
    found = Grading.of(graded)
    return [c.metadata for c in found.components if c.metadata] if found else []


def _summarise(series: Series) -> None:
    """Fill ``series.scores`` (bootstrap over tests, all tags from the same resamples) and ``series.bias``."""
    tags = sorted({t for test in series.tests for t in test.scores}, key=lambda t: (t != OVERALL, t))
    if series.tests:
        matrix = np.array([[test.scores.get(t, math.nan) for t in tags] for test in series.tests], dtype=float)
        for tag, interval in zip(tags, bootstrap_column_means(matrix)):
            tests = [x for x in series.tests if tag in x.scores]
            series.scores[tag] = TagScore(tag, interval, len(tests), sum(x.questions.get(tag, 0) for x in tests))
    series.bias = series_bias(series.tests, series.label)


def series_bias(tests: Iterable[JudgedTest], where: str) -> LetterBias | None:
    """The letter check over the tests' recorded answer letters (None when none recorded them)."""
    recorded = [t.letters for t in tests if t.letters is not None]
    if not recorded:
        return None
    try:
        judge = merge_counts(r.get("judge") or {} for r in recorded)
        truth = merge_counts(r.get("truth") or {} for r in recorded)
    except (ValueError, AttributeError) as error:
        raise BadInputError(f"{where}: metadata.{LETTERS_KEY} is not "
                            f"{{judge: {{letter: n}}, truth: {{letter: n}}}}: {error}") from None
    return letter_bias(judge, truth)


def _matched(base: list[Series], candidate: list[Series]) -> list[tuple[Series, Series]]:
    """Candidate series paired with the baseline series of the same provider (or the only one with the only one)."""
    if len(base) == 1 and len(candidate) == 1:
        return [(base[0], candidate[0])]
    by_name = {s.provider: s for s in base}
    return [(by_name[c.provider], c) for c in candidate if c.provider in by_name]


def tag_moves(base: Series, candidate: Series) -> list[TagMove]:
    """Per tag both series have: the paired change of the mean with its interval."""
    before = {t.key: t for t in base.tests}
    pairs = [(before[t.key], t) for t in candidate.tests if t.key in before]
    tags = sorted({tag for b, c in pairs for tag in b.scores.keys() & c.scores.keys()}, key=lambda t: (t != OVERALL, t))
    if not pairs or not tags:
        return []
    diffs = np.array([[c.scores[t] - b.scores[t] if t in b.scores and t in c.scores else math.nan for t in tags]
                      for b, c in pairs])
    moves = []
    for tag, interval in zip(tags, bootstrap_column_means(diffs)):
        both = [(b.scores[tag], c.scores[tag]) for b, c in pairs if tag in b.scores and tag in c.scores]
        moves.append(TagMove(base.label, candidate.label, tag, float(np.mean([b for b, _ in both])),
                             float(np.mean([c for _, c in both])), interval, len(both)))
    return moves


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value
