"""Judging one pair with Gemini: one request per order through the shared judge client.

Every order is its own request (and cache entry): the same clips with the sides swapped are a
different request. Media are delivered only for a request that is not cached, each unique clip
once (``MediaParts``: inline when small, else one Files API upload per content hash, reused across
orders, pairs and runs). A pair is judged in every order asked or not at all: when an order does
not judge (blocked, unparseable, rule-breaking twice, API error, a clip that fails to upload) the
pair fails with that order's reason; orders already answered stay cached, so a re-run asks only
the missing one. Requests recorded for the Batch API (cache mode ``plan``) are planned for every
order before the pair reports "queued".
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from typing import Any

from reeljudge.ab.store.protocol import Protocol, load_protocol
from reeljudge.ab_judge.options import ABJudgeOptions
from reeljudge.options import verdict_options
from reeljudge.ab_judge.request import order_request, order_parser
from reeljudge.ab_judge.verdict import OrderVerdict, PairVerdict, combine
from reeljudge.errors import JudgeError, MediaError, ReelJudgeError
from reeljudge.gemini.client import JudgeClient
from reeljudge.gemini.request import MediaInput
from reeljudge.gemini.files import deliver_media, placeholder
from reeljudge.media.refs import ContentRef

SIDES = ("A", "B")
#: a judge error that means "recorded for the Batch API": the other order is planned too
QUEUED_KINDS = frozenset({"queued_for_batch"})


@dataclass(frozen=True)
class Pair:
    """What one judgement compares: the prompt, the task family, two systems' clips, an optional source."""

    prompt: str
    family: str
    systems: tuple[str, str]  # (candidate, reference) for the assertion; the sample's systems for the batch
    clips: tuple[ContentRef, ContentRef]
    source: ContentRef | None = None

    def layouts(self, orders: int) -> list[tuple[int, int]]:
        """Which clip is on side A and which on B, per order: both orders, or the one a hash of the pair picks."""
        if orders == 2:
            return [(0, 1), (1, 0)]
        digest = hashlib.sha256("\n".join([self.prompt, *sorted(c.sha256 for c in self.clips)]).encode("utf-8")).digest()
        first = digest[0] % 2
        return [(first, 1 - first)]


class MediaParts:
    """Media parts to send, delivered once per unique clip (thread-safe; shared across pairs of a batch)."""

    def __init__(self, client: JudgeClient, options: ABJudgeOptions) -> None:
        self.client, self.options = client, options
        self._parts: dict[str, MediaInput] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self.delivered = 0

    def placeholder(self, media: ContentRef) -> MediaInput:
        """The part without location (enough for the cache key)."""
        return placeholder(media, self.options.fps)

    def located(self, media: ContentRef, role: str) -> MediaInput:
        """The part with inline bytes or an uploaded file's URI; MediaError naming ``role`` and the clip."""
        with self._guard:
            lock = self._locks.setdefault(media.sha256, threading.Lock())
        with lock:
            if media.sha256 not in self._parts:
                try:
                    self._parts[media.sha256] = deliver_media(media, self.client, inline_max_bytes=self.options.inline_max_bytes,
                                                              fps=self.options.fps)
                except ReelJudgeError as error:
                    raise type(error)(f"{role} {media.ref.name}: {error.message}", kind=error.kind) from None
                self.delivered += 1
            return self._parts[media.sha256]


def judge_pair_media(pair: Pair, options: ABJudgeOptions, client: JudgeClient, media: MediaParts | None = None) -> PairVerdict:
    """The judge's verdict on ``pair`` in ``options.orders`` orders; JudgeError/MediaError when it did not judge."""
    protocol = load_protocol(options.protocol)
    if protocol.family(pair.family).needs_source and pair.source is None:
        raise MediaError(f"{pair.family} tasks need the source clip the edit was applied to")
    media = media or MediaParts(client, options)
    parse = order_parser(protocol, pair.family)
    layouts = pair.layouts(options.orders)
    verdicts: list[OrderVerdict] = []
    queued: list[JudgeError] = []
    for number, layout in enumerate(layouts, 1):
        shown = {side: pair.systems[i] for side, i in zip(SIDES, layout)}
        try:
            reply = client.ask(_request(pair, layout, protocol, options, media, client), parse)
        except JudgeError as error:
            if error.kind in QUEUED_KINDS:
                queued.append(error)
                continue
            raise _order_failed(error, number, len(layouts), shown, verdicts) from None
        except MediaError as error:
            raise _order_failed(error, number, len(layouts), shown, verdicts) from None
        verdicts.append(OrderVerdict(shown, reply.value, reply.metadata(), reply.usage))
    if queued:
        raise JudgeError(f"{len(queued)} of {len(layouts)} order(s) recorded for the Batch API: {queued[0].message}",
                         kind=queued[0].kind)
    return combine(pair.prompt, pair.family, protocol, pair.systems, verdicts, options.pass_on, fps=options.fps,
                   media_resolution=options.media_resolution, configured=verdict_options(options, client.settings))


def _request(pair: Pair, layout: tuple[int, int], protocol: Protocol, options: ABJudgeOptions, media: MediaParts,
             client: JudgeClient) -> Any:
    """The request for one layout: with placeholders when cached, else with the delivered media."""
    roles = {0: f"{pair.systems[0]} clip", 1: f"{pair.systems[1]} clip"}

    def build(located: bool) -> Any:
        part = (lambda c, role: media.located(c, role)) if located else (lambda c, role: media.placeholder(c))
        clips = {side: part(pair.clips[i], roles[i]) for side, i in zip(SIDES, layout)}
        source = part(pair.source, "source clip") if pair.source is not None else None
        return order_request(protocol, pair.family, pair.prompt, clips, source=source, media_resolution=options.media_resolution)

    request = build(False)
    return request if client.is_cached(request) else build(True)


def _order_failed(error: ReelJudgeError, number: int, total: int, shown: dict[str, str],
                  done: list[OrderVerdict]) -> ReelJudgeError:
    """The pair's failure: which order did not judge (and what it saw), and that nothing is half-judged."""
    where = f"order {number} of {total} (A = {shown['A']}, B = {shown['B']})"
    kept = f"; order {number - 1} was judged and stays cached, the pair is not judged" if done else ""
    return replace_message(error, f"{where} did not judge: {error.message}{kept}")


def replace_message(error: ReelJudgeError, message: str) -> ReelJudgeError:
    """The same kind of error with a new message (raw reply kept)."""
    return type(error)(message, kind=error.kind, raw=error.raw)


__all__ = ["MediaParts", "Pair", "judge_pair_media"]
