"""The gecko assertion: does the clip or image show what its generation prompt asked for?

promptfoo entry ``get_assert(output, context)``; options in ``GeckoOptions``; the method in
``pipeline``. Named scores: ``gecko`` (overall), ``gecko_coverage`` and ``gecko_<tag>`` per tag;
one component result per question, kept or dropped.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping

from reeljudge.errors import BadInputError
from reeljudge.media.refs import resolve_media
from reeljudge.promptfoo import Result, assertion_config, component, grading_result, require_var, run_judged
from reeljudge.gemini.settings import load_settings
from reeljudge.gecko.options import GeckoOptions

JUDGE_NAME = "gecko"
METRIC = "gecko"


def get_assert(output: Any, context: Mapping[str, Any] | None) -> Result:
    """promptfoo entry: Gecko-score the media of this test against its prompt."""
    return run_judged(JUDGE_NAME, context, lambda test: grade(output, context or {}, test))


def media_reference(output: Any, context: Mapping[str, Any], options: GeckoOptions, test: str) -> str:
    """The media to judge: the ``media_var`` var, else the provider's clip (``metadata.clip_path``), else its output."""
    vars_ = context.get("vars") or {}
    value = vars_.get(options.media_var)
    if isinstance(value, str) and value.strip():
        return value.strip()
    response = context.get("providerResponse") or {}
    clip_path = (response.get("metadata") or {}).get("clip_path") if isinstance(response, Mapping) else None
    if clip_path:
        return str(clip_path)
    if isinstance(output, str) and output.strip() and "\n" not in output.strip():
        return output.strip()
    raise BadInputError(
        f"test {test!r}: no media to judge: var {options.media_var!r} is missing or empty and the provider "
        "output is not a media path or URI"
    )


def grade(output: Any, context: Mapping[str, Any], test: str) -> Result:
    """The full grading of one test."""
    from reeljudge.gemini.files import prepare_media
    from reeljudge.gecko.pipeline import run_gecko
    from reeljudge.gecko.questions import declared_questions

    config = assertion_config(context)
    options = GeckoOptions.from_config(config)
    settings = load_settings(config)
    prompt = str(require_var(context, options.prompt_var, test=test))
    vars_ = context.get("vars") or {}
    if vars_.get(options.expect_var):
        options = replace(options, expect=str(vars_[options.expect_var]).strip().lower())
        options.check()
    declared = declared_questions(vars_[options.qas_var], test=test, var=options.qas_var) if vars_.get(options.qas_var) else None
    ref = media_reference(output, context, options, test)
    base = Path(options.base_dir) if options.base_dir else None
    kinds = ("video", "image") if options.kind == "auto" else (options.kind,)
    media = prepare_media(resolve_media(ref, base_dir=base, kinds=kinds))
    outcome = run_gecko(prompt, media, options, settings, declared=declared)
    return outcome_result(outcome, options)


def outcome_result(outcome: Any, options: GeckoOptions) -> Result:
    """The promptfoo result of a Gecko outcome: score, coverage, per-tag named scores, per-question components."""
    s = outcome.score
    rubric = outcome.rubric
    covered = s.coverage >= options.min_coverage
    above = s.score >= options.threshold
    passed = covered and (above if options.expect == "match" else not above)
    named = {METRIC: s.score, f"{METRIC}_coverage": s.coverage, **{f"{METRIC}_{tag}": v for tag, v in s.per_tag.items()}}
    components = [_kept_component(o) for o in s.outcomes] + [_dropped_component(d) for d in rubric.dropped]
    metadata = {
        "judge": JUDGE_NAME,
        "prompt": outcome.prompt,
        "media": {"ref": outcome.media.ref.ref, "name": outcome.media.ref.name, "sha256": outcome.media.sha256, "kind": outcome.kind},
        "expect": options.expect,
        "score": s.score,
        "coverage": s.coverage,
        "per_tag": s.per_tag,
        "scoring": s.scoring,
        "scoring_notes": s.notes,
        "rubric_source": rubric.source,
        "keywords": rubric.keywords,
        "annotation_problems": rubric.annotation_problems,
        "questions_kept": len(rubric.kept),
        "questions_dropped": [d.as_dict() for d in rubric.dropped],
        "stages": outcome.stages,
        "cache_hit": all(st.get("cache_hit") for st in outcome.stages.values()),
    }
    return grading_result(
        passed=passed,
        score=s.score,
        reason=_reason(outcome, options, passed, covered),
        named_scores=named,
        components=components,
        tokens=outcome.usage.tokens_used(),
        metadata=metadata,
    )


def _kept_component(o: Any) -> Result:
    q = o.question
    if o.verdict is None:
        verdict = f"unanswered ({o.raw!r})" if o.raw else "unanswered (no verdict)"
    else:
        verdict = f"{o.verdict} {'correct' if o.correct else 'wrong'}"
    detail = f" p={o.probability:.2f}" if o.probability is not None else ""
    note = f"; {o.note}" if o.note else ""
    return component(
        name=f"q{o.number} [{q.tag}]",
        passed=o.correct,
        score=o.score,
        reason=f"{q.question} {' | '.join(q.choices)} — truth {q.answer}, verdict {verdict}{detail}{note}",
        question=q.question,
        choices=q.choices,
        ground_truth=q.answer,
        verdict=o.verdict,
        raw_verdict=o.raw,
        matched_by=o.matched_by,
        tag=q.tag,
        tag_source=q.tag_source,
        status="kept",
    )


def _dropped_component(d: Any) -> Result:
    q = d.question
    return component(
        name=f"dropped [{q.tag}]",
        passed=True,
        score=0.0,
        reason=f"not scored, dropped by {d.check}: {d.reason} — {q.question} {' | '.join(q.choices)} (truth {q.answer})",
        question=q.question,
        choices=q.choices,
        ground_truth=q.answer,
        tag=q.tag,
        status="dropped",
        dropped_by=d.check,
        why=d.reason,
    )


def _reason(outcome: Any, options: GeckoOptions, passed: bool, covered: bool) -> str:
    s = outcome.score
    rubric = outcome.rubric
    verdict = "PASS" if passed else "FAIL"
    relation = ">=" if s.score >= options.threshold else "<"
    want = "match" if options.expect == "match" else "mismatch (a counter-prompt: passes when the score stays under threshold)"
    parts = [
        f"{verdict} gecko {s.score:.2f} {relation} threshold {options.threshold:g}, expect {want}: "
        f"{s.correct}/{s.kept} correct, coverage {s.answered}/{s.kept} ({s.scoring} scoring) on {outcome.media.ref.name}"
    ]
    if not covered:
        parts.append(f"coverage {s.coverage:.2f} is below min_coverage {options.min_coverage:g}: the judge left too many questions unanswered")
    if s.per_tag:
        parts.append("tags: " + ", ".join(f"{t} {v:.2f}" for t, v in s.per_tag.items()))
    origin = {"generated": "rubric generated", "declared": "rubric declared by the test", "file": f"rubric from {options.rubrics_file}"}[rubric.source]
    if rubric.dropped:
        origin += f", {len(rubric.dropped)} question(s) dropped (see metadata.questions_dropped)"
    parts.append(origin)
    parts.extend(s.notes)
    return ". ".join(parts)
