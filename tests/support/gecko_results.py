"""Gecko results files made by code, in the shape ``promptfoo eval -o`` writes and our assertion fills.

A test is a list of questions ``(tag, truth letter, judge letter or None)``; the row carries what
``reeljudge.gecko.verdict.GeckoVerdict`` records (``metadata``: judge, expect, judged, score,
coverage, per_tag, questions_kept; ``metadata.questions``, a record per question with its tag and status) and, when
asked, ``metadata.answer_letters``. ``tests/gecko/test_gecko_report.py`` also feeds a real assertion
result through the report, so this shape cannot drift from the assertion's unseen.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from reeljudge.errors import JudgeError
from reeljudge.promptfoo.results import failure, grading_result

Question = tuple[str, str, "str | None"]  # tag, truth letter, the judge's letter (None: unanswered)


def gecko_result(questions: Sequence[Question], *, expect: str = "match", letters: bool = True) -> dict[str, Any]:
    """The Gecko assertion's grading result for these questions (hard scoring)."""
    per_tag: dict[str, list[float]] = {}
    records: list[dict[str, Any]] = []
    breakdown: dict[str, str] = {}
    for n, (tag, truth, verdict) in enumerate(questions, 1):
        correct = verdict == truth
        per_tag.setdefault(tag, []).append(1.0 if correct else 0.0)
        records.append({"name": f"q{n} [{tag}]", "correct": correct, "score": float(correct), "ground_truth": truth,
                        "verdict": verdict, "tag": tag, "status": "kept"})
        breakdown[f"q{n} [{tag}]"] = f"truth {truth}, verdict {verdict}"
    records.append({"name": "dropped 1 [other]", "tag": "other", "status": "dropped"})
    breakdown["dropped 1 [other]"] = "not scored"
    score = sum(sum(v) for v in per_tag.values()) / len(questions)
    meta: dict[str, Any] = {"judge": "gecko", "expect": expect, "judged": True, "score": score,
                            "coverage": sum(v is not None for _, _, v in questions) / len(questions),
                            "per_tag": {t: sum(v) / len(v) for t, v in per_tag.items()}, "questions_kept": len(questions),
                            "questions": records}
    if letters:
        judge: dict[str, int] = {}
        truth_counts: dict[str, int] = {}
        for _, truth, verdict in questions:
            truth_counts[truth] = truth_counts.get(truth, 0) + 1
            if verdict is not None:
                judge[verdict] = judge.get(verdict, 0) + 1
        meta["answer_letters"] = {"judge": judge, "truth": truth_counts}
    named = {"gecko": score, **{f"gecko_{t}": v for t, v in meta["per_tag"].items()}}
    return grading_result(passed=score >= 0.7, score=score, reason=f"gecko {score:.2f}", named_scores=named,
                          breakdown=breakdown, metadata=meta)


def not_judged_result(test: str) -> dict[str, Any]:
    """What the assertion returns when its judge did not judge."""
    return failure(JudgeError("the reply cache has no entry for this request (replay mode)", kind="cache_miss"),
                   judge="gecko", test=test)


def results_row(description: str, provider: str, graded: dict[str, Any], index: int = 0) -> dict[str, Any]:
    """One promptfoo result row around a Gecko grading result, as ``eval -o`` nests it."""
    vars_ = {"prompt": f"prompt of {description}", "video": f"clips/{description}.mp4"}
    outer = {"pass": graded["pass"], "score": graded["score"], "reason": graded["reason"],
             "namedScores": graded.get("namedScores", {}), "componentResults": [graded]}
    return {"provider": {"id": f"file://providers/{provider}.py", "label": provider},
            "prompt": {"raw": "{{prompt}}", "label": "p"},
            "testCase": {"description": description, "vars": vars_, "assert": [{"type": "python"}]}, "vars": vars_,
            "testIdx": index, "promptIdx": 0, "success": bool(graded["pass"]), "score": graded["score"],
            "namedScores": graded.get("namedScores", {}), "gradingResult": outer, "failureReason": 0 if graded["pass"] else 1}


def write_gecko_results(path: str | Path, rows: list[dict[str, Any]]) -> Path:
    """A results file holding ``rows``."""
    path = Path(path)
    document = {"evalId": "eval-gecko-synthetic", "results": {"version": 3, "results": rows},
                "config": {"description": "synthetic gecko suite"}, "metadata": {"promptfooVersion": "0.121.20"}}
    path.write_text(json.dumps(document), encoding="utf-8")
    return path
