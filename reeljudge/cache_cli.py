"""``reeljudge cache stats|clear``: inspect or empty the judge cache."""

from __future__ import annotations

import argparse

from reeljudge.cache import JudgeCache, cache_folder


def _stats(args: argparse.Namespace) -> int:
    root = cache_folder(args.dir, "--dir")
    stats = JudgeCache(root).stats()
    print(f"cache: {root}")
    print(f"entries: {stats.entries}")
    print(f"bytes: {stats.bytes}")
    for kind, count in sorted(stats.by_kind.items()):
        print(f"  {kind}: {count}")
    if stats.orphaned_temp_files:
        print(f"orphaned temp files (from interrupted writes): {stats.orphaned_temp_files}")
    if stats.unreadable:
        print(f"unreadable entries: {stats.unreadable}")
    if stats.download_files:
        print(f"downloaded and decoded media: {stats.download_files} files, {stats.download_bytes} bytes "
              f"(kept by 'clear'; 'clear --downloads' removes them too)")
    return 0


def _clear(args: argparse.Namespace) -> int:
    root = cache_folder(args.dir, "--dir")
    cache = JudgeCache(root)
    media = cache.download_usage()[0] if args.downloads else 0
    removed = cache.clear(downloads=args.downloads)
    print(f"removed {removed} entries" + (f" and {media} downloaded media files" if args.downloads else "") + f" from {root}")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    """``reeljudge cache stats`` and ``reeljudge cache clear``."""
    cache = sub.add_parser("cache", help="inspect or clear the judge cache")
    actions = cache.add_subparsers(dest="action", required=True)
    for name, func, text in (("stats", _stats, "count entries and downloaded media"), ("clear", _clear, "delete all entries")):
        p = actions.add_parser(name, help=text)
        p.add_argument("--dir", help="cache folder (default: REELJUDGE_CACHE_DIR or .reeljudge/cache)")
        if name == "clear":
            p.add_argument("--downloads", action="store_true",
                           help="also delete the downloaded and decoded media (URLs, data: URIs, file:// vars), "
                                "fetched again when needed")
        p.set_defaults(func=func)
