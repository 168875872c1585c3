"""Every command's ``--help`` works (a walk over the command table and every subcommand), and
``reeljudge --version`` says the package's version."""

from __future__ import annotations

import argparse
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from reeljudge.cli import COMMANDS, build_parser, main
from support.paths import ROOT

SCRIPT = Path(sys.executable).parent / "reeljudge"


def command_paths(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command path under ``parser``: () for the top, then each subcommand, depth first; also
    every alias of a subcommand."""
    paths = [path]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                paths += command_paths(sub, (*path, name))
    return paths


def _parser(path: tuple[str, ...]) -> argparse.ArgumentParser:
    """The parser of the command at ``path``."""
    parser = build_parser()
    for name in path:
        parser = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[name]
    return parser


def _prog(path: tuple[str, ...]) -> str:
    """The usage line's program name for ``path`` (an alias shows the subcommand's own name)."""
    return _parser(path).prog


PATHS = command_paths(build_parser())


def test_the_walk_reaches_every_module_of_the_command_table():
    tops = {path[0] for path in PATHS if len(path) == 1}
    assert len(tops) >= len(COMMANDS) and {"ab", "batch", "gecko", "cache"} <= tops
    assert ("ab", "judge") in PATHS and ("batch", "submit") in PATHS
    assert len(PATHS) > 25


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "reeljudge")
def test_help_prints_usage_and_exits_0(path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([*path, "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: {_prog(path)}") and _prog(path).startswith(" ".join(("reeljudge", *path[:-1]))), out[:200]
    assert "options:" in out


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "reeljudge")
def test_every_argument_and_option_says_what_it_is(path):
    """A bare ``files`` or ``--port`` in the help leaves the user guessing what to give."""
    bare = [a.option_strings[0] if a.option_strings else a.dest for a in _parser(path)._actions
            if not isinstance(a, (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)) and not a.help]
    assert bare == [], f"reeljudge {' '.join(path)}: no help text for {bare}"


def test_version_and_help_through_the_installed_command():
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    shown = subprocess.run([str(SCRIPT), "--version"], capture_output=True, text=True, timeout=300)
    assert (shown.returncode, shown.stdout.strip()) == (0, f"reeljudge {version}"), shown.stderr
    helped = subprocess.run([str(SCRIPT), "--help"], capture_output=True, text=True, timeout=300)
    assert helped.returncode == 0 and "batch" in helped.stdout and helped.stderr == "", helped.stderr
