"""The one verdict contract: what every judge's core returns when it judged.

``Verdict`` is a ``runtime_checkable`` protocol. ``FilmabilityVerdict``, ``GeckoVerdict``,
``ProbesVerdict``, ``PairVerdict`` and ``ProbesPairVerdict`` satisfy it; ``NotJudged`` (a judge that did
not judge) does not. A verdict writes its own reason, its parts' reasons, its named scores, who judged
it (``reeljudge.identity``) and the record of how it was reached, so a face, a bulk command, a
library job and the promptfoo wing's one result builder (``reeljudge.promptfoo.results.verdict_result``)
read one verdict the same way. Nothing here knows promptfoo.
"""

from __future__ import annotations

from typing import Any, Mapping, Protocol, runtime_checkable


@runtime_checkable
class Verdict(Protocol):
    """A judge's finished verdict.

    Attributes:
        judged: whether the judge judged (a verdict with nothing it could fail reads False).
        passed: whether it passes (never when not judged).
        score: our score, 0 to 1, computed by our code.
    """

    @property
    def judged(self) -> bool: ...
    @property
    def passed(self) -> bool: ...
    @property
    def score(self) -> float: ...

    def reason(self) -> str:
        """Why, in one line, without the verdict word."""
        ...

    def part_reasons(self) -> Mapping[str, str]:
        """Each part's reason (criterion, probe, question, order), keyed by its named score where it has one."""
        ...

    def part_status(self) -> Mapping[str, bool]:
        """For the parts that are checks of their own: whether each passed (empty when none are)."""
        ...

    def named_scores(self) -> Mapping[str, float]:
        """The verdict's numbers by metric name (``film_score``, ``gecko_<tag>``, a probe's name, ``ab_win``)."""
        ...

    def tokens_used(self) -> Mapping[str, int] | None:
        """The judge model's tokens (None for an offline judge)."""
        ...

    def identity(self) -> Mapping[str, Any]:
        """Who judged (``reeljudge.identity.judge_identity``)."""
        ...

    def metadata(self) -> Mapping[str, Any]:
        """The record of how the verdict was reached (JSON-able; without who judged, which ``identity`` gives)."""
        ...
