"""The one media resolver: a found reference opened through its carrier (see :mod:`reeljudge.media.carriers`)
into ``Located``: the checked media with its content hash and where it was found.

Which reference a test names is not decided here: the clip-finding order over promptfoo's response
shapes lives in the promptfoo wing (``reeljudge.promptfoo.clips``), which hands its find over as a
``Candidate``; so do ``ab import`` and the A/B judge's reference clips. This module knows carriers and
files only, nothing of promptfoo's test context.

Everything here is standard library; downloads load their modules only when a URL is fetched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from reeljudge.errors import MediaError
from reeljudge.media.carriers import Opened, Where, carrier_of, open_reference
from reeljudge.media.refs import ContentRef, MediaKind, short


@dataclass(frozen=True)
class Candidate:
    """A reference found for a test, before it is opened: the text, where it was found, a declared type."""

    ref: str
    origin: str
    mime_hint: str = ""
    written: str = ""  # the test's own reference, when promptfoo loaded it into the var (``file://clip.mp4``)


@dataclass(frozen=True)
class Located:
    """The media of a test: opened and hashed, with where it was found."""

    opened: Opened
    origin: str
    written: str = ""  # as in Candidate

    @property
    def media(self) -> ContentRef:
        """The checked media with its content hash."""
        return self.opened.media

    def described(self) -> str:
        """Where it was found and what it is, for a message (as ``described`` words a reference)."""
        if self.opened.carrier == "file":
            return f"{self.origin} = {self.opened.label!r}"
        return f"{self.origin} ({self.opened.carrier} {self.opened.label})"

    @property
    def label(self) -> str:
        """A short name for reasons: the reference (a path, a store reference, a URL), the test's own
        ``file://`` reference of a var promptfoo loaded, or the data: URI's summary."""
        return self.written or self.opened.label

    def metadata(self) -> dict[str, Any]:
        """What results record: carrier, where it was found, which file (never a machine path), content hash."""
        media = self.opened.media
        found = {"carrier": self.opened.carrier, "found_in": self.origin, "file": self.opened.file_name(),
                 "sha256": media.sha256, "kind": media.ref.kind, "mime_type": media.ref.mime_type}
        return {**found, "written": self.written} if self.written else found


def open_candidate(candidate: Candidate, kinds: Iterable[MediaKind], where: Where = Where()) -> Located:
    """A found reference opened; MediaError naming where it was found, its carrier and the problem."""
    try:
        opened = open_reference(candidate.ref, kinds, where, mime_hint=candidate.mime_hint)
    except MediaError as error:
        raise MediaError(f"{described(candidate.origin, candidate.ref)}: {error.message}") from None
    return Located(opened, candidate.origin, candidate.written)


def described(origin: str, ref: str) -> str:
    """Where a reference was found and what it is, for a refusal: ``var 'clip' = 'x.mp4'``, or with its carrier
    ``the provider response's video.blobRef (promptfoo-blob promptfoo://blob/…)``."""
    carrier = carrier_of(ref)
    return f"{origin} = {short(ref, 200)!r}" if carrier == "file" else f"{origin} ({carrier} {short(ref)})"
