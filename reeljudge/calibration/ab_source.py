"""Human ratings from an A/B study (``reeljudge ab``): per-clip ratings and pairwise winners.

Items are clips, named by content sha256 as the A/B store names them; promptfoo results name a
clip the same way (``response.metadata.clip.sha256`` of the clip and Veo providers, the item field
``{clip}``). The per-clip human score is one protocol dimension's 1-5 ratings (each rater's mean
when a rater saw the clip in several samples). For the winners, the judge picks the clip it scored
higher (a tie within ``tie_epsilon``) and is compared with the human majority by the very function
the A/B report uses for model raters (``reeljudge.ab.analysis.analysis.agreement_with_majority``).
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from reeljudge.calibration.inputs import HumanRatings, Item
from reeljudge.gates.results import CannotCompare



@dataclass(frozen=True)
class Study:
    """The pair samples of a study and their human judgement records."""

    samples: Mapping[str, Any]  # sample id -> reeljudge.ab.store.samples.Sample (gold samples left out)
    humans: list[Any]  # reeljudge.ab.store.records.Judgement of human raters on those samples
    dimension: str


def is_study(path: str | Path) -> bool:
    """Whether ``path`` is an A/B data folder (it holds the store, or its clips with the store in PostgreSQL)."""
    from reeljudge.ab.study.workspace import STORE_FILE
    from reeljudge.environment import study_environment

    folder = Path(path)
    if not folder.is_dir():
        return False
    return (folder / STORE_FILE).is_file() or (bool(study_environment().ab_database) and (folder / "clips").is_dir())


def read_study(path: str | Path, dimension: str | None) -> tuple[HumanRatings, Study]:
    """Per-clip human ratings of one dimension, and the study for the pairwise comparison."""
    from reeljudge.ab.analysis import analysis as an
    from reeljudge.ab.study.workspace import Workspace

    workspace = Workspace(Path(path))
    dimension = _dimension(workspace.protocol, dimension, path)
    samples = {s.sample_id: s for s in workspace.store.samples() if s.kind != "gold"}
    humans = an.pair_records(workspace.store.judgements(), samples.values())
    if not humans:
        raise CannotCompare(f"{path}: the A/B study has no human judgements of pair samples yet")
    per_rater: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    family: dict[str, str] = {}
    for (sample_id, system), by_rater in an.rating_labels(humans, dimension).items():
        clip = samples[sample_id].clip_of(system)
        family[clip] = samples[sample_id].family
        for rater, rating in by_rater.items():
            per_rater[clip][rater].append(rating)
    if not per_rater:
        raise CannotCompare(f"{path}: no clip has a {dimension!r} rating")
    items = {
        clip: Item(scores={r: sum(v) / len(v) for r, v in raters.items()}, ratings=[sum(v) / len(v) for v in raters.values()],
                   family=family[clip])
        for clip, raters in per_rater.items()
    }
    raters = {j.rater for j in humans}
    ratings = HumanRatings(items, raters, max(len(i.ratings) for i in items.values()))
    return ratings, Study(samples, humans, dimension)


def _dimension(protocol: Any, dimension: str | None, path: str | Path) -> str:
    """The rating dimension to calibrate against; CannotCompare naming the known ones."""
    known = [d.id for d in protocol.dimensions]
    if dimension is None:
        raise CannotCompare(f"{path}: an A/B study rates clips on several dimensions; choose one with --dimension "
                            f"({', '.join(known)})")
    if dimension not in known:
        close = difflib.get_close_matches(dimension, known, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else f" (protocol {protocol.id} has: {', '.join(known)})"
        raise CannotCompare(f"--dimension {dimension!r} is not a dimension of the study{hint}")
    return dimension


def judge_vs_majority(study: Study, scores: Mapping[str, float], judge: str, *, tie_epsilon: float,
                      n_resamples: int, seed: int) -> dict[str, Any]:
    """The judge's pick per pair sample (higher score wins) against the human majority, as the A/B report computes it."""
    from reeljudge.ab.analysis import analysis as an
    from reeljudge.ab.store.records import TIE, Judgement

    picks, missing = [], 0
    for sample in study.samples.values():
        a, b = scores.get(sample.clip_a), scores.get(sample.clip_b)
        if a is None or b is None:
            missing += 1
            continue
        winner = TIE if abs(a - b) <= tie_epsilon else (sample.system_a if a > b else sample.system_b)
        picks.append(Judgement(f"{judge}:{sample.sample_id}", sample.sample_id, sample.family, judge, "model",
                               sample.systems, winner, "", (), {}, "", False, {}))
    result = an.agreement_with_majority([*study.humans, *picks], judge, n_resamples=n_resamples, seed=seed).as_dict()
    return {**result, "samples_judged": len(picks), "samples_without_judge_scores": missing, "tie_epsilon": tie_epsilon}
