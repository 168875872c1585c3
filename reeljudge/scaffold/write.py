"""Putting a planned project on disk without ever overwriting a file the user has, unless forced.

A file that is missing is written; one that already holds the planned text is left alone; one that
differs is kept (the user's edits win) unless ``force``. ``.gitignore`` is never replaced: the lines
it lacks are appended. The example clips are rendered only where no file is. Running twice changes
nothing the second time, and the report says so. Files get the mode the user's umask gives a new
file (as an editor or ``cp`` would), not the private mode of a temporary file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from reeljudge.atomic import atomic_path


@dataclass
class WriteReport:
    """What happened to each file (paths relative to the project folder)."""

    created: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # differs from the template; not overwritten without force
    gitignore_added: int = 0

    @property
    def changed(self) -> bool:
        """Whether anything on disk changed."""
        return bool(self.created or self.replaced or self.gitignore_added)


def new_file_mode() -> int:
    """The mode a new file gets under the process's umask (0o644 under the usual 022)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def _put(target: Path, data: bytes) -> None:
    """Write ``target`` atomically with the umask's mode."""
    with atomic_path(target) as tmp:
        tmp.write_bytes(data)
        tmp.chmod(new_file_mode())


def write_project(folder: Path, files: dict[str, str], gitignore: list[str], *, force: bool = False,
                  clips: dict[str, str] | None = None) -> WriteReport:
    """Write ``files`` under ``folder`` by the no-overwrite rule, render the missing example ``clips``
    ({path: reeljudge.synth fixture}) and merge ``gitignore`` into its .gitignore."""
    report = WriteReport()
    for relative, text in files.items():
        target = folder / relative
        current = target.read_text(encoding="utf-8") if target.is_file() else None
        if current == text:
            report.unchanged.append(relative)
        elif current is not None and not force:
            report.kept.append(relative)
        else:
            _put(target, text.encode("utf-8"))
            (report.replaced if current is not None else report.created).append(relative)
    for relative, fixture in (clips or {}).items():
        if (folder / relative).exists():
            report.unchanged.append(relative)
            continue
        from reeljudge.synth.clips import FIXTURES, make_clip

        with atomic_path(folder / relative, suffix=".mp4") as tmp:
            make_clip(tmp, FIXTURES[fixture].spec)
            tmp.chmod(new_file_mode())
        report.created.append(relative)
    report.gitignore_added = merge_gitignore(folder / ".gitignore", gitignore)
    return report


def merge_gitignore(path: Path, lines: list[str]) -> int:
    """Append the pattern lines ``path`` lacks (with their comments); how many patterns were added."""
    current = path.read_text(encoding="utf-8") if path.is_file() else ""
    present = {line.strip() for line in current.splitlines()}
    missing = [line for line in lines if line.strip() and not line.startswith("#") and line.strip() not in present]
    if not missing:
        return 0
    block = [line for line in lines if line.startswith("#") or line in missing]
    text = (current + ("\n" if current and not current.endswith("\n") else "") + ("\n" if current else "")
            + "\n".join(block) + "\n")
    _put(path, text.encode("utf-8"))
    return len(missing)
