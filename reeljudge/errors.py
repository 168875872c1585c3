"""Failure types shared by every judge: each names exactly what went wrong."""

from __future__ import annotations

from typing import Any


class ReelJudgeError(Exception):
    """Base class for every failure that reeljudge reports instead of a score."""

    kind: str = "error"

    def __init__(self, message: str, *, kind: str | None = None, raw: Any = None) -> None:
        super().__init__(message)
        if kind is not None:
            self.kind = kind
        self.raw = raw

    @property
    def message(self) -> str:
        """The human-readable reason, without the kind prefix."""
        return str(self.args[0]) if self.args else self.kind


class BadInputError(ReelJudgeError):
    """A test's vars, output or assertion config cannot be judged as given."""

    kind = "bad_input"


class JudgeError(ReelJudgeError):
    """The judge did not judge: no credentials, API error, blocked, unparseable, cache miss…"""

    kind = "judge_error"


class MediaError(ReelJudgeError):
    """A clip or image is missing, empty, unreadable or unsupported."""

    kind = "media_error"
