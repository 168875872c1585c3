"""The Gecko method end to end for one (prompt, media): question set → validity filter → VQA → scores.

Judge calls: question generation and the filter once per unique (prompt, media kind, generator
settings), VQA once per (media content, question set): all through the judge client's cache, so a
re-run makes no call, and a cache hit on VQA skips the media upload too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reeljudge.errors import JudgeError
from reeljudge.gecko.options import GeckoOptions
from reeljudge.gecko.question_graph import question_parents
from reeljudge.gecko.questions import Question, QuestionSet
from reeljudge.gecko.letter_tally import bias_check, tally
from reeljudge.gecko.shuffle import letter_counts, shuffled
from reeljudge.gecko.scoring import GeckoScore, score_verdicts
from reeljudge.batch.planner import judge_client
from reeljudge.gemini.client import JudgeClient
from reeljudge.gemini.request import Usage
from reeljudge.gemini.files import deliver_media, placeholder
from reeljudge.gemini.settings import JudgeSettings
from reeljudge.media.refs import ContentRef, MediaKind


@dataclass
class GeckoOutcome:
    """Everything one Gecko judgement produced, for results and metadata."""

    prompt: str
    kind: str
    media: ContentRef
    question_set: QuestionSet
    score: GeckoScore  # its outcomes hold the questions as asked (choices shuffled unless shuffle_choices: false)
    usage: Usage
    stages: dict[str, dict[str, Any]] = field(default_factory=dict)
    answer_letters: dict[str, dict[str, int]] = field(default_factory=dict)  # this judgement's {"judge", "truth"} counts
    letter_bias: dict[str, Any] = field(default_factory=dict)  # the check over the judge's tally (letter_tally)


def build_questions(
    prompt: str, kind: str, options: GeckoOptions, client: JudgeClient, declared: list[Question] | None
) -> tuple[QuestionSet, Usage, dict[str, dict[str, Any]]]:
    """The question set to judge by: declared, from the questions file, or generated (and filtered); with usage."""
    usage = Usage()
    stages: dict[str, dict[str, Any]] = {}
    if declared is not None:
        return QuestionSet(prompt=prompt, source="declared", kept=declared), usage, stages
    if options.questions_file:
        from reeljudge.gecko.question_store import questions_from_file

        from_file = questions_from_file(options.questions_file, prompt, kind)
        if from_file is not None:
            return from_file, usage, stages
    from reeljudge.gecko.question_gen import generate_questions
    from reeljudge.gecko.question_store import save_questions
    from reeljudge.gecko.validity import apply_filter, drop_malformed

    question_set, reply = generate_questions(prompt, kind, client)
    usage, stages["generate"] = usage + reply.usage, reply.metadata()
    drop_malformed(question_set)
    if options.validity_filter and question_set.kept:
        reply = apply_filter(question_set, client)
        usage, stages["filter"] = usage + reply.usage, reply.metadata()
    save_questions(client, question_set, kind, options.validity_filter)
    return question_set, usage, stages


def open_media(ref: str, options: GeckoOptions, settings: JudgeSettings, source: str = "media") -> ContentRef:
    """The media ``ref`` names (any carrier), opened and hashed; MediaError naming ``source`` when unusable."""
    from reeljudge.media.carriers import Where
    from reeljudge.media.resolver import Candidate, open_candidate

    where = Where(base_dir=Path(options.base_dir) if options.base_dir else None, memo=settings.judge_cache())
    return open_candidate(Candidate(ref, source), media_kinds(options), where).media


def asked_questions(kept: list[Question], options: GeckoOptions) -> list[Question]:
    """The questions as the VQA request asks them: choices shuffled by ``shuffle_choices``, else as kept."""
    return shuffled(kept) if options.shuffle_choices else list(kept)


def media_kinds(options: GeckoOptions) -> tuple[MediaKind, ...]:
    """The media kinds the options accept (``kind: auto``: video or image)."""
    return ("video", "image") if options.kind == "auto" else (options.kind,)


def run_gecko(
    prompt: str,
    media: ContentRef,
    options: GeckoOptions,
    settings: JudgeSettings,
    *,
    declared: list[Question] | None = None,
    client: JudgeClient | None = None,
) -> GeckoOutcome:
    """Judge how well ``media`` follows ``prompt``; JudgeError/MediaError when that cannot be judged."""
    from reeljudge.gecko.vqa import verdict_parser, vqa_request

    client = client or judge_client(settings)
    kind = media.ref.kind if options.kind == "auto" else options.kind
    question_set, usage, stages = build_questions(prompt, kind, options, client, declared)
    if not question_set.kept:
        reasons = "; ".join(f"{d.question.question!r}: {d.reason}" for d in question_set.dropped[:8]) or "there were no questions"
        raise JudgeError(
            f"all {len(question_set.dropped)} questions were dropped by the validity checks, nothing left to ask: {reasons}",
            kind="all_questions_dropped",
        )
    resolution = options.media_resolution
    probability = options.scoring == "probability"
    asked = asked_questions(question_set.kept, options)
    request = vqa_request(kind, asked, placeholder(media, options.fps, options.start_offset_s, options.end_offset_s),
                          resolution, probability)
    if not client.is_cached(request):
        located = deliver_media(media, client, inline_max_bytes=options.inline_max_bytes,
                                fps=options.fps, start_s=options.start_offset_s, end_s=options.end_offset_s)
        request = vqa_request(kind, asked, located, resolution, probability)
    reply = client.ask(request, verdict_parser(asked))
    usage, stages["vqa"] = usage + reply.usage, reply.metadata()
    parents = question_parents(asked, question_set.keywords) if options.dependencies else None
    score = score_verdicts(
        asked, reply.value["verdicts"], scoring=options.scoring, logprobs=reply.logprobs, reply_text=reply.text, parents=parents
    )
    if reply.value.get("unmatched"):
        score.notes.append(f"{len(reply.value['unmatched'])} verdict block(s) matched no question")
    if score.answered == 0:
        why = "; ".join(f"q{o.number}: {o.note or 'no verdict'}" for o in score.outcomes[:8])
        raise JudgeError(f"the judge answered none of the questions in a readable form (coverage 0): {why}",
                         kind="no_verdicts", raw=reply.text)
    letters = letter_counts([o.question for o in score.outcomes], [o.verdict for o in score.outcomes])
    totals = tally(client.cache, reply.model, reply.key[:16], letters)
    return GeckoOutcome(prompt, kind, media, question_set, score, usage, stages, letters, bias_check(totals, reply.model))
