"""The one builder of promptfoo's result format: an assertion's GradingResult.

- ``verdict_result``: any judge's verdict (``reeljudge.verdict.Verdict``) as a result, the one way an
  adapter builds one; ``grading_result`` beneath it; ``failure`` (a judge that did not judge: always ``pass: false`` with the
  reason); ``run_judged`` (builds the test's context once, runs a grading and turns every
  ReelJudgeError into such a failure); ``invert_verdict`` for tests that expect a judge to fail (a
  counter-prompt, a clip with a planted fault);
- how a result reads in promptfoo's web viewer: each assertion is one pass/fail check. The viewer
  counts every entry of a test's ``componentResults`` (promptfoo flattens an assertion's own into
  the test's) as a PASS or FAIL of the cell and of its column's "Asserts", and shows the failing
  ones' reasons first, so a judge's parts (criteria, probes, questions, orders) are never
  components: their numbers are ``namedScores`` (the viewer's metric chips), their reasons a
  ``breakdown`` (a line each under the verdict line, and ``metadata.breakdown``). The first line
  of every reason is the verdict, ``PASS``/``FAIL``, and why. A failing cell's whole reason shows in
  red, so parts that are checks of their own (a probe, a question) say whether they passed: ``✗``
  before a failing part's line and ``✓`` before a passing one's (``part_status``), the failing ones
  first under a failing verdict.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from reeljudge.errors import ReelJudgeError
from reeljudge.identity import IDENTITY_KEY
from reeljudge.promptfoo.context import TestContext, test_label
from reeljudge.verdict import Verdict

Result = dict[str, Any]
#: the metadata key of a judged result's per-part reasons (read by ``reeljudge compare`` as a metric's reason)
BREAKDOWN_KEY = "breakdown"


def verdict_word(passed: bool) -> str:
    """How a reason opens: ``PASS`` or ``FAIL``."""
    return "PASS" if passed else "FAIL"


def grading_result(
    *,
    passed: bool,
    score: float,
    reason: str,
    named_scores: Mapping[str, float] | None = None,
    breakdown: Mapping[str, str] | None = None,
    tokens: Mapping[str, int] | None = None,
    metadata: Mapping[str, Any] | None = None,
    part_status: Mapping[str, bool] | None = None,
) -> Result:
    """A promptfoo GradingResult dict with only the fields that are set.

    Args:
        reason: why, without the verdict word: the reason reads ``PASS <reason>`` (or ``FAIL``).
        breakdown: each part's reason (keyed by its named score where it has one), a line each
            under the verdict line, also kept as ``metadata.breakdown``.
        part_status: for the parts that are checks: passed (``✓`` before its line) or failed (``✗``);
            under a failing verdict the failing parts' lines come first.
    """
    lines = [f"{verdict_word(passed)} {reason}", *part_lines(breakdown or {}, part_status or {}, passed)]
    result: Result = {"pass": bool(passed), "score": float(score), "reason": "\n".join(lines)}
    if named_scores:
        result["namedScores"] = {k: float(v) for k, v in named_scores.items()}
    if tokens:
        result["tokensUsed"] = dict(tokens)
    meta = {**(metadata or {}), **({BREAKDOWN_KEY: dict(breakdown)} if breakdown else {})}
    if meta:
        result["metadata"] = meta
    return result


def verdict_result(verdict: Verdict, *, metadata: Mapping[str, Any] | None = None, expect_fail: str | None = None) -> Result:
    """promptfoo's result of any judge's verdict: its pass, score and reason, its parts as the breakdown
    (marked where they are checks), its named scores and tokens, and its record with who judged it.

    Args:
        metadata: what the adapter read of the test (its label, where the media was found), added to the record.
        expect_fail: for a test that expects the judge to fail: what it expects (``invert_verdict``).
    """
    result = grading_result(
        passed=verdict.passed, score=verdict.score, reason=verdict.reason(), named_scores=verdict.named_scores(),
        breakdown=verdict.part_reasons(), part_status=verdict.part_status(), tokens=verdict.tokens_used(),
        metadata={**verdict.metadata(), **(metadata or {}), IDENTITY_KEY: verdict.identity()},
    )
    return invert_verdict(result, expected=expect_fail) if expect_fail else result


def part_lines(breakdown: Mapping[str, str], status: Mapping[str, bool], passed: bool) -> list[str]:
    """The breakdown's lines, ``name: text``, marked ✓/✗ where ``status`` knows the part; failing ones first when not
    ``passed``."""
    mark: dict[bool | None, str] = {True: "✓ ", False: "✗ ", None: ""}
    lines = [(status.get(name), f"{mark[status.get(name)]}{name}: {text}") for name, text in breakdown.items()]
    if not passed:
        lines.sort(key=lambda item: item[0] is not False)  # stable: the failing parts first, else in their order
    return [line for _, line in lines]


def failure(error: ReelJudgeError, *, judge: str, test: str, metadata: Mapping[str, Any] | None = None) -> Result:
    """A failing result that says exactly what happened; never a default score."""
    meta: dict[str, Any] = {"judge": judge, "error_kind": error.kind, "test": test, "judged": False}
    if error.raw is not None:
        raw = error.raw if isinstance(error.raw, str) else repr(error.raw)
        meta["raw_reply"] = raw[:4000]
    if metadata:
        meta.update(metadata)
    reason = f"{judge} did not judge ({error.kind}) in test {test!r}: {error.message}"
    return grading_result(passed=False, score=0.0, reason=reason, metadata=meta)


def invert_verdict(result: Result, *, expected: str) -> Result:
    """For a test that expects the judge to say "fail" (``expected`` says what is expected, e.g. a
    counter-prompt): pass becomes fail and back, the score becomes 1 − score. A result the judge did
    not fully judge (``metadata.judged`` false) is returned unchanged: it fails either way."""
    if (result.get("metadata") or {}).get("judged") is False:
        return result
    flipped = dict(result)
    flipped["pass"] = not result["pass"]
    flipped["score"] = 1.0 - float(result["score"])
    outcome = "as expected" if flipped["pass"] else "but a failing verdict was expected"
    said = str(result["reason"]).removeprefix(verdict_word(result["pass"])).lstrip()
    flipped["reason"] = (f"{verdict_word(flipped['pass'])} expected {expected}; the judge said {verdict_word(result['pass'])} "
                         f"({outcome}): {said}")
    flipped["metadata"] = {**(result.get("metadata") or {}), "expected_verdict": "fail", "judge_verdict": result["pass"]}
    return flipped


def run_judged(judge: str, context: Mapping[str, Any] | None, body: Callable[[TestContext], Result]) -> Result:
    """Read promptfoo's context once (``TestContext``), run ``body`` on it and turn any ReelJudgeError (a bad
    ``config:`` included) into a failing, explained result."""
    test = test_label(context)
    try:
        return body(TestContext.of(context))
    except ReelJudgeError as error:
        return failure(error, judge=judge, test=test)
