"""Our environment variables that belong to no judge's options, declared as options so that the one
options loader reads them (a bad value is an error naming the variable): the A/B study's folder,
database and rating-server log level, and the file the Gecko pair check writes its report to.

The judges' variables are declared with their options (``gemini.settings``, ``cache``,
``media.carriers``, ``gemini.prompts``); Google's and promptfoo's own are read where their owners
document them. ``tests/shared/test_environment_reads.py`` fails on a direct read of ours anywhere else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from reeljudge.options import load_one, option

LogLevel = Literal["critical", "error", "warning", "info", "debug", "trace"]


@dataclass(frozen=True)
class StudyEnvironment:
    """Where A/B studies live and how the rating server logs (null: the A/B commands' defaults)."""

    ab_dir: str | None = option(None, env="REELJUDGE_AB_DIR", doc="the study folder (default .reeljudge/ab)")
    ab_database: str | None = option(None, env="REELJUDGE_AB_DATABASE",
                                     doc="a postgresql:// URL for the study's records (default: <study>/ab.sqlite)")
    ab_log: LogLevel = option("warning", env="REELJUDGE_AB_LOG", doc="the rating server's log level (uvicorn's)")


@dataclass(frozen=True)
class GeckoEnvironment:
    """Where the Gecko pair check writes its report (null: the extension's default file)."""

    pairs_report: str | None = option(None, env="REELJUDGE_GECKO_PAIRS_REPORT", doc="the pair check's report file")


def study_environment() -> StudyEnvironment:
    """The A/B settings the environment sets; BadInputError naming the variable when one is bad."""
    return load_one({}, StudyEnvironment, owner="reeljudge ab")


def gecko_environment() -> GeckoEnvironment:
    """The Gecko settings the environment sets."""
    return load_one({}, GeckoEnvironment, owner="gecko pair check")
