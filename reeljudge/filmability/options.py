"""The filmability judge's options (an assertion's ``config:``, or keyword arguments of ``judge_terms``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Mapping

from reeljudge.gemini.settings import JudgeSettings
from reeljudge.options import load_options, option

OWNER = "filmability"


@dataclass(frozen=True)
class FilmabilityOptions:
    """What the filmability judge checks and which judge answers."""

    narration_var: str = option("narration", doc="the test var holding the narration sentence")
    threshold: float = option(0.8, minimum=0, maximum=1, doc="pass at this score or above (0.8 = GOOD)", verdict=True)
    judge: Literal["auto", "gemini", "local"] = option(
        "auto", env="REELJUDGE_JUDGE",
        doc="gemini, local (offline), or auto: when credentials or a replay cache are there, the offline judge first "
            "and Gemini for the lists it is unsure about or does not read (another language); else local",
    )
    min_relevance: int = option(
        1, minimum=0, maximum=3,
        doc="fail a list whose relevance (0–3) is below this, whatever its points: a list the judge reads as "
            "unrelated to the narration never passes (0: the score table alone)",
        verdict=True,
    )
    repeated_terms: Literal["cap", "fail"] = option(
        "cap",
        doc="a list that gives a term more than once (the same words up to case, punctuation, articles, plural or "
            "order) is scored on its distinct terms and never reaches EXCELLENT: cap (at most 0.8 GOOD) or fail (the "
            "test fails: a generator that repeats itself is a bug; the starter configs' choice)",
        verdict=True,
    )
    unsure: Literal["fail", "pass"] = option(
        "fail",
        doc="what the offline judge's third answer does when it decides alone (no Gemini): a list whose evidence lies "
            "in the band where related and off-topic lists both fall is 'unsure'; fail (a keyless gate never passes a "
            "list it cannot tell from an off-topic one; the reason says why and what settles it) or pass (scored on "
            "its reading as related). With Gemini and judge: auto, Gemini decides unsure lists",
        verdict=True,
    )
    max_terms: int = option(50, minimum=1, doc="most search terms a test may give")
    max_narration_chars: int = option(4000, minimum=1, doc="longest narration accepted")
    findability: Literal["auto", "off", "required"] = option(
        "auto", env="REELJUDGE_FINDABILITY",
        doc="ask Pexels/Pixabay how many clips each term returns: auto (when PEXELS_API_KEY / PIXABAY_API_KEY "
            "are set; otherwise the result says it was not checked), off, or required (no key or a failed "
            "search fails the test)",
        verdict=True,
    )
    findability_sources: tuple[Literal["pexels", "pixabay"], ...] = option(
        ("pexels", "pixabay"), doc="the stock-video search APIs to ask",
        verdict=True,
    )
    findability_min_clips: int = option(1, verdict=True, minimum=1,
                                        doc="a term is findable when the sources return this many clips")
    min_findability: float = option(
        0.0, minimum=0, maximum=1,
        doc="fail when a smaller share of terms is findable (0: shown, never gates; above 0 the signal is required)",
        verdict=True,
    )
    findability_max_age_h: float = option(
        168.0, minimum=0, doc="cached clip counts older than this many hours are asked again (Pixabay asks ≥ 24)",
    )

    def __post_init__(self) -> None:
        if not self.findability_sources:
            raise ValueError("findability_sources names no source")
        if self.min_findability > 0 and self.findability == "off":
            raise ValueError("min_findability is set but findability is 'off'")

    @property
    def findability_mode(self) -> str:
        """The mode in force: a findability minimum makes the signal required."""
        return "required" if self.min_findability > 0 and self.findability == "auto" else self.findability


def load(config: Mapping[str, Any] | None) -> tuple[FilmabilityOptions, JudgeSettings]:
    """Filmability options and Gemini settings from one config; BadInputError on a bad or unknown key."""
    return load_options(config, FilmabilityOptions, JudgeSettings, owner=OWNER)
