"""The ``reeljudge`` command: one subcommand per module listed in ``COMMANDS``.

Each listed module defines ``add_parser(subparsers)``, which adds its subcommand and sets ``func``
on the parser (``func(args) -> exit code``); a module listed in ``SUBCOMMANDS`` adds a subcommand
under another module's command, to the subcommands' action that module's ``add_parser`` returns
(so a command's own module need not import the layer above it). Modules are imported when the CLI starts, so they keep
their own heavy imports inside their functions.
"""

from __future__ import annotations

import argparse
import importlib
import sys

#: the modules that add a subcommand, in the order ``--help`` lists them
COMMANDS: tuple[str, ...] = (
    "reeljudge.cache_cli",
    "reeljudge.gecko.cli",
    "reeljudge.ab.cli",
    "reeljudge.library.cli",
    "reeljudge.filmability.bulk_cli",
    "reeljudge.gates.cli",
    "reeljudge.calibration.cli",
    "reeljudge.batch.cli",
    "reeljudge.scaffold.cli",
)

#: modules that add a subcommand under another module's command: ``reeljudge ab judge``
SUBCOMMANDS: dict[str, tuple[str, ...]] = {"reeljudge.ab.cli": ("reeljudge.ab_judge.cli",)}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    from reeljudge import __version__

    parser = argparse.ArgumentParser(prog="reeljudge", description="reeljudge: judges for video pipelines")
    parser.add_argument("--version", action="version", version=f"reeljudge {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for module in COMMANDS:
        nested = importlib.import_module(module).add_parser(sub)
        for child in SUBCOMMANDS.get(module, ()):
            importlib.import_module(child).add_parser(nested)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code (2 when the input cannot be used, with the reason on stderr)."""
    from reeljudge.errors import ReelJudgeError

    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except ReelJudgeError as error:
        print(f"reeljudge {args.command}: {error.message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
