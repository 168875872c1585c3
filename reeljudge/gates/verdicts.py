"""The gate's verdicts, their exit codes, and the smallest drop a run could have detected.

Four outcomes, from the best to the worst:

- ``passed`` (exit 0): every gated metric's interval shows it is not worse by more than its
  tolerance, and no rule on tests (newly failing, no longer judged) is broken;
- ``inconclusive`` (exit 3, or 0 with ``on_inconclusive: warn``): an interval straddles
  −tolerance: the data can neither rule a drop out nor show one;
- ``failed`` (exit 1): a suite with no baseline yet (``alone``) whose own tests pass less often than
  the gate file's ``min_pass_rate`` for it;
- ``regression`` (exit 1): an interval lies entirely below −tolerance, or more tests newly fail
  or are no longer judged than the gate allows;
- ``could not compare`` (exit 2): the results cannot be paired (bad input, a different judge).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Iterable

from reeljudge.exits import COULD_NOT_RUN, OK
from reeljudge.exits import FAILED as EXIT_FAILED
from reeljudge.exits import INCONCLUSIVE as EXIT_INCONCLUSIVE

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

PASSED, INCONCLUSIVE, REGRESSION, CANNOT_COMPARE = "passed", "inconclusive", "regression", "could not compare"
FAILED = "failed"  # no baseline yet, and the suite's own tests fail its pass-rate rule
ORDER = (PASSED, INCONCLUSIVE, FAILED, REGRESSION, CANNOT_COMPARE)
#: each verdict's exit code, in the table of every command's exit codes (``reeljudge.exits``)
EXIT_CODES = {PASSED: OK, FAILED: EXIT_FAILED, REGRESSION: EXIT_FAILED, CANNOT_COMPARE: COULD_NOT_RUN,
              INCONCLUSIVE: EXIT_INCONCLUSIVE}


def exit_code(verdict: str, on_inconclusive: str = "fail") -> int:
    """The process exit code of a verdict (inconclusive exits 0 when the gate file says ``warn``)."""
    if verdict == INCONCLUSIVE and on_inconclusive == "warn":
        return OK
    return EXIT_CODES[verdict]


def worst(verdicts: Iterable[str]) -> str:
    """The worst of several verdicts (``could not compare`` when there are none: nothing compared never passes)."""
    found = list(verdicts)
    return max(found, key=ORDER.index) if found else CANNOT_COMPARE


def metric_verdict(low: float, high: float, tolerance: float) -> str:
    """``regression`` when the interval lies below −tolerance, ``improved`` when above +tolerance,
    ``inconclusive`` when it straddles −tolerance, else ``ok`` (not worse by more than the tolerance)."""
    if high < -tolerance:
        return REGRESSION
    if low < -tolerance:
        return INCONCLUSIVE
    if low > tolerance:
        return "improved"
    return "ok"


def normal_quantile(confidence: float) -> float:
    """The two-sided standard normal quantile of ``confidence`` (1.96 for 0.95)."""
    from statistics import NormalDist

    return NormalDist().inv_cdf(0.5 + confidence / 2)


def detectable_drop(differences: ArrayLike, tolerance: float, confidence: float) -> float:
    """The smallest mean drop this many paired tests with this spread would show as a regression:
    ``tolerance + z · s / √n`` (``s`` the sample standard deviation of the paired differences, ``z``
    the normal quantile of ``confidence``); NaN with fewer than two differences."""
    import numpy as np

    values = np.asarray(differences, dtype=float)
    values = values[~np.isnan(values)]
    if values.size < 2:
        return math.nan
    return tolerance + normal_quantile(confidence) * float(values.std(ddof=1)) / math.sqrt(values.size)

def evidence_text(n_paired: int, drop: float) -> str:
    """``6 paired tests: drops smaller than 0.31 cannot be told from noise``."""
    tests = f"{n_paired} paired test{'s' if n_paired != 1 else ''}"
    if math.isnan(drop):
        return f"{tests}: too few to estimate the noise"
    return f"{tests}: drops smaller than {drop:.2g} cannot be told from noise"
