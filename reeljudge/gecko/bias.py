"""Answer-letter bias: does the judge pick one letter far more often than the ground truth has it?

A Gecko question is multiple choice (``a``, ``b``, …) and the question generator decides where the
right answer goes. A judge that leans to one letter scores well on a question set that leans the
same way, for the wrong reason. ``letter_bias`` compares how often the judge answered each letter
with how often that letter is the ground truth, over the same questions (a run, a suite, a provider).

The test, per letter ``L`` seen in either count:

- ``n`` = the judge's answers (all letters), ``k`` = the judge's answers ``L``, ``p`` = the share of
  ``L`` among the ground-truth letters;
- one-sided exact binomial test of H0 "the judge answers ``L`` at most as often as the truth has
  it": p-value = P(X ≥ k), X ~ Binomial(n, p) (``scipy.stats.binomtest``; when ``p`` = 0 and the
  judge answered ``L`` at all, the p-value is 0);
- Bonferroni over the letters tested: adjusted p = min(1, p-value × number of letters).

A letter is *over-chosen* when all three hold:

- adjusted p < ``alpha`` (default 0.01): not judging noise;
- judge share − truth share ≥ ``min_excess`` (default 0.10, ten percentage points): big enough to
  matter, so a suite of thousands of answers does not flag a one-point lean;
- ``n`` ≥ ``min_answers`` (default 30): a suite's answers are not independent draws (questions of
  one prompt share a clip and a judge), so a handful of answers is not evidence however lopsided.

The result names the most over-chosen letter (largest excess among the flagged letters, else the
largest excess of all) with its shares and adjusted p-value; ``flagged`` says whether any letter
is over-chosen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

DEFAULT_ALPHA = 0.01
DEFAULT_MIN_EXCESS = 0.10
DEFAULT_MIN_ANSWERS = 30


@dataclass(frozen=True)
class LetterBias:
    """The answer-letter check of one set of answers.

    Attributes:
        letter: the most over-chosen letter (None when there was nothing to compare).
        judge_share: its share of the judge's answers.
        truth_share: its share of the ground-truth letters.
        p_value: its one-sided binomial p-value, Bonferroni-adjusted over the letters tested.
        flagged: some letter is over-chosen (significant, large enough, enough answers).
        n_judge: how many answers the judge gave.
        n_truth: how many ground-truth letters were counted.
    """

    letter: str | None
    judge_share: float
    truth_share: float
    p_value: float
    flagged: bool
    n_judge: int = 0
    n_truth: int = 0

    @property
    def excess(self) -> float:
        """Judge share minus truth share of ``letter``."""
        return self.judge_share - self.truth_share

    def text(self) -> str:
        """One line for a report: ``judge answers a 92% vs truth 25% (p=1e-30, 120 answers): biased``."""
        if self.letter is None:
            return f"nothing to compare ({self.n_judge} judge answers, {self.n_truth} ground-truth letters)"
        verdict = "BIASED towards " + self.letter if self.flagged else "no letter over-chosen"
        return (f"{verdict}: judge answers {self.letter} {self.judge_share:.0%} vs truth {self.truth_share:.0%} "
                f"(adjusted p={self.p_value:.2g}, {self.n_judge} answers)")


def letter_bias(
    judge: Mapping[str, int],
    truth: Mapping[str, int],
    *,
    alpha: float = DEFAULT_ALPHA,
    min_excess: float = DEFAULT_MIN_EXCESS,
    min_answers: int = DEFAULT_MIN_ANSWERS,
) -> LetterBias:
    """Whether the judge answers one letter far more often than the ground truth has it (module doc).

    Args:
        judge: letter → how many times the judge answered it.
        truth: letter → how many times it is the ground truth, over the same questions.
        alpha: significance level of the Bonferroni-adjusted one-sided binomial test.
        min_excess: smallest judge share − truth share that counts as a lean.
        min_answers: fewest judge answers for any flag.

    Raises:
        ValueError: a count that is not a non-negative integer.
    """
    judge, truth = _checked(judge, "judge"), _checked(truth, "truth")
    n, n_truth = sum(judge.values()), sum(truth.values())
    letters = sorted(set(judge) | set(truth))
    if n == 0 or n_truth == 0:
        return LetterBias(None, 0.0, 0.0, 1.0, False, n, n_truth)
    rows = []
    for letter in letters:
        k, p = judge.get(letter, 0), truth.get(letter, 0) / n_truth
        adjusted = min(1.0, _upper_tail(k, n, p) * len(letters))
        excess = k / n - p
        over = adjusted < alpha and excess >= min_excess and n >= min_answers
        rows.append((over, excess, letter, k / n, p, adjusted))
    over, _, letter, judge_share, truth_share, adjusted = max(rows, key=lambda r: (r[0], r[1], -ord(r[2][0])))
    return LetterBias(letter, judge_share, truth_share, adjusted, over, n, n_truth)


def merge_counts(counts: Iterable[Mapping[str, int]]) -> dict[str, int]:
    """The letter counts of several runs or results added up, letters sorted."""
    total: dict[str, int] = {}
    for one in counts:
        for letter, count in _checked(one, "counts").items():
            total[letter] = total.get(letter, 0) + count
    return dict(sorted(total.items()))


def _upper_tail(k: int, n: int, p: float) -> float:
    """P(X ≥ k) for X ~ Binomial(n, p)."""
    if k == 0:
        return 1.0
    if p <= 0.0:
        return 0.0
    from scipy.stats import binomtest

    return float(binomtest(k, n, min(p, 1.0), alternative="greater").pvalue)


def _checked(counts: Mapping[str, int], name: str) -> dict[str, int]:
    """``counts`` as a plain dict, or ValueError naming the bad entry."""
    if not isinstance(counts, Mapping):
        raise ValueError(f"{name} letter counts must be a mapping letter → count, not {type(counts).__name__}")
    out = {}
    for letter, count in counts.items():
        if not isinstance(letter, str) or not letter:
            raise ValueError(f"{name} letter counts: {letter!r} is not a letter")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"{name} letter counts: {letter!r} has count {count!r}, not a non-negative integer")
        out[letter] = count
    return out
