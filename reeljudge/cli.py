"""The ``reeljudge`` command: one subcommand per module listed in ``COMMANDS``.

Each listed module defines ``add_parser(subparsers)``, which adds its subcommand and sets ``func``
on the parser (``func(args) -> exit code``); a module listed in ``SUBCOMMANDS`` adds a subcommand
under another module's command, to the subcommands' action that module's ``add_parser`` returns
(so a command's own module need not import the layer above it). Modules are imported when the CLI starts, so they keep
their own heavy imports inside their functions. Every command runs through ``reeljudge.exits.run``: the one mapping of
an error to its exit code and its line on stderr (``reeljudge ab serve: <message>``); no command catches its own.
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

    from reeljudge.exits import help_table

    parser = argparse.ArgumentParser(prog="reeljudge", description="reeljudge: judges for video pipelines",
                                     epilog=help_table(), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"reeljudge {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for module in COMMANDS:
        nested = importlib.import_module(module).add_parser(sub)
        for child in SUBCOMMANDS.get(module, ()):
            importlib.import_module(child).add_parser(nested)
    _name_commands(parser)
    return parser


def _name_commands(parser: argparse.ArgumentParser) -> None:
    """Give every command's parser its full name (``reeljudge ab serve``) as the default ``command_name``, the
    name its errors are said under."""
    parser.set_defaults(command_name=parser.prog)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                _name_commands(child)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code (``reeljudge.exits``: 2 when the command could not run, with the reason on
    stderr)."""
    from reeljudge.exits import run

    args = build_parser().parse_args(argv)
    return run(args.command_name, args.func, args)


if __name__ == "__main__":
    sys.exit(main())
