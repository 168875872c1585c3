"""``reeljudge ab judge``: the A/B judge as one more rater over a study's pairs (the command; the
work is in ``reeljudge.ab_judge.batch``). Added under ``reeljudge ab`` by ``reeljudge.cli``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from reeljudge.ab.cli import study_arguments, workspace_of


def add_parser(ab_commands: Any) -> None:
    """Add ``judge`` to the ``reeljudge ab`` subcommands."""
    p = study_arguments(ab_commands.add_parser("judge",
                                               help="the A/B judge (Gemini) as one more rater: judge the study's "
                                                    "pairs, store its records"))
    p.add_argument("--config", type=Path, default=None,
                   help="a YAML file of judge options (the ab_judge assertion's config keys)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="one judge option, over --config (repeatable)")
    p.add_argument("--orders", type=int, choices=(1, 2), default=None, help="2: both orders (default); 1: once, cheaper")
    p.add_argument("--model", default=None, help="the Gemini model (default gemini-2.5-flash or $REELJUDGE_MODEL)")
    p.add_argument("--rater", default=None, help="the rater name its records carry (default: the model)")
    p.add_argument("--samples", nargs="+", default=None, metavar="SAMPLE_ID", help="only these samples")
    p.add_argument("--limit", type=int, default=None, help="judge at most this many samples")
    p.add_argument("--gold", action="store_true", help="judge the gold pairs too")
    p.add_argument("--workers", type=int, default=4, help="pairs judged at once (default 4)")
    p.set_defaults(func=cmd_judge)


def cmd_judge(args: argparse.Namespace) -> int:
    """Judge the study's pairs with the A/B judge and store its records; 1 when a pair was not judged."""
    from reeljudge.ab_judge.batch import judge_study

    config = _judge_config(args)
    report = judge_study(workspace_of(args), config, rater=args.rater, sample_ids=args.samples, limit=args.limit,
                         include_gold=args.gold, workers=args.workers,
                         progress=lambda line: print(line, file=sys.stderr, flush=True))
    print("\n".join(report.lines()))
    return 1 if report.not_judged else 0


def _judge_config(args: argparse.Namespace) -> dict[str, Any]:
    """Judge options from --config, then --set, then the shortcut flags."""
    import yaml

    from reeljudge.errors import BadInputError

    config: dict[str, Any] = {}
    if args.config is not None:
        try:
            loaded = yaml.safe_load(args.config.read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError) as error:
            raise BadInputError(f"--config {args.config}: cannot read ({error})") from None
        if not isinstance(loaded, dict):
            raise BadInputError(f"--config {args.config}: must be a mapping of option: value")
        config.update(loaded)
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise BadInputError(f"--set {item!r}: write KEY=VALUE")
        config[key.strip()] = yaml.safe_load(value) if value.strip() else None
    config.update({k: v for k, v in (("orders", args.orders), ("model", args.model)) if v is not None})
    return config
