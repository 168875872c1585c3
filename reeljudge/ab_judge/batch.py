"""``reeljudge ab judge``: the A/B judge as one more rater over a study's imported pairs.

Every pair sample of the study (gold pairs too with ``include_gold``) that the rater has not
judged yet is judged through the same pipeline as the assertion, and the verdict is written into
the study's store as a model rater's judgement record (rater id: the model, unless named), with the
per-order verdicts, the position flag and the call details in the record. A pair the judge did
not judge writes nothing and is listed with the reason. Re-running skips what is stored; the judge
cache makes even a fresh store cost no calls. Records are idempotent by a submission id derived
from the rater, the sample and the requests asked.
"""

from __future__ import annotations

import hashlib
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping

from reeljudge.ab.store.records import RATER_ID, TIE, build_record
from reeljudge.ab.store.samples import Sample
from reeljudge.ab.store.store import AlreadyJudged
from reeljudge.ab.study.workspace import Workspace
from reeljudge.ab_judge.options import ABJudgeOptions, load
from reeljudge.ab_judge.pair import MediaParts, Pair, judge_pair_media
from reeljudge.ab_judge.rubric import rubric_name
from reeljudge.ab_judge.verdict import PairVerdict
from reeljudge.errors import BadInputError, JudgeError, MediaError
from reeljudge.batch.planner import judge_client
from reeljudge.gemini.request import Usage
from reeljudge.gemini.settings import JudgeSettings
from reeljudge.media.refs import ContentRef, resolve_media

OWNER = "reeljudge ab judge"


@dataclass
class BatchReport:
    """What one run did: judged, skipped and not-judged samples, position consistency, cost."""

    rater: str
    model: str
    orders: int
    samples: int = 0
    judged: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)
    not_judged: list[dict[str, str]] = field(default_factory=list)
    consistent: int = 0
    both_orders: int = 0
    usage: Usage = field(default_factory=Usage)
    clips_delivered: int = 0

    def lines(self) -> list[str]:
        """The summary printed by the command."""
        u = self.usage
        out = [
            f"reeljudge ab judge: rater {self.rater} (model {self.model}), orders: {self.orders}",
            f"  {self.samples} samples: {len(self.judged)} judged now, {len(self.already)} already judged by {self.rater}, "
            f"{len(self.not_judged)} not judged",
            f"  judge calls: {u.requests} made, {u.cached_requests} answered from the cache; clips delivered: "
            f"{self.clips_delivered}; tokens: prompt {u.prompt_tokens}, output {u.output_tokens}; estimated cost: "
            + ("unknown" if u.cost_usd is None else f"${u.cost_usd:.4f}"),
        ]
        if self.both_orders:
            out.append(f"  position consistency: {self.consistent} of {self.both_orders} pairs gave the same verdict "
                       f"in both orders ({100 * self.consistent / self.both_orders:.0f} %); "
                       "the others are stored as ties flagged inconsistent")
        elif self.judged:
            out.append("  position consistency: not measured (orders: 1, each pair asked once)")
        out += [f"  not judged: {n['sample_id']} ({n['kind']}): {n['reason']}" for n in self.not_judged[:50]]
        return out


def study_options(ws: Workspace, config: Mapping[str, Any]) -> tuple[ABJudgeOptions, JudgeSettings]:
    """The judge's options for this study: Gemini only, the study's protocol."""
    options, settings = load(config, owner=OWNER)
    if options.judge != "gemini":
        raise BadInputError(f"{OWNER}: judge: {options.judge} cannot write protocol records (the probes abstain on "
                            "adherence); use judge: gemini")
    study = ws.protocol.id
    if "protocol" in config and options.protocol != study:
        raise BadInputError(f"{OWNER}: protocol {options.protocol} asked, but this study uses {study}")
    return replace(options, protocol=study), settings


def select_samples(ws: Workspace, sample_ids: list[str] | None, include_gold: bool) -> list[Sample]:
    """The samples to judge, in import order; BadInputError naming unknown ids."""
    samples = [s for s in ws.store.samples() if s.kind == "pair" or (include_gold and s.kind == "gold")]
    if sample_ids:
        known = {s.sample_id for s in ws.store.samples()}
        unknown = [i for i in sample_ids if i not in known]
        if unknown:
            raise BadInputError(f"{OWNER}: no such sample(s) in this study: {', '.join(unknown)}")
        samples = [s for s in samples if s.sample_id in set(sample_ids)]
    return samples


def judge_study(ws: Workspace, config: Mapping[str, Any], *, rater: str | None = None, sample_ids: list[str] | None = None,
                limit: int | None = None, include_gold: bool = False, workers: int = 4,
                progress: Callable[[str], None] | None = None) -> BatchReport:
    """Judge the study's samples this rater has not judged and store the records (see the module doc)."""
    options, settings = study_options(ws, config)
    rater = rater or settings.model
    if not RATER_ID.match(rater) or rater == TIE:
        raise BadInputError(f"{OWNER}: {rater!r} cannot name a rater (letters, digits and _ . : @ - only); give one with --rater")
    report = BatchReport(rater, settings.model, options.orders)
    samples = select_samples(ws, sample_ids, include_gold)
    done = {r["sample_id"] for r in ws.store.judgements(rater_id=rater)}
    report.samples = len(samples)
    report.already = [s.sample_id for s in samples if s.sample_id in done]
    todo = [s for s in samples if s.sample_id not in done][: limit if limit is not None else None]
    local = threading.local()
    lock = threading.Lock()
    media = MediaParts(judge_client(settings), options)

    def one(sample: Sample) -> None:
        if getattr(local, "client", None) is None:
            local.client = judge_client(settings)
        try:
            verdict = judge_pair_media(pair_of(ws, sample), options, local.client, media)
            ws.store.append_judgement(record_of(verdict, sample, rater, settings, options))
        except (JudgeError, MediaError) as error:
            with lock:
                report.not_judged.append({"sample_id": sample.sample_id, "kind": error.kind, "reason": error.message})
            return
        except AlreadyJudged:
            with lock:
                report.already.append(sample.sample_id)
            return
        with lock:
            report.judged.append(sample.sample_id)
            report.usage = report.usage + verdict.usage
            if verdict.consistent is not None:
                report.both_orders += 1
                report.consistent += int(verdict.consistent)
        if progress:
            progress(f"{sample.sample_id}: {verdict.winner}" + (" (inconsistent)" if verdict.inconsistent else ""))

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        list(pool.map(one, todo))
    report.clips_delivered = media.delivered
    return report


def pair_of(ws: Workspace, sample: Sample) -> Pair:
    """The pair a sample shows, with its stored clips (content-addressed: the hash is the file's name)."""

    def clip(sha: str, role: str) -> ContentRef:
        stored = ws.store.clip(sha)
        if stored is None:
            raise MediaError(f"{role}: clip {sha[:12]} is not in this study's clip store")
        path = ws.clips.path(stored)
        return ContentRef(resolve_media(path, kinds=("video",)), sha, stored.bytes)

    source = clip(sample.source_clip, "source clip") if sample.source_clip else None
    return Pair(sample.prompt, sample.family, sample.systems,
                (clip(sample.clip_a, f"{sample.system_a} clip"), clip(sample.clip_b, f"{sample.system_b} clip")), source)


def record_of(verdict: PairVerdict, sample: Sample, rater: str,
              settings: JudgeSettings, options: ABJudgeOptions) -> dict[str, Any]:
    """The model rater's judgement record of a verdict (sides as in the first order asked)."""
    shown = dict(verdict.orders[0].shown)
    side_of = {system: side for side, system in shown.items()}
    form = {
        "winner": TIE if verdict.winner == TIE else side_of[verdict.winner],
        "primary_tag": verdict.primary_tag, "secondary_tags": list(verdict.secondary_tags),
        "ratings": {side: dict(verdict.ratings[system]) for side, system in shown.items()}, "note": verdict.note,
    }
    keys = [str(o.call.get("cache_key", "")) for o in verdict.orders]
    submission = "model." + hashlib.sha256("\x1f".join([rater, sample.sample_id, *keys]).encode("utf-8")).hexdigest()[:40]
    judge = {
        "orders_asked": len(verdict.orders), "consistent": verdict.consistent, "orders": [o.as_dict() for o in verdict.orders],
        "model": settings.model, "settings": settings.generation_fingerprint(), "rubric": rubric_name(options.protocol),
        "media_resolution": options.media_resolution, "fps": options.fps,
        "usage": {"requests": verdict.usage.requests, "cached_requests": verdict.usage.cached_requests,
                  "prompt_tokens": verdict.usage.prompt_tokens, "output_tokens": verdict.usage.output_tokens,
                  "cost_usd": verdict.usage.cost_usd},
    }
    return build_record(
        sample_id=sample.sample_id, family=sample.family, protocol=options.protocol, shown=shown,
        clips={side: sample.clip_of(system) for side, system in shown.items()}, form=form, rater_id=rater, rater_kind="model",
        model=settings.model, submission_id=submission, extra={"inconsistent": verdict.inconsistent, "judge": judge},
    )
