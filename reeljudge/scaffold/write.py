"""Putting a planned project on disk without ever overwriting a file the user has, unless forced.

A file that is missing is written; one that already holds the planned text is left alone; one that
differs is kept (the user's edits win) unless ``force``. ``.gitignore`` is never replaced: the lines
it lacks are appended. Running twice changes nothing the second time, and the report says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from reeljudge.atomic import write_bytes


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


def write_project(folder: Path, files: dict[str, str], gitignore: list[str], *, force: bool = False) -> WriteReport:
    """Write ``files`` under ``folder`` by the no-overwrite rule, and merge ``gitignore`` into its .gitignore."""
    report = WriteReport()
    for relative, text in files.items():
        target = folder / relative
        current = target.read_text(encoding="utf-8") if target.is_file() else None
        if current == text:
            report.unchanged.append(relative)
        elif current is not None and not force:
            report.kept.append(relative)
        else:
            write_bytes(target, text.encode("utf-8"))
            (report.replaced if current is not None else report.created).append(relative)
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
    text = current + ("\n" if current and not current.endswith("\n") else "") + ("\n" if current else "") + "\n".join(block) + "\n"
    write_bytes(path, text.encode("utf-8"))
    return len(missing)
