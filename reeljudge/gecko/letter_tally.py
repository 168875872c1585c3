"""The answer letters a VQA judge has given, added up across the results of a run, in the judge cache.

promptfoo grades each test in its own assertion call, so no call sees the whole suite. Each Gecko
judgement therefore adds its answer-letter counts (judge and ground truth) to one record per judge
model in the cache folder, keyed by its VQA request so a re-run or a cache hit does not count
twice, and checks the letter bias (``reeljudge.gecko.bias.letter_bias``) on the total so far. A
result's flag thus covers every judgement of that model in this cache folder up to and including
itself: the first results of a suite can be too few to flag, the later ones carry the flag, and
``reeljudge gecko report`` checks the whole suite afterwards. A lock file serialises the
read-add-write between concurrent graders. In cache mode ``off`` nothing is kept and the check
covers the result's own answers only.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Any, Iterator, Mapping

from reeljudge.cache import JudgeCache
from reeljudge.gecko.bias import DEFAULT_MIN_ANSWERS, letter_bias, merge_counts

RECORD_KIND = "gecko.answer_letters"
LOCK_NAME = "gecko-answer-letters.lock"


@contextmanager
def _locked(cache: JudgeCache) -> Iterator[None]:
    """Hold an exclusive lock on the tally's lock file (none where ``fcntl`` is missing)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    cache.root.mkdir(parents=True, exist_ok=True)
    fd = os.open(cache.root / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def tally(cache: JudgeCache | None, model: str, key: str, counts: Mapping[str, Mapping[str, int]]) -> dict[str, Any]:
    """Add one judgement's ``{"judge": …, "truth": …}`` letter counts under ``key``; the totals so far for ``model``.

    Returns ``{"judgements": n, "judge": {...}, "truth": {...}}``.
    """
    identity = {"model": model}
    entries: dict[str, Any] = {}
    if cache is not None and cache.mode != "off":
        with _locked(cache):
            record = cache.get_record(RECORD_KIND, identity) or {}
            entries = dict(record.get("judgements") or {})
            if entries.get(key) != counts:
                entries[key] = {"judge": dict(counts["judge"]), "truth": dict(counts["truth"])}
                cache.put_record(RECORD_KIND, identity, {"model": model, "judgements": entries}, sync=False)
    entries.setdefault(key, counts)
    return {
        "judgements": len(entries),
        "judge": merge_counts(e["judge"] for e in entries.values()),
        "truth": merge_counts(e["truth"] for e in entries.values()),
    }


def bias_check(totals: Mapping[str, Any], model: str) -> dict[str, Any]:
    """The letter-bias verdict on ``tally``'s totals, as result metadata.

    Below ``letter_bias``'s minimum of answers it cannot flag, so it is not run (its exact test loads
    scipy, which a cache-hit re-run of a small suite should not pay for).
    """
    answers = sum(totals["judge"].values())
    base = {"answers": answers, "judgements": totals["judgements"],
            "scope": f"every Gecko judgement by {model} in this cache folder so far",
            "counts": {"judge": totals["judge"], "truth": totals["truth"]}}
    if answers < DEFAULT_MIN_ANSWERS:
        return {"flagged": False, **base,
                "summary": f"not checked: {answers} answers so far, the check needs {DEFAULT_MIN_ANSWERS}"}
    check = letter_bias(totals["judge"], totals["truth"])
    return {"flagged": check.flagged, "letter": check.letter, "judge_share": round(check.judge_share, 4),
            "truth_share": round(check.truth_share, 4), "p_value": check.p_value, **base, "summary": check.text()}
