"""The ``reeljudge`` command: cache maintenance (``cache stats``, ``cache clear``) and more."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Callable

from reeljudge.cache import JudgeCache

_EXTRA_COMMANDS: dict[str, Callable[[argparse._SubParsersAction], None]] = {}


def register_command(name: str) -> Callable[[Callable[[argparse._SubParsersAction], None]], Callable[[argparse._SubParsersAction], None]]:
    """Decorator: a function that adds a subcommand parser (set ``func`` on it) to the CLI."""

    def wrap(fn: Callable[[argparse._SubParsersAction], None]) -> Callable[[argparse._SubParsersAction], None]:
        _EXTRA_COMMANDS[name] = fn
        return fn

    return wrap


def _cache_dir(arg: str | None) -> str:
    """The cache folder: ``--dir``, else REELJUDGE_CACHE_DIR, else the default."""
    return arg or os.environ.get("REELJUDGE_CACHE_DIR") or ".reeljudge/cache"


def _cache_stats(args: argparse.Namespace) -> int:
    stats = JudgeCache(_cache_dir(args.dir)).stats()
    print(f"cache: {_cache_dir(args.dir)}")
    print(f"entries: {stats.entries}")
    print(f"bytes: {stats.bytes}")
    for kind, count in sorted(stats.by_kind.items()):
        print(f"  {kind}: {count}")
    if stats.orphaned_temp_files:
        print(f"orphaned temp files (from interrupted writes): {stats.orphaned_temp_files}")
    if stats.unreadable:
        print(f"unreadable entries: {stats.unreadable}")
    return 0


def _cache_clear(args: argparse.Namespace) -> int:
    removed = JudgeCache(_cache_dir(args.dir)).clear()
    print(f"removed {removed} entries from {_cache_dir(args.dir)}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    parser = argparse.ArgumentParser(prog="reeljudge", description="reeljudge: judges for video pipelines")
    sub = parser.add_subparsers(dest="command", required=True)
    cache = sub.add_parser("cache", help="inspect or clear the judge cache")
    cache_sub = cache.add_subparsers(dest="action", required=True)
    for name, func, text in (("stats", _cache_stats, "count entries"), ("clear", _cache_clear, "delete all entries")):
        p = cache_sub.add_parser(name, help=text)
        p.add_argument("--dir", help="cache folder (default: REELJUDGE_CACHE_DIR or .reeljudge/cache)")
        p.set_defaults(func=func)
    for add in _EXTRA_COMMANDS.values():
        add(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    _load_plugins()
    args = build_parser().parse_args(argv)
    return int(args.func(args))


def _load_plugins() -> None:
    """Import the modules that register further subcommands (e.g. ``gecko``), if present."""
    import importlib

    for module in ("reeljudge.gecko.cli",):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError:
            pass


if __name__ == "__main__":
    # Run the imported module's main, so subcommands register into the registry it reads.
    from reeljudge.cli import main as _main

    sys.exit(_main())
