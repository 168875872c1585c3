"""promptfoo adapter of the Gecko judge: does the clip or image show what its prompt asked for?

Options in ``GeckoOptions``; the method in ``pipeline``. Named scores: ``gecko`` (overall),
``gecko_coverage`` and ``gecko_<tag>`` per tag; each question, kept or dropped, a line of the breakdown
under the verdict and an entry of ``metadata.questions``.
A counter-prompt (``expect: mismatch``) passes when the judge's verdict is a fail.
"""

from __future__ import annotations

from typing import Any, Mapping

from reeljudge.gecko.options import GeckoOptions, load
from reeljudge.gecko.results_extra import dependency_metadata, letter_metadata, skip_reason
from reeljudge.gecko.verdict import GeckoVerdict, dropped_line, question_line
from reeljudge.options import with_value
from reeljudge.promptfoo.identity import GEMINI_ENGINE, IDENTITY_KEY, judge_identity
from reeljudge.promptfoo.context import TestContext
from reeljudge.promptfoo.results import Result, grading_result, invert_verdict, run_judged

JUDGE_NAME = "gecko"
METRIC = "gecko"


def get_assert(output: Any, context: Mapping[str, Any] | None) -> Result:
    """promptfoo entry: Gecko-score the media of this test against its prompt."""
    return run_judged(JUDGE_NAME, context, lambda ctx: grade(output, ctx))


def grade(output: Any, ctx: TestContext) -> Result:
    """The full grading of one test."""
    from reeljudge.gecko.pipeline import media_kinds, run_gecko
    from reeljudge.gecko.questions import declared_questions
    from reeljudge.promptfoo.clips import locate_media

    test = ctx.label
    options, settings = load(ctx.config)
    prompt = str(ctx.require_var(options.prompt_var))
    vars_ = ctx.vars
    if vars_.get(options.expect_var):
        options = with_value(options, "expect", vars_[options.expect_var], where=f"test {test!r}: var {options.expect_var!r}")
    declared = declared_questions(vars_[options.qas_var], test=test, var=options.qas_var) if vars_.get(options.qas_var) else None
    located = locate_media(ctx, output, var=options.media_var, kinds=media_kinds(options),
                           base_dir=options.base_dir, memo=settings.judge_cache())
    outcome = run_gecko(prompt, located.media, options, settings, declared=declared)
    result = outcome_result(outcome, options, located.metadata())
    return invert_verdict(result, expected="a counter-prompt (expect: mismatch) to score under threshold") if options.expect == "mismatch" else result


def _identity(outcome: Any, options: GeckoOptions, replayed: bool) -> dict[str, Any]:
    """Who judged: the VQA model, the hash of the rubric files for this media kind, the scoring options."""
    from reeljudge.gemini.prompts import rubric_version

    kind = "image" if outcome.kind == "image" else "video"
    files = (f"gecko_{kind}_generate.md", f"gecko_{kind}_answer.md", "gecko_filter.md", "gecko_questions.schema.json")
    stage = outcome.stages.get("vqa") or next(iter(outcome.stages.values()), {})
    chosen = {k: getattr(options, k, None) for k in ("validity_filter", "scoring", "media_resolution", "fps")}
    # named only when on: a judge run without them keeps the identity it has always had
    chosen.update({k: True for k in ("dependencies", "shuffle_choices") if getattr(options, k)})
    return judge_identity(JUDGE_NAME, GEMINI_ENGINE, model=stage.get("model"), version=rubric_version(*files),
                          options=chosen, replayed=replayed)


def outcome_result(outcome: Any, options: GeckoOptions, found: Mapping[str, Any] | None = None) -> Result:
    """The promptfoo result of a Gecko outcome: score, coverage, per-tag named scores, per-question components;
    ``found``: how the media was found (carrier, file, hash), recorded under ``metadata.media``."""
    verdict = GeckoVerdict(outcome, options.threshold, options.min_coverage, options.questions_file)
    s = outcome.score
    question_set = outcome.question_set
    named = {METRIC: s.score, f"{METRIC}_coverage": s.coverage, **{f"{METRIC}_{tag}": v for tag, v in s.per_tag.items()}}
    questions = [_kept_question(o) for o in s.outcomes] + [_dropped_question(n, d) for n, d in enumerate(question_set.dropped, 1)]
    metadata = {
        "judge": JUDGE_NAME,
        "prompt": outcome.prompt,
        "media": {"ref": outcome.media.ref.ref, "name": outcome.media.ref.name, **(found or {}),
                  "sha256": outcome.media.sha256, "kind": outcome.kind},
        "expect": options.expect,
        "judged": verdict.covered,
        "score": s.score,
        "coverage": s.coverage,
        "per_tag": s.per_tag,
        "scoring": s.scoring,
        "scoring_notes": s.notes,
        "questions_source": question_set.source,
        "keywords": question_set.keywords,
        "annotation_problems": question_set.annotation_problems,
        "questions_kept": len(question_set.kept),
        "questions_dropped": [d.as_dict() for d in question_set.dropped],
        "questions": [details for _, _, details in questions],
        "stages": outcome.stages,
        "cache_hit": all(st.get("cache_hit") for st in outcome.stages.values()),
    }
    metadata.update(dependency_metadata(s) if options.dependencies else {})
    metadata.update(letter_metadata(outcome))
    metadata[IDENTITY_KEY] = _identity(outcome, options, metadata["cache_hit"])
    return grading_result(
        passed=verdict.passed,
        score=s.score,
        reason=verdict.reason(),
        named_scores=named,
        breakdown={name: reason for name, reason, _ in questions},
        part_status={name: bool(d["correct"]) for name, _, d in questions if d["status"] == "kept" and not d.get("skipped")},
        tokens=outcome.usage.tokens_used(),
        metadata=metadata,
    )


def _kept_question(o: Any) -> tuple[str, str, dict[str, Any]]:
    """A scored question: its name, its line of the breakdown, its metadata."""
    q = o.question
    name = f"q{o.number} [{q.tag}]"
    skipped = skip_reason(o)
    extra: dict[str, Any] = {"skipped": skipped} if skipped else {}
    if o.parents:
        extra["parents"] = o.parents
    return name, question_line(o), {
        "name": name, "correct": o.correct and not skipped, "score": o.score, "question": q.question, "choices": q.choices,
        "ground_truth": q.answer, "verdict": o.verdict, "raw_verdict": o.raw, "matched_by": o.matched_by,
        "tag": q.tag, "tag_source": q.tag_source, "status": "kept", **extra}


def _dropped_question(number: int, d: Any) -> tuple[str, str, dict[str, Any]]:
    """A question the filter dropped (not scored): its name, its line of the breakdown, its metadata."""
    q = d.question
    name = f"dropped {number} [{q.tag}]"
    return name, dropped_line(d), {
        "name": name, "question": q.question, "choices": q.choices, "ground_truth": q.answer, "tag": q.tag,
        "status": "dropped", "dropped_by": d.check, "why": d.reason}
