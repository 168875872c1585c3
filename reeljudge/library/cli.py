"""``reeljudge probes SOURCE``: the offline probes over a folder, a clip list or a manifest, to JSONL.

Runs locally in a process pool (``--workers``, default one per core) or on a Dask cluster
(``--engine dask``: a local cluster of worker processes, or an existing one with ``--scheduler``).
Resumable: re-running with the same output skips every clip already there with the same content,
options, probes code and prompt. Exit code 0 when every clip was probed (faults found or not),
1 when some could not be probed (listed), 2 for bad arguments or options.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from reeljudge.errors import BadInputError

DEFAULT_OUTPUT = "probes.jsonl"


def add_parser(sub: argparse._SubParsersAction) -> None:
    """``reeljudge probes SOURCE [-o OUT] [--engine local|dask] …``."""
    p = sub.add_parser("probes", help="run the offline video probes over a clip library (folder or manifest) to JSONL")
    p.add_argument("source", help="a folder of clips, one clip, or a manifest (.txt/.jsonl/.csv/.yaml) of paths and http(s) URLs")
    p.add_argument("-o", "--output", default=DEFAULT_OUTPUT,
                   help=f"JSONL results, appended and resumed (default {DEFAULT_OUTPUT})")
    p.add_argument("--engine", choices=("local", "dask"), default=None, help="local process pool (default) or Dask distributed")
    p.add_argument("-j", "--workers", type=int, default=None,
                   help="worker processes (default: one per core; dask: local cluster size)")
    p.add_argument("--scheduler", help="address of a running Dask scheduler (implies --engine dask), e.g. tcp://10.0.0.5:8786")
    p.add_argument("--options", help="YAML/JSON file of probe options (the assertion's config keys, e.g. max_seconds)")
    p.add_argument("--probes", help="comma-separated probes to run (default: all)")
    p.add_argument("--cache-dir", help="where downloaded clips are kept (default: <REELJUDGE_CACHE_DIR>/downloads)")
    p.add_argument("--retry-errors", action="store_true",
                   help="probe again the clips recorded as errors (their error lines are dropped)")
    p.add_argument("--max-attempts", type=int, default=3, help="tries per clip when its worker process dies (default 3)")
    p.add_argument("--download-timeout", type=float, default=60.0,
                   help="seconds without data before a download attempt fails (default 60)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=main)


def load_options(path: str | None, probes: str | None) -> Any:
    """Probe options from an options file and ``--probes``, through the shared options loader."""
    from reeljudge.options import load_one
    from reeljudge.probes.options import ProbeOptions

    config: dict[str, Any] = {}
    if path:
        import yaml

        try:
            loaded = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as error:
            raise BadInputError(f"--options {path}: cannot be read ({error})") from None
        if not isinstance(loaded, dict):
            raise BadInputError(f"--options {path}: expected a mapping of probe options")
        config.update(loaded)
    if probes:
        config["probes"] = probes
    return load_one(config, ProbeOptions, owner=f"reeljudge probes{' --options ' + path if path else ''}")


def make_engine(args: argparse.Namespace) -> Any:
    """The engine the arguments ask for."""
    from reeljudge.library.engines import LocalEngine

    if args.workers is not None and args.workers < 1:
        raise BadInputError(f"--workers must be at least 1, got {args.workers}")
    if args.max_attempts < 1:
        raise BadInputError(f"--max-attempts must be at least 1, got {args.max_attempts}")
    if args.engine == "local" and args.scheduler:
        raise BadInputError("--scheduler needs --engine dask (it is the address of a Dask scheduler)")
    if args.scheduler and args.workers is not None:
        raise BadInputError("--workers sizes a local pool or local cluster; a cluster given by --scheduler has its own workers")
    if args.engine == "dask" or args.scheduler:
        try:
            from reeljudge.library.dask_engine import DaskEngine
        except ImportError as error:
            raise BadInputError(f"--engine dask needs Dask distributed (pip install 'reeljudge[cluster]'): {error}") from None
        return DaskEngine(scheduler=args.scheduler, workers=args.workers, max_attempts=args.max_attempts)
    return LocalEngine(workers=args.workers, max_attempts=args.max_attempts)


def main(args: argparse.Namespace) -> int:
    """Run the probes over the library and print the summary; the exit code says whether every clip was probed
    (bad arguments or options: BadInputError, exit 2 by ``reeljudge.exits``)."""
    from reeljudge.cache import default_cache_dir, downloads_dir
    from reeljudge.media.download import DOWNLOAD_POLICY
    from reeljudge.library.jsonl import open_results
    from reeljudge.library.manifest import read_library
    from reeljudge.library.probe_library import probe_library

    options = load_options(args.options, args.probes)
    engine = make_engine(args)
    items, bad, library = read_library(args.source)
    cache_dir = args.cache_dir or str(downloads_dir(default_cache_dir()))
    with open_results(args.output) as out:
        if out.repaired_bytes:
            print(f"{args.output}: cut off a torn last line ({out.repaired_bytes} bytes) left by an interrupted run",
                  file=sys.stderr)
        summary, stats = probe_library(
            items, bad, options, out, engine,
            cache_dir=cache_dir, retry_errors=args.retry_errors, progress=not args.no_progress,
            download_policy=replace(DOWNLOAD_POLICY, timeout_s=args.download_timeout),
        )
    from reeljudge.library.summary import report_lines

    print("\n".join(report_lines(summary, stats, library)))
    print(f"results: {args.output}")
    return 0 if summary.ok else 1
