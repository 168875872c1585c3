"""Judge prompts as data: the prompt and schema files in ``rubrics/``, and the delimited blocks that
untrusted text (narrations, prompts, search terms) travels in.

A "rubric" file is a judge's instructions (its criteria and the answer format); a ``*.schema.json``
file is the JSON Schema its reply must meet. Untrusted text never joins the instructions: it goes
in a ``<tag>…</tag>`` block with angle brackets escaped, so nothing in it can close the block.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reeljudge.errors import ReelJudgeError
from reeljudge.options import load_one, option
from reeljudge.package_data import rubrics_folder


@dataclass(frozen=True)
class PromptsEnvironment:
    """Where the prompt files are read from, as the environment sets it (read by the options loader)."""

    rubrics_dir: str | None = option(None, env="REELJUDGE_RUBRICS_DIR",
                                     doc="a folder of edited prompt files to use instead of the packaged ones")


def rubrics_dir() -> Path:
    """The prompts folder: ``REELJUDGE_RUBRICS_DIR`` (documented: try edited prompts without reinstalling), else the packaged
    one."""
    override = load_one({}, PromptsEnvironment, owner="prompt files").rubrics_dir
    return Path(override) if override else rubrics_folder()


def rubric_path(name: str) -> Path:
    """The path of one prompt or schema file; ReelJudgeError if it does not exist."""
    path = rubrics_dir() / name
    if not path.is_file():
        raise ReelJudgeError(f"prompt file {name!r} not found in {rubrics_dir().name}/", kind="config_error")
    return path


#: file bytes read in this process, by path, with the (size, modification time) they were read at
_READ: dict[str, tuple[tuple[int, int], bytes]] = {}


def _file_bytes(path: Path) -> bytes:
    """A prompt or schema file's bytes, read once per process while its size and modification time stay
    (a request and the rubric version of its result both need them; an edited file is read again)."""
    stat = path.stat()
    seen = _READ.get(str(path))
    if seen is not None and seen[0] == (stat.st_size, stat.st_mtime_ns):
        return seen[1]
    data = path.read_bytes()
    _READ[str(path)] = ((stat.st_size, stat.st_mtime_ns), data)
    return data


def read_rubric(name: str) -> str:
    """The text of one prompt file."""
    return _file_bytes(rubric_path(name)).decode("utf-8")


def rubric_version(*names: str) -> str:
    """A short content hash of prompt and schema files: the version a result records of the rubric it was judged by."""
    digest = hashlib.sha256()
    for name in names:
        digest.update(name.encode() + b"\0" + _file_bytes(rubric_path(name)) + b"\0")
    return digest.hexdigest()[:12]


def load_schema(name: str) -> dict[str, Any]:
    """A JSON Schema from ``rubrics/<name>`` (a fresh copy each time)."""
    return json.loads(_file_bytes(rubric_path(name)))


def neutralise(text: str) -> str:
    """Text with angle brackets escaped, so it cannot open or close a data block."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def data_block(tag: str, text: str) -> str:
    """``text`` inside ``<tag>…</tag>``, escaped so nothing in it can end the block early."""
    return f"<{tag}>\n{neutralise(text)}\n</{tag}>"


def json_block(tag: str, value: object) -> str:
    """A JSON value inside ``<tag>…</tag>``, escaped the same way."""
    return data_block(tag, json.dumps(value, ensure_ascii=False))
