"""What one judge request is and what judging costs: the content parts (text and media), the
request with its cache payload, and token usage. Plain data, shared by the client, the wire layer
and the batch layer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:  # pragma: no cover - typing only
    from reeljudge.gemini.settings import JudgeSettings


@dataclass(frozen=True)
class MediaInput:
    """A clip or image as sent to the judge: its content hash plus where or what it is.

    ``local_path`` (with ``upload``) is media planned for the Batch API: a local file, sent inline
    or uploaded when the batch is submitted, not before (``reeljudge.batch``).
    """

    sha256: str
    mime_type: str
    file_uri: str | None = None
    data: bytes | None = None
    fps: float | None = None
    start_offset_s: float | None = None
    end_offset_s: float | None = None
    local_path: str | None = None
    upload: bool = False

    def fingerprint(self) -> dict[str, Any]:
        """What of this media shapes a reply (the content, not where it is stored)."""
        return {"sha256": self.sha256, "mime": self.mime_type, "fps": self.fps,
                "start": self.start_offset_s, "end": self.end_offset_s}


Part = str | MediaInput


@dataclass(frozen=True)
class JudgeRequest:
    """One question to the judge: instructions, content parts, and the JSON Schema of the answer."""

    kind: str
    system: str
    parts: tuple[Part, ...]
    schema: Mapping[str, Any] | None = None
    media_resolution: str | None = None
    response_logprobs: bool = False

    def cache_payload(self, settings: JudgeSettings) -> dict[str, Any]:
        """Everything that shapes the reply, as a JSON-able dict for the cache key."""
        return {
            "kind": self.kind,
            "system": self.system,
            "parts": [p if isinstance(p, str) else p.fingerprint() for p in self.parts],
            "schema": self.schema,
            "media_resolution": self.media_resolution,
            "logprobs": self.response_logprobs,
            "settings": settings.generation_fingerprint(),
        }


@dataclass
class Usage:
    """Tokens, requests and estimated cost, summed over one or more judge calls."""

    prompt_tokens: int = 0
    output_tokens: int = 0
    requests: int = 0
    cached_requests: int = 0
    cached_tokens: int = 0
    cost_usd: float | None = 0.0

    def __add__(self, other: "Usage") -> "Usage":
        cost = None if self.cost_usd is None or other.cost_usd is None else self.cost_usd + other.cost_usd
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.output_tokens + other.output_tokens,
            self.requests + other.requests,
            self.cached_requests + other.cached_requests,
            self.cached_tokens + other.cached_tokens,
            cost,
        )

    def tokens_used(self) -> dict[str, int]:
        """promptfoo's ``tokensUsed`` shape."""
        return {
            "total": self.prompt_tokens + self.output_tokens + self.cached_tokens,
            "prompt": self.prompt_tokens,
            "completion": self.output_tokens,
            "cached": self.cached_tokens,
            "numRequests": self.requests,
        }
