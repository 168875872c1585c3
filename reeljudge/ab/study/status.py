"""What the admin dashboard and ``reeljudge ab status`` show, read as aggregates: never every record.

A dashboard load (it refreshes every 10 s) costs the same however large the records are: counts come
from SQL over the tables' columns (``judgements.winner``, ``record_facts``: each record's evidence
marks, written with it), progress from ``assignment.progress_all``, gold accuracy from the gold records'
winners; only gold samples and the third-rater queue's few verdicts are read one by one.
"""

from __future__ import annotations

from typing import Any

from reeljudge.ab.study.assignment import QCOptions, gold_tally, progress_all, third_rater_queue
from reeljudge.ab.store.store import Store


def study_status(store: Store, qc: QCOptions) -> dict[str, Any]:
    """Counts, per-rater progress, gold accuracy and thin evidence, and the third-rater queue."""
    pairs, golds = (int(n) for n in store.query(
        "SELECT COALESCE(SUM(CASE WHEN kind != 'gold' THEN 1 ELSE 0 END), 0), COALESCE(SUM(CASE WHEN kind = 'gold' THEN 1 ELSE 0 "
        "END), 0) FROM samples")[0])
    complete = store.query("""SELECT COUNT(*) FROM (SELECT j.sample_id FROM human_judgements j JOIN samples s ON s.sample_id =
    j.sample_id
                              WHERE s.kind != 'gold' GROUP BY j.sample_id HAVING COUNT(*) >= ?) enough""", (qc.min_raters,))[0][0]
    gold_samples = [store.sample(sample_id) for (sample_id,) in store.query("SELECT sample_id FROM samples WHERE kind = 'gold'")]
    gold = gold_tally(store.query("""SELECT rater_id, sample_id, winner FROM judgements
                                     WHERE sample_id IN (SELECT sample_id FROM samples WHERE kind = 'gold') ORDER BY seq"""),
                      [s for s in gold_samples if s is not None])
    counts = {rater: (int(n), int(thin or 0)) for rater, n, thin in store.query(
        "SELECT rater_id, COUNT(*), SUM(thin) FROM record_facts GROUP BY rater_id")}
    progress = progress_all(store, qc)
    raters = []
    for rater_id, kind in store.raters():
        records, thin = counts.get(rater_id, (0, 0))
        if kind != "human":  # a model rater judges from `reeljudge ab judge`, not from tasks
            raters.append({"rater": rater_id, "kind": kind, "done": records, "total": None, "gold": gold.get(rater_id)})
            continue
        done, total = progress[rater_id]
        raters.append({"rater": rater_id, "kind": kind, "done": done, "total": total,
                       "gold": gold.get(rater_id), "thin_evidence": thin})
    return {
        "samples": pairs, "gold_samples": golds, "judgements": sum(n for n, _ in counts.values()), "complete": int(complete),
        "raters": raters, "third_rater_queue": third_rater_queue(store, qc),
    }
