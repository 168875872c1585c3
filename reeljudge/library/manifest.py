"""Which clips a library run covers: a folder, one clip, or a manifest listing paths and URLs.

Manifest formats, by extension:

- ``.txt`` (or any other): one clip per line; blank lines and lines starting with ``#`` are skipped;
- ``.jsonl``: one object per line with ``clip`` (or ``path``, ``url``, ``ref``) and optional ``prompt``;
- ``.csv``: a header row with a ``clip`` (or ``path``, ``url``, ``ref``) column and optional ``prompt``;
- ``.yaml``/``.yml``: a list of clip strings or of mappings like the JSONL objects.

Relative paths in a manifest are relative to the manifest's folder; clips found in a folder are
named by their path under it. A malformed entry becomes a :class:`BadEntry` (reported as an error
line naming the manifest line) and the other entries are still run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reeljudge.errors import BadInputError
from reeljudge.media.refs import VIDEO_MIME, is_remote_ref
from reeljudge.rows import Table, Unparsed, read_table

CLIP_KEYS = ("clip", "path", "url", "ref")


@dataclass(frozen=True)
class ClipItem:
    """One clip to probe: the reference as given, where to read it, and the prompt it was made from."""

    ref: str  # as written in the manifest, or the path under the folder (never a machine path)
    location: str  # an absolute local path or an http(s)/gs URL
    prompt: str = ""
    origin: str = ""  # e.g. ``clips.txt line 3``, for messages


@dataclass(frozen=True)
class BadEntry:
    """A manifest entry that names no usable clip."""

    ref: str  # the manifest line, e.g. ``clips.txt line 3``
    origin: str
    message: str


def read_library(source: str | Path) -> tuple[list[ClipItem], list[BadEntry], str]:
    """The clips ``source`` names (folder, clip or manifest), its bad entries, and a description."""
    path = Path(source)
    if path.is_dir():
        return scan_folder(path), [], f"folder {source}"
    if not path.exists():
        raise BadInputError(f"{source}: no such folder, clip or manifest")
    if path.suffix.lower() in VIDEO_MIME:
        return [ClipItem(ref=path.name, location=str(path.resolve()), origin=str(source))], [], f"clip {source}"
    items, bad = read_manifest(path)
    return items, bad, f"manifest {source}"


def scan_folder(folder: Path) -> list[ClipItem]:
    """Every video file under ``folder`` (hidden entries skipped), sorted by its relative path."""
    root = folder.resolve()
    found = []
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        if any(part.startswith(".") for part in rel.parts) or path.suffix.lower() not in VIDEO_MIME:
            continue
        if path.is_file() or not path.exists():  # a broken symlink is listed, and reported as missing
            found.append(ClipItem(ref=rel.as_posix(), location=str(path), origin=f"folder {folder}"))
    return sorted(found, key=lambda item: item.ref)


def read_manifest(path: Path) -> tuple[list[ClipItem], list[BadEntry]]:
    """The entries of a manifest file; BadInputError when the file itself cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise BadInputError(f"manifest {path}: cannot be read ({error})") from None
    table = read_table(text, path.suffix, f"manifest {path}", columns=CLIP_KEYS, what="clips", blank_cells=False) or Table(
        [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1) if line.strip() and not line.strip().startswith("#")],
        "line")
    items: list[ClipItem] = []
    bad: list[BadEntry] = []
    for number, row in table.rows:
        origin = f"{path.name} {table.unit} {number}"
        entry = _entry(row, origin, path.parent)
        if isinstance(entry, ClipItem):
            items.append(entry)
        else:
            bad.append(entry)
    return items, bad


def _entry(row: Any, origin: str, base: Path) -> ClipItem | BadEntry:
    """A ClipItem from one manifest row (a string or a mapping), or why it is not one."""
    prompt = ""
    if isinstance(row, Unparsed):
        return BadEntry(origin, origin, f"not valid JSON ({row.message}): {row.line[:80]}")
    if isinstance(row, dict):
        keys = [k for k in CLIP_KEYS if row.get(k)]
        unknown = sorted(set(row) - {*CLIP_KEYS, "prompt", "id"})
        if unknown:
            return BadEntry(origin, origin, f"unknown field(s) {unknown} (expected one of {list(CLIP_KEYS)} and optional prompt)")
        if len(keys) != 1:
            return BadEntry(origin, origin, f"needs exactly one of {list(CLIP_KEYS)}, found {keys or 'none'}")
        prompt = row.get("prompt") or ""
        if not isinstance(prompt, str):
            return BadEntry(origin, origin, "prompt must be a string")
        row = row[keys[0]]
    if not isinstance(row, str) or not row.strip():
        return BadEntry(origin, origin, "the clip reference must be a non-empty string")
    ref = row.strip()
    if is_remote_ref(ref):
        return ClipItem(ref=ref, location=ref, prompt=prompt, origin=origin)
    local = Path(ref[len("file://"):] if ref.lower().startswith("file://") else ref).expanduser()
    location = local if local.is_absolute() else base / local
    return ClipItem(ref=ref, location=str(location.resolve()), prompt=prompt, origin=origin)
