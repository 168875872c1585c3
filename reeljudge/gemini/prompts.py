"""Where judge prompts and schemas live: the ``rubrics/`` folder at the project root."""

from __future__ import annotations

import os
from pathlib import Path

from reeljudge.errors import ReelJudgeError


def rubrics_dir() -> Path:
    """The rubrics folder: ``REELJUDGE_RUBRICS_DIR``, else ``rubrics/`` beside the package."""
    override = os.environ.get("REELJUDGE_RUBRICS_DIR")
    return Path(override) if override else Path(__file__).resolve().parents[2] / "rubrics"


def rubric_path(name: str) -> Path:
    """The path of one rubric file; ReelJudgeError if it does not exist."""
    path = rubrics_dir() / name
    if not path.is_file():
        raise ReelJudgeError(f"rubric file {name!r} not found in {rubrics_dir().name}/", kind="config_error")
    return path


def read_rubric(name: str) -> str:
    """The text of one rubric file."""
    return rubric_path(name).read_text(encoding="utf-8")
