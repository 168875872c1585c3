"""The one place that speaks promptfoo: reading an assertion's context, building its result.

- context readers: the test's label, its vars, the assertion's ``config:`` (the clip a test names:
  :mod:`reeljudge.media.resolver`);
- result builders: ``grading_result``, ``failure`` (a judge that did not judge: always
  ``pass: false`` with the reason), ``run_judged`` (runs a grading and turns every ReelJudgeError
  into such a failure), and ``invert_verdict`` for tests that expect a judge to fail (a
  counter-prompt, a clip with a planted fault);
- how a result reads in promptfoo's web viewer: each assertion is one pass/fail check. The viewer
  counts every entry of a test's ``componentResults`` (promptfoo flattens an assertion's own into
  the test's) as a PASS or FAIL of the cell and of its column's "Asserts", and shows the failing
  ones' reasons first, so a judge's parts (criteria, probes, questions, orders) are never
  components: their numbers are ``namedScores`` (the viewer's metric chips), their reasons a
  ``breakdown`` (a line each under the verdict line, and ``metadata.breakdown``). The first line
  of every reason is the verdict, ``PASS``/``FAIL``, and why;
- ``judge_identity``: who judged a result (judge, engine, model, rubric/protocol version, the
  options that change verdicts) and whether the answer was live or replayed, written into every
  judged result's ``metadata.judge_identity`` so a regression gate compares like with like.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Mapping

from reeljudge.errors import BadInputError, ReelJudgeError

Result = dict[str, Any]
#: the metadata key of a judged result that says who judged it (read by ``reeljudge compare``)
IDENTITY_KEY = "judge_identity"
#: the metadata key of a judged result's per-part reasons (read by ``reeljudge compare`` as a metric's reason)
BREAKDOWN_KEY = "breakdown"
#: engines whose answers are a pure function of their inputs: a verdict flip is a fact, not noise
DETERMINISTIC_ENGINES = frozenset({"local", "probes"})
#: keys promptfoo itself reads from (or adds to) a Python provider's ``config:``; never ours
PROMPTFOO_PROVIDER_KEYS = frozenset({"basePath", "pythonExecutable", "workers", "timeout"})


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
) -> Result:
    """A promptfoo GradingResult dict with only the fields that are set.

    Args:
        reason: why, without the verdict word: the reason reads ``PASS <reason>`` (or ``FAIL``).
        breakdown: each part's reason (keyed by its named score where it has one), a line each
            under the verdict line, also kept as ``metadata.breakdown``.
    """
    lines = [f"{verdict_word(passed)} {reason}", *(f"{name}: {text}" for name, text in (breakdown or {}).items())]
    result: Result = {"pass": bool(passed), "score": float(score), "reason": "\n".join(lines)}
    if named_scores:
        result["namedScores"] = {k: float(v) for k, v in named_scores.items()}
    if tokens:
        result["tokensUsed"] = dict(tokens)
    meta = {**(metadata or {}), **({BREAKDOWN_KEY: dict(breakdown)} if breakdown else {})}
    if meta:
        result["metadata"] = meta
    return result


def judge_identity(
    judge: str,
    engine: str,
    *,
    model: str | None = None,
    version: str | None = None,
    options: Mapping[str, Any] | None = None,
    replayed: bool | None = None,
) -> dict[str, Any]:
    """Who judged a result, for ``metadata.judge_identity``.

    Args:
        judge: the judge's name (``filmability``, ``gecko``, ``video_probes``, ``ab_judge``).
        engine: ``local`` or ``probes`` (offline, deterministic) or ``gemini`` (an LLM judge).
        model: the judge model, for an LLM engine.
        version: the judge's own version: an offline judge's code version, or the rubric/protocol files' hash.
        options: the judge options that change verdicts (e.g. probe thresholds), JSON-able.
        replayed: an LLM engine's answer came from the judge cache (the same answer every run).
    """
    identity: dict[str, Any] = {"judge": judge, "engine": engine}
    if model:
        identity["model"] = model
    if version:
        identity["version"] = version
    if options:
        identity["options"] = json.loads(json.dumps(dict(options), sort_keys=True, default=str))
    identity["deterministic"] = engine in DETERMINISTIC_ENGINES or bool(replayed)
    return identity


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


def config_of(context: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """The assertion's YAML ``config:`` mapping (empty when absent)."""
    config = (context or {}).get("config") or {}
    if not isinstance(config, Mapping):
        raise BadInputError(f"assertion config must be a mapping, got {type(config).__name__}")
    return config


def provider_config(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """A Python provider's own ``config:`` (promptfoo's ``options.config``) without promptfoo's keys."""
    config = (options or {}).get("config") or {}
    if not isinstance(config, Mapping):
        raise BadInputError(f"provider config must be a mapping, got {type(config).__name__}")
    return {k: v for k, v in config.items() if k not in PROMPTFOO_PROVIDER_KEYS}


def vars_of(context: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """The test's vars (empty when absent)."""
    return (context or {}).get("vars") or {}


def require_var(context: Mapping[str, Any] | None, name: str, *, test: str) -> Any:
    """The test var ``name``; a BadInputError naming the test and the var when missing or empty."""
    vars_ = vars_of(context)
    if name not in vars_:
        known = ", ".join(sorted(vars_)) or "none"
        raise BadInputError(f"test {test!r} has no var {name!r} (vars present: {known})")
    value = vars_[name]
    if value is None or (isinstance(value, str) and not value.strip()):
        raise BadInputError(f"test {test!r}: var {name!r} is empty")
    return value


def read_results_document(path: str | Path) -> dict[str, Any]:
    """A whole promptfoo results file (``promptfoo eval -o results.json``: ``results.results`` plus
    ``config``, ``metadata``, ``evalId``); BadInputError naming the file when it is unreadable,
    truncated or not promptfoo's."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as error:
        raise BadInputError(f"{p}: cannot read ({error.strerror or error})") from None
    except UnicodeDecodeError as error:
        raise BadInputError(f"{p}: cannot read (not UTF-8 text: {error.reason})") from None
    try:
        data = json.loads(text)
    except ValueError as error:
        raise BadInputError(f"{p}: not valid JSON (truncated?): {error}") from None
    results = data.get("results") if isinstance(data, Mapping) else None
    rows = results.get("results") if isinstance(results, Mapping) else results
    if not isinstance(rows, list) or not all(isinstance(r, Mapping) for r in rows):
        found = f"top-level keys: {', '.join(sorted(map(str, data))[:8]) or 'none'}" if isinstance(data, Mapping) else (
            f"the top level is a {type(data).__name__}")
        raise BadInputError(f"{p}: not a promptfoo results file (no results.results list; {found})")
    return data


def read_results_file(path: str | Path) -> list[dict[str, Any]]:
    """The per-test rows of a promptfoo results file (see ``read_results_document``)."""
    data = read_results_document(path)
    results = data["results"]
    rows = results.get("results") if isinstance(results, Mapping) else results
    return [dict(r) for r in rows]


def provider_label(provider: Any) -> str:
    """The name of a result row's ``provider`` (its label, else its id; a bare string as it is)."""
    if isinstance(provider, Mapping):
        return str(provider.get("label") or provider.get("id") or "")
    return str(provider or "")


def run_judged(judge: str, context: Mapping[str, Any] | None, body: Callable[[str], Result]) -> Result:
    """Run ``body(test_label)`` and turn any ReelJudgeError into a failing, explained result."""
    test = test_label(context)
    try:
        return body(test)
    except ReelJudgeError as error:
        return failure(error, judge=judge, test=test)
