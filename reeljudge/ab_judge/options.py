"""The A/B judge's options: an assertion's ``config:``, ``reeljudge ab judge --config``, or keyword
arguments of ``reeljudge.judge_pair`` (one loader for all three, beside the Gemini settings)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Mapping

from reeljudge.gemini.files import DEFAULT_INLINE_MAX_BYTES
from reeljudge.gemini.settings import JudgeSettings
from reeljudge.options import load_options, option

OWNER = "ab_judge"


@dataclass(frozen=True)
class ABJudgeOptions:
    """How the A/B judge compares two clips and what counts as a pass."""

    judge: Literal["gemini", "probes"] = option(
        "gemini", env="REELJUDGE_AB_JUDGE",
        doc="gemini (the protocol, every dimension) or probes (offline: temporal and technical dimensions "
            "from the video probes, adherence abstained)")
    orders: int = option(2, env="REELJUDGE_AB_ORDERS", minimum=1, maximum=2,
                         doc="2: ask in both orders (a flip is a tie flagged inconsistent); 1: ask once, cheaper, "
                             "side chosen by a hash", verdict=True)
    pass_on: Literal["win_or_tie", "win"] = option("win_or_tie", verdict=True,
                                                   doc="the new clip passes when it wins or ties, or only when it wins")
    expect_fail: bool = option(False,
                               doc="a new clip with a planted fault: pass only when the judge judged and the "
                                   "new clip did not pass", verdict=True)
    expect_fail_var: str = option("expect_fail", doc="a test var that sets expect_fail per test")
    family: str = option("text-to-video", verdict=True,
                         doc="task family of the protocol (text-to-video, image-to-video, edit, safety)")
    family_var: str = option("family", doc="a test var that sets the family per test")
    protocol: str = option("ab-v1", doc="the A/B protocol version (protocols/<id>.yaml)")
    prompt_var: str = option("prompt", doc="the var holding the generation prompt")
    reference_var: str = option("reference", doc="the var naming the reference clip (a baseline, a previous release)")
    media_var: str | None = option(None,
                                   doc="the var naming the new clip (null: the provider response's clip, else a markdown link, "
                                       "else var video/clip, else the output; docs/media.md)")
    source_var: str = option("source", doc="edit tasks: the var naming the source clip that was edited")
    media_resolution: Literal["low", "medium", "high"] | None = option(
        None, verdict=True, doc="tokens per frame: low ≈ 66, default 258")
    fps: float | None = option(None, minimum=0.01, maximum=24, verdict=True,
                               doc="frames per second sampled from each clip (Gemini default 1)")
    inline_max_bytes: int = option(DEFAULT_INLINE_MAX_BYTES, minimum=0,
                                   doc="clips up to this size go inline, larger ones are uploaded once")
    base_dir: str | None = option(None, doc="where relative clip paths start (default: the working directory)")


def load(config: Mapping[str, Any] | None, owner: str = OWNER) -> tuple[ABJudgeOptions, JudgeSettings]:
    """The A/B judge's options and the Gemini settings from one config; BadInputError on a bad or unknown key."""
    return load_options(config, ABJudgeOptions, JudgeSettings, owner=owner)
