"""``reeljudge ab``: import pairs, add gold pairs, invite raters, serve, judge with a model, report, export."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from reeljudge.errors import BadInputError
from reeljudge.exits import FAILED, error_line


def add_parser(subparsers: Any) -> Any:
    """Add ``reeljudge ab`` and its subcommands; the subcommands' action, for ``reeljudge ab judge``
    (added by ``reeljudge.ab_judge.cli``, see ``reeljudge.cli.SUBCOMMANDS``)."""
    ab = subparsers.add_parser("ab",
                               help="A/B rating: import pairs, serve the rating page, judge with a model, report "
                                    "agreement and rankings")
    ab.set_defaults(func=lambda args: (ab.print_help(), 2)[1])
    sub = ab.add_subparsers(dest="ab_command")
    common = study_arguments

    p = common(sub.add_parser("import", help="import pairs from promptfoo results (.json) or a manifest (.yaml/.yml/.csv)"))
    p.add_argument("files", nargs="+", type=Path, help="promptfoo result files (.json, from promptfoo eval -o) or manifests "
                   "(.yaml/.yml/.csv: prompt, clip_a, clip_b, optional system_a, system_b, family, id, source)")
    p.add_argument("--family", default="text-to-video", help="task family when the source does not say (default text-to-video)")
    p.add_argument("--systems", nargs=2, metavar=("SYSTEM_1", "SYSTEM_2"), help="promptfoo: only this pair of provider labels")
    p.add_argument("--protocol", default="ab-v1", help="protocol version for a new study (default ab-v1)")
    p.add_argument("--promptfoo-dir", type=Path, help="promptfoo's config folder holding its blob and media stores "
                   "(default: $PROMPTFOO_CONFIG_DIR, else ~/.promptfoo)")
    p.add_argument("--normalise", action="store_true",
                   help="re-encode every clip (and gold clip) to one profile, H.264 High CRF 18, so that no codec "
                   "setting tells the systems apart; costs a full decode and encode of each clip (docs/ab.md, 'Blinding "
                   "in the bytes'). Without it, clips keep their packets and lose their names. Fixed by a study's first import")
    p.set_defaults(func=cmd_import)

    p = common(sub.add_parser("gold", help="add gold pairs (clean clip vs the same clip with an injected fault)"))
    p.add_argument("--count", type=int, default=4, help="gold pairs to add (default 4)")
    p.add_argument("--frames", type=int, default=72,
                   help="frames per gold clip (24 fps) in a study with no tasks yet (else each side's length as a study task's)")
    p.set_defaults(func=cmd_gold)

    p = common(sub.add_parser("invite", help="add raters (or re-issue their links) and print their personal links"))
    p.add_argument("raters", nargs="+",
                   help="rater names: letters, digits and _ . : @ - (1-64 characters); an existing rater gets a new link, the "
                        "old one stops working")
    p.add_argument("--base-url", default=None, help="the address raters open (default http://127.0.0.1:8765)")
    p.set_defaults(func=cmd_invite)

    p = common(sub.add_parser("serve", help="run the rating server"))
    p.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8765, help="port to listen on (default 8765)")
    p.add_argument("--min-raters", type=int, default=2, help="raters per sample (default 2)")
    p.add_argument("--max-raters", type=int, default=3, help="raters per sample after a disagreement (default 3)")
    p.add_argument("--gold-every", type=int, default=5, help="a gold pair every n tasks (0: never)")
    p.add_argument("--header-timeout", type=float, default=10.0,
                   help="seconds a connection may take to send a request head (default 10)")
    p.add_argument("--body-timeout", type=float, default=30.0, help="seconds a request body may take after its head (default 30)")
    p.add_argument("--keep-alive", type=float, default=5.0, help="seconds an idle keep-alive connection stays open (default 5)")
    p.add_argument("--max-connections", type=int, default=None,
                   help="open connections at most (default: half the open-files limit left after 128; 0: no cap of its own). "
                        "Never more than the open-files limit keeps: a higher one is lowered to it, said at start-up")
    p.add_argument("--max-per-client", type=int, default=64,
                   help="open connections per client address that carried no valid invite token yet (default 64; 0: no cap, "
                        "e.g. behind a reverse proxy); raters are told apart by their token")
    p.add_argument("--write-timeout", type=float, default=15.0,
                   help="seconds a response may go without the client taking any of its bytes before the connection is "
                        "closed (default 15)")
    p.add_argument("--max-pipelined", type=int, default=8,
                   help="requests a connection may queue behind the one being answered; the last is answered, then it "
                        "is closed (default 8)")
    p.add_argument("--rate-per-token", type=float, default=20.0,
                   help="requests a second per invite token, sustained (default 20; 0: no limit)")
    p.add_argument("--burst-per-token", type=int, default=100, help="requests per invite token in a burst (default 100)")
    p.add_argument("--active-per-token", type=int, default=16,
                   help="requests per invite token in progress at once (default 16; 0: no limit)")
    p.add_argument("--rate-per-address", type=float, default=20.0,
                   help="requests a second per client address without a valid token: static files, unknown links, admin "
                        "(default 20; 0: no limit, e.g. behind a reverse proxy that limits them)")
    p.add_argument("--burst-per-address", type=int, default=100,
                   help="requests per client address without a valid token in a burst (default 100)")
    p.set_defaults(func=cmd_serve)

    p = common(sub.add_parser("report", help="write report.html and report.json"))
    p.add_argument("--out", type=Path, default=None, help="output folder (default <data>/report)")
    p.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1000)")
    p.add_argument("--first-n", type=int, default=2, help="records per sample used for agreement (default 2)")
    p.set_defaults(func=cmd_report)

    p = common(sub.add_parser("export", help="write the judgement records as JSONL or CSV"))
    p.add_argument("--format", choices=("jsonl", "csv"), default="jsonl", help="jsonl (default) or csv")
    p.add_argument("-o", "--output", type=Path, default=None, help="file to write (default: standard output)")
    p.set_defaults(func=cmd_export)

    p = common(sub.add_parser("status", help="progress, third-rater queue and gold accuracy as JSON"))
    p.set_defaults(func=cmd_status)
    return sub


def study_arguments(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add the options every ``reeljudge ab`` subcommand takes: where the study is kept."""
    p.add_argument("--data", type=Path, default=None, help="the study folder (default $REELJUDGE_AB_DIR or .reeljudge/ab)")
    p.add_argument(
        "--database", default=None, metavar="URL",
        help="keep the store in this PostgreSQL database (postgresql://…; default $REELJUDGE_AB_DATABASE, else <data>/ab.sqlite)",
    )
    return p


def workspace_of(args: argparse.Namespace, create: bool = False) -> Any:
    """The study ``--data``/``--database`` name; unless ``create``, an error when it holds no study."""
    from reeljudge.ab.study.workspace import Workspace, default_dir, open_study

    root = args.data or default_dir()
    return Workspace(root, database=args.database) if create else open_study(root, database=args.database)


def _fail(message: str) -> int:
    """A file ``ab import`` could not import, said on stderr in the one form; exit 1 (the other files are imported)."""
    print(error_line("reeljudge ab import", message), file=sys.stderr)
    return FAILED


def cmd_import(args: argparse.Namespace) -> int:
    """Import every file; all or nothing per file."""
    from reeljudge.ab.store.imports import build_samples, read_manifest, read_promptfoo
    from reeljudge.errors import ReelJudgeError

    ws = workspace_of(args, create=True)
    status = 0
    for path in args.files:
        try:
            protocol = ws.fix_protocol(args.protocol)
            blinding = ws.fix_blinding("normalise" if args.normalise else "strip")
            if path.suffix.lower() == ".json":
                specs = read_promptfoo(path, family=args.family, systems=tuple(args.systems) if args.systems else None,
                                       promptfoo_dir=args.promptfoo_dir)
            elif path.suffix.lower() in (".yaml", ".yml", ".csv"):
                specs = read_manifest(path, args.family)
            else:
                raise ReelJudgeError(f"{path}: unknown file type (want promptfoo results .json, or a .yaml/.yml/.csv manifest)")
            result = build_samples(specs, protocol, ws.clips, blinding)
            added, existing = ws.store.add_samples(result.samples, list(result.clips.values()))
        except ReelJudgeError as error:
            status = _fail(f"{path}: {error.message}")
            continue
        print(f"{path}: {added} samples added, {existing} already there, {len(result.clips)} clips")
    return status


def cmd_gold(args: argparse.Namespace) -> int:
    """Render gold pairs and add them."""
    from reeljudge.ab.study.gold import make_gold, study_templates

    if args.count < 1 or args.frames < 1:
        raise BadInputError(f"--count and --frames must be at least 1, got {args.count} and {args.frames}")
    ws = workspace_of(args, create=True)
    ws.fix_protocol(ws.store.meta("protocol") or "ab-v1")
    samples = ws.store.samples()
    templates = study_templates(samples, ws.store.clip)  # each gold pair copies one of the study's tasks
    gold = [s.prompt for s in samples if s.kind == "gold"]
    samples, clips = make_gold(ws.clips, args.count, frames=args.frames, templates=templates,
                               blinding=ws.blinding, taken=gold, first=len(gold))
    added, existing = ws.store.add_samples(samples, clips)
    print(f"gold: {added} gold pairs added, {existing} already there")
    return 0


def cmd_invite(args: argparse.Namespace) -> int:
    """Create or re-issue invite links."""
    from reeljudge.ab.store.records import RATER_ID
    from reeljudge.ab.study.workspace import new_invite_token

    ws = workspace_of(args)
    base = (args.base_url or ws.store.meta("base_url") or "http://127.0.0.1:8765").rstrip("/")
    bad = [r for r in args.raters if not RATER_ID.match(r) or r in ("tie",)]
    if bad:
        raise BadInputError(f"rater names may use letters, digits and _ . : @ - (1-64 characters): {', '.join(bad)}")
    for rater in args.raters:
        token = new_invite_token()
        ws.store.add_rater(rater, "human", token)
        print(f"{rater}: {base}/r/{token}")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the server until interrupted."""
    from reeljudge.extras import require

    require("reeljudge ab serve", "uvicorn", "starlette")
    from reeljudge.ab.study.assignment import QCOptions
    from reeljudge.ab.transport.fair_share import RateLimits
    from reeljudge.ab.transport.connection import run
    from reeljudge.ab.transport.limits import ConnectionLimits, file_budget
    from reeljudge.ab.page.server import ServeOptions, create_app
    from reeljudge.environment import study_environment

    ws = workspace_of(args)
    if args.min_raters < 2 or args.max_raters < args.min_raters:
        raise BadInputError("--min-raters must be at least 2 and --max-raters at least --min-raters")
    if min(args.header_timeout, args.body_timeout, args.keep_alive, args.write_timeout) <= 0:
        raise BadInputError("--header-timeout, --body-timeout, --keep-alive and --write-timeout must be positive")
    if min(args.max_connections or 0, args.max_per_client, args.max_pipelined, args.rate_per_token, args.rate_per_address,
           args.active_per_token) < 0:
        raise BadInputError("--max-connections, --max-per-client, --max-pipelined, --rate-per-token, --rate-per-address and "
                            "--active-per-token must be at least 0")
    if min(args.burst_per_token, args.burst_per_address) < 1:
        raise BadInputError("--burst-per-token and --burst-per-address must be at least 1")
    budget = file_budget(args.max_connections, raise_to_hard=True)  # a cap the open-files limit cannot keep is lowered
    limits = ConnectionLimits(args.header_timeout, args.body_timeout, args.keep_alive, budget.cap, args.max_per_client,
                              args.write_timeout, args.max_pipelined)
    rates = RateLimits(args.rate_per_token, args.burst_per_token, args.rate_per_address,
                       args.burst_per_address, args.active_per_token)
    options = ServeOptions(args.host, args.port, QCOptions(args.min_raters, args.max_raters, args.gold_every),
                           limits=limits, rates=rates)
    app = create_app(ws, options)
    print(f"reeljudge ab: serving {len(ws.store.samples())} samples on http://{args.host}:{args.port}/", flush=True)
    print(f"admin dashboard: http://{args.host}:{args.port}/admin?token={ws.admin_token()}", flush=True)
    print(budget.describe(), file=sys.stderr if budget.lowered else sys.stdout, flush=True)
    run(app, args.host, args.port, limits, study_environment().ab_log)
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    """Write report.json and report.html."""
    from reeljudge.ab.analysis.report import ReportOptions, build_report
    from reeljudge.ab.analysis.report_html import render

    ws = workspace_of(args)
    out = args.out or ws.root / "report"
    out.mkdir(parents=True, exist_ok=True)
    report = build_report(ws.store.judgements(), ws.store.samples(), ws.protocol,
                          ReportOptions(first_n=args.first_n, n_resamples=args.resamples))
    (out / "report.json").write_text(json.dumps(report, indent=1, ensure_ascii=False), encoding="utf-8")

    def href(sha: str) -> str:
        clip = ws.store.clip(sha)
        return os.path.relpath(ws.clips.path(clip), out) if clip else sha

    (out / "report.html").write_text(render(report, href), encoding="utf-8")
    print(f"{out / 'report.html'}\n{out / 'report.json'}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """Write the records."""
    from reeljudge.ab.store.exports import to_csv, to_jsonl

    ws = workspace_of(args)
    records = ws.store.judgements()
    text = to_jsonl(records) if args.format == "jsonl" else to_csv(records, ws.protocol)
    if args.output:
        args.output.write_text(text, encoding="utf-8")
        print(f"{args.output}: {len(records)} records")
    else:
        sys.stdout.write(text)
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    """Print the admin status JSON."""
    from reeljudge.ab.page.admin import _Admin
    from reeljudge.ab.study.assignment import QCOptions
    from reeljudge.ab.transport.loop_lag import read_figure

    ws = workspace_of(args)
    status = {**_Admin(ws, QCOptions()).status(), "server": read_figure(ws.root)}  # the loop lag a server last wrote
    print(json.dumps(status, indent=1))
    return 0
