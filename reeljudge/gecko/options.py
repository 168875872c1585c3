"""The gecko judge's options (an assertion's ``config:``, or keyword arguments of ``score_gecko``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Mapping

from reeljudge.gemini.files import DEFAULT_INLINE_MAX_BYTES
from reeljudge.gemini.settings import JudgeSettings
from reeljudge.options import load_options, option

OWNER = "gecko"


@dataclass(frozen=True)
class GeckoOptions:
    """What the Gecko judge checks, how it scores and how media reaches the judge."""

    prompt_var: str = option("prompt", doc="the var holding the generation prompt being checked")
    media_var: str | None = option(None,
                                   doc="the var naming the clip or image (null: the provider response's media, else a markdown "
                                       "link, else var video/clip, else the output; docs/media.md)")
    qas_var: str = option("qas", doc="a var with declared questions (used as is: no generation, no filter)")
    kind: Literal["auto", "video", "image"] = option("auto", doc="media kind (auto: by file extension)")
    threshold: float = option(0.7, minimum=0, maximum=1, doc="pass when the score reaches it (expect: match)", verdict=True)
    min_coverage: float = option(0.5, verdict=True, minimum=0, maximum=1,
                                 doc="fail when fewer kept questions got a readable verdict")
    expect: Literal["match", "mismatch"] = option("match",
                                                  doc="mismatch marks a counter-prompt: it passes when the score "
                                                      "stays under threshold", verdict=True)
    expect_var: str = option("expect", doc="a test var that sets expect per test (match | mismatch)")
    validity_filter: bool = option(True, verdict=True,
                                   doc="drop questions the prompt text alone does not answer with the ground truth")
    dependencies: bool = option(True,
                                doc="DSG's rule: a question whose parent (enclosing keyword's question) failed "
                                    "scores 0, marked skipped", verdict=True)
    shuffle_choices: bool = option(True,
                                   doc="ask each question's choices in an order seeded by the question, "
                                       "ground truth mapped along", verdict=True)
    scoring: Literal["hard", "probability"] = option("hard",
                                                     doc="hard 0/1, or probability (log-probabilities where the "
                                                         "backend returns them)", verdict=True)
    fps: float | None = option(None, verdict=True, minimum=0.01, maximum=24,
                               doc="frames per second sampled from video (Gemini default 1)")
    start_offset_s: float | None = option(None, minimum=0, doc="judge the clip from this second", verdict=True)
    end_offset_s: float | None = option(None, minimum=0, doc="judge the clip up to this second", verdict=True)
    media_resolution: Literal["low", "medium", "high"] | None = option(None, verdict=True,
                                                                       doc="tokens per frame: low ≈ 66, default 258")
    inline_max_bytes: int = option(DEFAULT_INLINE_MAX_BYTES, minimum=0,
                                   doc="local files up to this size go inline, larger ones are uploaded")
    questions_file: str | None = option(None, aliases=("rubrics_file",),
                                        doc="an exported questions YAML; a test whose prompt has an entry uses its "
                                            "questions as they are")
    base_dir: str | None = option(None, doc="where relative media paths start (default: the working directory)")

    def __post_init__(self) -> None:
        if self.start_offset_s is not None and self.end_offset_s is not None and self.end_offset_s <= self.start_offset_s:
            raise ValueError("end_offset_s must be after start_offset_s")


def load(config: Mapping[str, Any] | None) -> tuple[GeckoOptions, JudgeSettings]:
    """Gecko options and Gemini settings from one config; BadInputError on a bad or unknown key."""
    return load_options(config, GeckoOptions, JudgeSettings, owner=OWNER)
