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
    threshold: float = option(0.8, minimum=0, maximum=1, doc="pass at this score or above (0.8 = GOOD)")
    judge: Literal["auto", "gemini", "local"] = option(
        "auto", env="REELJUDGE_JUDGE",
        doc="gemini, local (offline), or auto: Gemini when credentials or a replay cache are there, else local",
    )
    max_terms: int = option(50, minimum=1, doc="most search terms a test may give")
    max_narration_chars: int = option(4000, minimum=1, doc="longest narration accepted")


def load(config: Mapping[str, Any] | None) -> tuple[FilmabilityOptions, JudgeSettings]:
    """Filmability options and Gemini settings from one config; BadInputError on a bad or unknown key."""
    return load_options(config, FilmabilityOptions, JudgeSettings, owner=OWNER)
