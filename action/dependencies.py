"""The requirement lines of a project's own Python dependencies, for action/gate.sh's `dependencies` step.

Run with the interpreter reeljudge is installed in (Python 3.11 or newer: tomllib); the standard library only.

    python dependencies.py requirements.txt        the file itself (pip install -r reads it: -r, -c, options and all)
    python dependencies.py pyproject.toml          its [project] dependencies
    python dependencies.py pyproject.toml:GROUP    those and a [dependency-groups] group (include-group followed), or an
                                                   optional extra of that name
    python dependencies.py uv.lock                 not read here: gate.sh runs `uv export` (exit 3 says so)

Prints a requirements file's text (one requirement a line) on stdout; exits 2 with one sentence on stderr naming the
input and the problem.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

INPUT = "python-dependencies"


class Problem(Exception):
    """The input names something that cannot be read as dependencies."""


def group_lines(groups: dict, name: str, seen: tuple[str, ...] = ()) -> list[str]:
    """The requirements of dependency group ``name`` (PEP 735), its ``include-group`` entries expanded."""
    if name in seen:
        raise Problem(f"dependency group {name!r} includes itself ({' -> '.join((*seen, name))})")
    if name not in groups:
        raise Problem(f"there is no dependency group {name!r}")
    lines: list[str] = []
    for item in groups[name]:
        if isinstance(item, str):
            lines.append(item)
        elif isinstance(item, dict) and isinstance(item.get("include-group"), str):
            lines.extend(group_lines(groups, item["include-group"], (*seen, name)))
        else:
            raise Problem(f"dependency group {name!r} holds {item!r}, which is neither a requirement nor an include-group")
    return lines


def pyproject_lines(path: Path, group: str) -> list[str]:
    """[project] dependencies, and with ``group`` a dependency group or an optional extra of that name."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise Problem(f"{path} does not parse as TOML: {exc}") from None
    project = data.get("project", {})
    lines = [str(r) for r in project.get("dependencies", [])]
    if not group:
        return lines
    groups = data.get("dependency-groups", {})
    extras = project.get("optional-dependencies", {})
    if group in groups:
        return lines + group_lines(groups, group)
    if group in extras:
        return lines + [str(r) for r in extras[group]]
    known = sorted({*groups, *extras})
    raise Problem(f"{path} has no dependency group or optional extra {group!r}"
                  f" ({'its groups and extras: ' + ', '.join(known) if known else 'it declares none'})")


def requirement_text(given: str) -> str:
    """The requirements file text for the input's value (see the module's docstring)."""
    name, _, group = given.partition(":")
    path = Path(name)
    if not path.is_file():
        raise Problem(f"there is no file {name}")
    if path.name == "pyproject.toml":
        return "".join(f"{line}\n" for line in pyproject_lines(path, group))
    if group:
        raise Problem(f"{given}: only pyproject.toml takes a :group")
    return path.read_text(encoding="utf-8")


def main(argv: list[str]) -> int:
    """Print the requirement lines of ``argv[0]``; 2 on a problem, 3 for a uv.lock (gate.sh exports it with uv)."""
    if len(argv) != 1:
        print("usage: dependencies.py FILE[:GROUP]", file=sys.stderr)
        return 2
    if Path(argv[0]).name == "uv.lock":
        return 3
    try:
        sys.stdout.write(requirement_text(argv[0]))
    except Problem as exc:
        print(f"{INPUT}: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
