"""promptfoo grading results: the one place that builds the dicts an assertion returns.

A result that did not come from a real judgement is always ``pass: False`` (see ``failure``).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from reeljudge.errors import BadInputError, ReelJudgeError

Result = dict[str, Any]


def grading_result(
    *,
    passed: bool,
    score: float,
    reason: str,
    named_scores: Mapping[str, float] | None = None,
    components: list[Result] | None = None,
    tokens: Mapping[str, int] | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> Result:
    """A promptfoo GradingResult dict with only the fields that are set."""
    result: Result = {"pass": bool(passed), "score": float(score), "reason": reason}
    if named_scores:
        result["namedScores"] = {k: float(v) for k, v in named_scores.items()}
    if components:
        result["componentResults"] = components
    if tokens:
        result["tokensUsed"] = dict(tokens)
    if metadata:
        result["metadata"] = dict(metadata)
    return result


def component(*, name: str, passed: bool, score: float, reason: str, **metadata: Any) -> Result:
    """One entry of ``componentResults``: a named sub-check with its own reason."""
    result: Result = {
        "pass": bool(passed),
        "score": float(score),
        "reason": f"{name}: {reason}",
        "assertion": {"type": "python", "value": name, "metric": name},
    }
    if metadata:
        result["metadata"] = metadata
    return result


def failure(error: ReelJudgeError, *, judge: str, test: str, metadata: Mapping[str, Any] | None = None) -> Result:
    """A failing result that says exactly what happened; never a default score."""
    meta: dict[str, Any] = {"judge": judge, "error_kind": error.kind, "test": test}
    if error.raw is not None:
        raw = error.raw if isinstance(error.raw, str) else repr(error.raw)
        meta["raw_reply"] = raw[:4000]
    if metadata:
        meta.update(metadata)
    reason = f"{judge} did not judge ({error.kind}) in test {test!r}: {error.message}"
    return grading_result(passed=False, score=0.0, reason=reason, metadata=meta)


def test_label(context: Mapping[str, Any] | None) -> str:
    """A name for the test being graded: its description, else its vars in short."""
    context = context or {}
    test = context.get("test") or {}
    description = test.get("description") if isinstance(test, Mapping) else None
    if description:
        return str(description)
    vars_ = context.get("vars") or {}
    short = ", ".join(f"{k}={str(v)[:30]!r}" for k, v in list(vars_.items())[:2])
    return f"<test with {short}>" if short else "<unnamed test>"


def assertion_config(context: Mapping[str, Any] | None) -> dict[str, Any]:
    """The assertion's YAML ``config:`` mapping (empty when absent)."""
    config = (context or {}).get("config") or {}
    if not isinstance(config, Mapping):
        raise BadInputError(f"assertion config must be a mapping, got {type(config).__name__}")
    return dict(config)


def require_var(context: Mapping[str, Any] | None, name: str, *, test: str) -> Any:
    """The test var ``name``; a BadInputError naming the test and the var when missing or empty."""
    vars_ = (context or {}).get("vars") or {}
    if name not in vars_:
        known = ", ".join(sorted(vars_)) or "none"
        raise BadInputError(f"test {test!r} has no var {name!r} (vars present: {known})")
    value = vars_[name]
    if value is None or (isinstance(value, str) and not value.strip()):
        raise BadInputError(f"test {test!r}: var {name!r} is empty")
    return value


def run_judged(judge: str, context: Mapping[str, Any] | None, body: Callable[[str], Result]) -> Result:
    """Run ``body(test_label)`` and turn any ReelJudgeError into a failing, explained result."""
    test = test_label(context)
    try:
        return body(test)
    except ReelJudgeError as error:
        return failure(error, judge=judge, test=test)
