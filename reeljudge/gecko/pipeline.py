"""The Gecko method end to end for one (prompt, media): rubric → validity filter → VQA → scores.

Judge calls: rubric generation and the filter once per unique (prompt, media kind, generator
settings), VQA once per (media content, rubric): all through the judge client's cache, so a re-run
makes no call, and a cache hit on VQA skips the media upload too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reeljudge.cache import request_key
from reeljudge.errors import JudgeError
from reeljudge.gemini.files import PreparedMedia, deliver_media
from reeljudge.gemini.client import JudgeClient, Usage
from reeljudge.gemini.settings import JudgeSettings
from reeljudge.gecko.options import GeckoOptions
from reeljudge.gecko.questions import Question, Rubric
from reeljudge.gecko.scoring import GeckoScore, score_verdicts


@dataclass
class GeckoOutcome:
    """Everything one Gecko judgement produced, for results and metadata."""

    prompt: str
    kind: str
    media: PreparedMedia
    rubric: Rubric
    score: GeckoScore
    usage: Usage
    stages: dict[str, dict[str, Any]] = field(default_factory=dict)


def build_rubric(
    prompt: str, kind: str, options: GeckoOptions, client: JudgeClient, declared: list[Question] | None
) -> tuple[Rubric, Usage, dict[str, dict[str, Any]]]:
    """The rubric to judge by: declared, from the rubrics file, or generated (and filtered); with usage."""
    usage, stages = Usage(), {}
    if declared is not None:
        return Rubric(prompt=prompt, source="declared", kept=declared), usage, stages
    if options.rubrics_file:
        from reeljudge.gecko.rubric_store import rubric_from_file

        from_file = rubric_from_file(options.rubrics_file, prompt, kind)
        if from_file is not None:
            return from_file, usage, stages
    from reeljudge.gecko.rubric_gen import generate_rubric
    from reeljudge.gecko.rubric_store import record_key, save_rubric
    from reeljudge.gecko.validity import apply_filter, drop_malformed

    rubric, reply = generate_rubric(prompt, kind, client)
    usage, stages["rubric"] = usage + reply.usage, reply.metadata()
    drop_malformed(rubric)
    if options.validity_filter and rubric.kept:
        reply = apply_filter(rubric, client)
        usage, stages["filter"] = usage + reply.usage, reply.metadata()
    generator = client.settings.generation_fingerprint()
    assert client.cache is not None
    if client.cache.get(record_key(prompt, kind, generator, options.validity_filter)) is None:
        save_rubric(client.cache, rubric, kind, generator, options.validity_filter)
    return rubric, usage, stages


def run_gecko(
    prompt: str,
    media: PreparedMedia,
    options: GeckoOptions,
    settings: JudgeSettings,
    *,
    declared: list[Question] | None = None,
    client: JudgeClient | None = None,
) -> GeckoOutcome:
    """Judge how well ``media`` follows ``prompt``; JudgeError/MediaError when that cannot be judged."""
    from reeljudge.gecko.vqa import verdict_parser, vqa_request

    client = client or JudgeClient(settings)
    kind = media.ref.kind if options.kind == "auto" else options.kind
    rubric, usage, stages = build_rubric(prompt, kind, options, client, declared)
    if not rubric.kept:
        reasons = "; ".join(f"{d.question.question!r}: {d.reason}" for d in rubric.dropped[:8]) or "the rubric had no questions"
        raise JudgeError(
            f"all {len(rubric.dropped)} questions of the rubric were dropped by the validity checks, nothing left to ask: {reasons}",
            kind="all_questions_dropped",
        )
    resolution = options.media_resolution.lower() if options.media_resolution else None
    probability = options.scoring == "probability"
    placeholder = media.placeholder(options.fps, options.start_offset_s, options.end_offset_s)
    request = vqa_request(kind, rubric.kept, placeholder, resolution, probability)
    assert client.cache is not None
    if client.cache.get(request_key(request.cache_payload(client.settings))) is None:
        located = deliver_media(
            media, client, inline_max_bytes=options.inline_max_bytes,
            fps=options.fps, start_s=options.start_offset_s, end_s=options.end_offset_s,
        )
        request = vqa_request(kind, rubric.kept, located, resolution, probability)
    reply = client.ask(request, verdict_parser(rubric.kept))
    usage, stages["vqa"] = usage + reply.usage, reply.metadata()
    score = score_verdicts(
        rubric.kept, reply.value["verdicts"], scoring=options.scoring, logprobs=reply.logprobs, reply_text=reply.text
    )
    if reply.value.get("unmatched"):
        score.notes.append(f"{len(reply.value['unmatched'])} verdict block(s) matched no question")
    if score.answered == 0:
        raise JudgeError("the judge answered none of the questions in a readable form (coverage 0)", kind="no_verdicts", raw=reply.text)
    return GeckoOutcome(prompt, kind, media, rubric, score, usage, stages)
