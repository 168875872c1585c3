"""Inter-rater agreement: raw, Cohen's κ, Fleiss' κ, Krippendorff's α, tag agreement, vs majority.

Data shape everywhere: ``labels[unit][rater] = label`` (a unit is what was judged: a sample for
the winner, a clip for a rating). Chance-corrected statistics come from maintained libraries
(``statsmodels`` for κ, ``krippendorff`` for α); intervals resample units with
``reeljudge.stats.bootstrap.bootstrap_weighted``: every statistic here is a function of per-unit
sums (agreeing pairs, confusion tables, coincidence matrices), so each interval computes all
resamples at once from unit weights. The point estimate is the library's; the resampled values
use the same formula on weighted sums (tests check both agree). A statistic that is undefined
(one category only, too few units) is NaN, never a made-up number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Hashable, Iterable, Literal, Mapping, Sequence, TypedDict

from dataclasses import replace

from reeljudge.extras import require
from reeljudge.stats.bootstrap import DEFAULT_RESAMPLES, Interval, IntervalJSON, bootstrap_weighted

#: unit (any hashable id) -> rater -> label
Labels = Mapping[Any, Mapping[str, Hashable]]
#: the levels of measurement α is computed for
Level = Literal["nominal", "ordinal", "interval"]


class RateJSON(TypedDict):
    """``Rate.as_dict``."""

    agree: int
    pairs: int
    rate: float | None
    interval: IntervalJSON


class MajorityJSON(TypedDict):
    """``MajorityAgreement.as_dict``."""

    rater: str
    units: int
    agree: int
    no_majority: int
    rate: IntervalJSON
    kappa: float | None
    without_ties: RateJSON | None


class SpecificAgreementJSON(TypedDict):
    """``specific_agreement``: pairs where both said yes, where one only, and the agreement (None without pairs)."""

    both: int
    one_only: int
    agreement: float | None


@dataclass(frozen=True)
class Rate:
    """A share of agreeing pairs with its bootstrap interval (over units)."""

    agree: int
    pairs: int
    interval: Interval

    @property
    def rate(self) -> float:
        """agree / pairs (NaN without pairs)."""
        return self.agree / self.pairs if self.pairs else math.nan

    def as_dict(self) -> RateJSON:
        """JSON form."""
        return {"agree": self.agree, "pairs": self.pairs, "rate": _num(self.rate), "interval": self.interval.as_dict()}


@dataclass(frozen=True)
class MajorityAgreement:
    """How often one rater matches the strict majority of the other raters on the same units."""

    rater: str
    units: int  # units where the others have a strict majority
    agree: int
    no_majority: int  # units the rater judged where the others had no strict majority
    interval: Interval  # agreement rate with its interval
    kappa: float  # Cohen's κ between the rater and the majority
    without_ties: Rate | None  # agreement on units where neither side is the tie label

    def as_dict(self) -> MajorityJSON:
        """JSON form."""
        return {
            "rater": self.rater, "units": self.units, "agree": self.agree, "no_majority": self.no_majority,
            "rate": self.interval.as_dict(), "kappa": _num(self.kappa),
            "without_ties": self.without_ties.as_dict() if self.without_ties else None,
        }


def _num(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else x


def _nan_interval(n: int, confidence: float = 0.95) -> Interval:
    return Interval(math.nan, math.nan, math.nan, confidence, n, 0)


def multi_rated(labels: Labels, minimum: int = 2) -> list[Hashable]:
    """Units with at least ``minimum`` raters, in a stable order."""
    return [u for u in labels if len(labels[u]) >= minimum]


def pairwise_agreement(labels: Labels, *, n_resamples: int = DEFAULT_RESAMPLES, seed: int | None = None) -> Rate:
    """The share of rater pairs on the same unit that gave the same label, pooled over units."""
    import numpy as np

    units = multi_rated(labels)
    if not units:
        return Rate(0, 0, _nan_interval(0))
    counts = np.array([_pair_counts(list(labels[u].values())) for u in units], dtype=float)
    agree, pairs = int(counts[:, 0].sum()), int(counts[:, 1].sum())

    def stat(w: Any) -> Any:
        return (w @ counts[:, 0]) / (w @ counts[:, 1])

    return Rate(agree, pairs, bootstrap_weighted(stat, len(units), n_resamples=n_resamples, **_seed(seed)))


def _seed(seed: int | None) -> dict[str, int]:
    return {} if seed is None else {"seed": seed}


def _pair_counts(values: Sequence[Hashable]) -> tuple[int, int]:
    """(agreeing pairs, pairs) among the labels one unit received."""
    pairs = list(combinations(values, 2))
    return sum(1 for x, y in pairs if x == y), len(pairs)


def cohen_kappa(labels: Labels, rater_a: str, rater_b: str, categories: Sequence[Hashable], *,
                n_resamples: int = DEFAULT_RESAMPLES, seed: int | None = None) -> Interval:
    """Cohen's κ (statsmodels) of two raters over the units both labelled, with a bootstrap interval."""
    import numpy as np

    units = [u for u in labels if rater_a in labels[u] and rater_b in labels[u]]
    if len(units) < 2:
        return _nan_interval(len(units))
    index = {c: i for i, c in enumerate(categories)}
    pairs = np.array([[index[labels[u][rater_a]], index[labels[u][rater_b]]] for u in units])
    interval = bootstrap_weighted(lambda w: _kappa_batch(pairs, len(categories), w), len(units),
                                  n_resamples=n_resamples, **_seed(seed))
    return replace(interval, estimate=_kappa_of(pairs, len(categories)))


def _kappa_of(pairs: Any, k: int) -> float:
    """Cohen's κ (statsmodels) of an (n, 2) array of category codes; NaN when chance agreement is 1."""
    require("Cohen's kappa", "statsmodels")
    import numpy as np
    from statsmodels.stats.inter_rater import cohens_kappa as sm_kappa

    table = np.zeros((k, k))
    np.add.at(table, (pairs[:, 0], pairs[:, 1]), 1)
    n = table.sum()
    expected = float((table.sum(0) * table.sum(1)).sum() / (n * n))
    if expected >= 1.0 - 1e-12:
        return math.nan
    return float(sm_kappa(table, return_results=False))


def _kappa_batch(pairs: Any, k: int, w: Any) -> Any:
    """Cohen's κ for each row of unit weights ``w`` (resamples × units)."""
    import numpy as np

    eye = np.eye(k)
    tables = np.einsum("bu,ui,uj->bij", w, eye[pairs[:, 0]], eye[pairs[:, 1]])
    n = w.sum(1)
    observed = np.trace(tables, axis1=1, axis2=2) / n
    expected = (tables.sum(2) * tables.sum(1)).sum(1) / (n * n)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(expected < 1 - 1e-12, (observed - expected) / (1 - expected), np.nan)


def fleiss_kappa(labels: Labels, categories: Sequence[Hashable], *, raters_per_unit: int = 2,
                 n_resamples: int = DEFAULT_RESAMPLES, seed: int | None = None) -> Interval:
    """Fleiss' κ (statsmodels) over units with exactly ``raters_per_unit`` labels, with a bootstrap interval."""
    import numpy as np

    units = [u for u in labels if len(labels[u]) == raters_per_unit]
    if len(units) < 2:
        return _nan_interval(len(units))
    index = {c: i for i, c in enumerate(categories)}
    table = np.zeros((len(units), len(categories)))
    for row, u in enumerate(units):
        for label in labels[u].values():
            table[row, index[label]] += 1

    interval = bootstrap_weighted(lambda w: _fleiss_batch(table, raters_per_unit, w), len(units),
                                  n_resamples=n_resamples, **_seed(seed))
    return replace(interval, estimate=_fleiss_of(table))


def _fleiss_of(table: Any) -> float:
    """Fleiss' κ (statsmodels) of a units × categories count table; NaN when only one category occurs."""
    require("Fleiss' kappa", "statsmodels")
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    if (table.sum(0) > 0).sum() < 2:
        return math.nan
    return float(sm_fleiss(table, method="fleiss"))


def _fleiss_batch(table: Any, m: int, w: Any) -> Any:
    """Fleiss' κ for each row of unit weights ``w``."""
    import numpy as np

    per_unit = ((table * table).sum(1) - m) / (m * (m - 1))
    total = w.sum(1)
    observed = (w @ per_unit) / total
    shares = (w @ table) / (m * total)[:, None]
    expected = (shares * shares).sum(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(expected < 1 - 1e-12, (observed - expected) / (1 - expected), np.nan)


def krippendorff_alpha(labels: Labels, level: Level = "nominal", *, value_domain: Sequence[Any] | None = None,
                       n_resamples: int = DEFAULT_RESAMPLES, seed: int | None = None) -> Interval:
    """Krippendorff's α (``krippendorff`` package; nominal, ordinal, interval) over units with ≥ 2 labels."""
    import numpy as np

    units = multi_rated(labels)
    if len(units) < 2:
        return _nan_interval(len(units))
    raters = sorted({r for u in units for r in labels[u]})
    domain: list[Any] = (list(value_domain) if value_domain is not None
                         else sorted({labels[u][r] for u in units for r in labels[u]}, key=str))
    code = {v: float(i) for i, v in enumerate(domain)} if level == "nominal" else None
    data = np.full((len(raters), len(units)), np.nan)
    row = {r: i for i, r in enumerate(raters)}
    for col, u in enumerate(units):
        for r, v in labels[u].items():
            data[row[r], col] = code[v] if code is not None else float(v)  # type: ignore[arg-type]
    numeric_domain = [code[v] for v in domain] if code is not None else [float(v) for v in domain]
    counts = np.stack([(data[:, col][:, None] == np.asarray(numeric_domain)[None, :]).sum(0)
                       for col in range(len(units))]).astype(float)
    interval = bootstrap_weighted(lambda w: _alpha_batch(counts, numeric_domain, level, w), len(units),
                                  n_resamples=n_resamples, **_seed(seed))
    return replace(interval, estimate=_alpha_of(data, level, numeric_domain))


def _alpha_of(data: Any, level: Level, domain: list[float]) -> float:
    """α (``krippendorff``) of a raters × units matrix (NaN = missing); NaN when it is undefined."""
    require("Krippendorff's alpha", "krippendorff")
    import krippendorff
    import numpy as np

    present = data[~np.isnan(data)]
    if present.size == 0 or np.unique(present).size < 2:
        return math.nan
    try:
        return float(krippendorff.alpha(reliability_data=data, value_domain=domain, level_of_measurement=level))
    except (ValueError, ZeroDivisionError):
        return math.nan


def _alpha_batch(counts: Any, domain: list[float], level: Level, w: Any) -> Any:
    """α for each row of unit weights ``w``, from per-unit value counts (units × values).

    α = 1 − (n − 1) Σ o_ck δ²_ck / Σ n_c n_k δ²_ck over the weighted coincidence matrix o.
    """
    import numpy as np

    m = counts.sum(1)
    per_unit = ((counts[:, :, None] * counts[:, None, :] - np.einsum("uc,cd->ucd",
                                                                     counts, np.eye(len(domain)))) / (m - 1)[:, None, None])
    o = np.einsum("bu,ucd->bcd", w, per_unit)
    n_c = o.sum(2)
    n = n_c.sum(1)
    if level == "nominal":
        delta = np.broadcast_to(1.0 - np.eye(len(domain)), o.shape)
    elif level == "ordinal":
        cum = np.cumsum(n_c, axis=1)
        lo = np.minimum.outer(np.arange(len(domain)), np.arange(len(domain)))
        hi = np.maximum.outer(np.arange(len(domain)), np.arange(len(domain)))
        between = cum[:, hi] - cum[:, lo] + n_c[:, lo]
        delta = (between - (n_c[:, :, None] + n_c[:, None, :]) / 2) ** 2
    else:
        values = np.asarray(domain)
        delta = np.broadcast_to(np.subtract.outer(values, values) ** 2, o.shape)
    observed = (o * delta).sum((1, 2))
    expected = (n_c[:, :, None] * n_c[:, None, :] * delta).sum((1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(expected > 0, 1 - (n - 1) * observed / expected, np.nan)


def specific_agreement(presence: Mapping[Any, Mapping[str, bool]]) -> SpecificAgreementJSON:
    """Positive specific agreement of a yes/no label (e.g. "used tag X"): 2·both / (2·both + one only).

    Counted over rater pairs on the same unit; pairs where neither said yes do not count.
    """
    both = one = 0
    for unit in presence.values():
        for x, y in combinations(unit.values(), 2):
            both += int(x and y)
            one += int(x != y)
    total = 2 * both + one
    return {"both": both, "one_only": one, "agreement": (2 * both / total) if total else None}


def agreement_with_others(labels: Labels, rater: str, others: Iterable[str], *, n_resamples: int = DEFAULT_RESAMPLES,
                          seed: int | None = None) -> Rate:
    """The share of (``rater``, other) pairs on the same unit that gave the same label, pooled over units.

    Comparable with ``pairwise_agreement`` among the others: both count pairs of raters on a unit.
    """
    import numpy as np

    allowed = set(others)
    counts = []
    for by_rater in labels.values():
        if rater not in by_rater:
            continue
        rest = [v for r, v in by_rater.items() if r != rater and r in allowed]
        if rest:
            counts.append((sum(1 for v in rest if v == by_rater[rater]), len(rest)))
    if not counts:
        return Rate(0, 0, _nan_interval(0))
    table = np.array(counts, dtype=float)

    def stat(w: Any) -> Any:
        return (w @ table[:, 0]) / (w @ table[:, 1])

    return Rate(int(table[:, 0].sum()), int(table[:, 1].sum()),
                bootstrap_weighted(stat, len(counts), n_resamples=n_resamples, **_seed(seed)))


def majority_label(values: Iterable[Hashable]) -> Hashable | None:
    """The label more than half of ``values`` carry, else None."""
    counts: dict[Hashable, int] = {}
    total = 0
    for v in values:
        counts[v] = counts.get(v, 0) + 1
        total += 1
    best = max(counts.items(), key=lambda kv: kv[1], default=(None, 0))
    return best[0] if best[1] * 2 > total else None


def agreement_with_majority(labels: Labels, rater: str, *, others: Iterable[str] | None = None, min_others: int = 2,
                            tie_label: Hashable | None = None, n_resamples: int = DEFAULT_RESAMPLES,
                            seed: int | None = None) -> MajorityAgreement:
    """How often ``rater`` matches the strict majority of the other raters (or only ``others``) per unit.

    Units count only when ``rater`` labelled them and at least ``min_others`` others did with a
    strict majority. ``tie_label`` adds the agreement on units where neither side chose a tie.
    """
    import numpy as np

    allowed = set(others) if others is not None else None
    pairs, no_majority = [], 0
    for u, by_rater in labels.items():
        if rater not in by_rater:
            continue
        rest = [v for r, v in by_rater.items() if r != rater and (allowed is None or r in allowed)]
        if len(rest) < min_others:
            continue
        majority = majority_label(rest)
        if majority is None:
            no_majority += 1
            continue
        pairs.append((by_rater[rater], majority))
    agree = [float(a == b) for a, b in pairs]
    hits = np.asarray(agree)
    interval = (bootstrap_weighted(lambda w: (w @ hits) / w.sum(1), len(pairs), n_resamples=n_resamples, **_seed(seed)) if pairs
                else _nan_interval(0))
    categories = sorted({v for p in pairs for v in p}, key=str)
    kappa = (_kappa_of(np.array([[categories.index(a), categories.index(b)] for a, b in pairs]), len(categories))
             if len(pairs) >= 2 else math.nan)
    no_ties = None
    if tie_label is not None:
        kept = {i: {"r": a, "m": b} for i, (a, b) in enumerate(pairs) if a != tie_label and b != tie_label}
        no_ties = pairwise_agreement(kept, n_resamples=n_resamples, seed=seed) if kept else None
    return MajorityAgreement(rater, len(pairs), int(sum(agree)), no_majority, interval, kappa, no_ties)
