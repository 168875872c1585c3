"""``reeljudge init [DIR]``: scaffold a promptfoo project that uses reeljudge's judges."""

from __future__ import annotations

import argparse
from pathlib import Path

from reeljudge.scaffold.project import (AB_JUDGES, GATE_CHOICES, JUDGES, InitOptions, config_name, gate_suites, gitignore_lines,
                                        plan_clips, plan_project)
from reeljudge.scaffold.write import WriteReport, write_project
from reeljudge.scaffold.project import detected_dependencies


def _options(args: argparse.Namespace) -> InitOptions:
    judges = tuple(j.strip() for j in args.judges.split(",") if j.strip())
    return InitOptions(judges=judges, narration_var=args.narration_var, prompt_var=args.prompt_var, video_var=args.video_var,
                       reference_var=args.reference_var, python_entries=args.python_entries,
                       gate=args.gate, ab_judge=args.ab_judge, python_dependencies=detected_dependencies(Path(args.dir)))


def next_commands(options: InitOptions) -> list[str]:
    """The commands a user runs next, as the README gives them: install the wheel and the npm tarball built
    from the reeljudge repository (not yet published), then one eval per judge, telemetry off."""
    from importlib.metadata import version

    __version__ = version("reeljudge")  # the installed release: the wheel and tarball names the README builds
    python = (f"python3 -m venv .venv && .venv/bin/pip install ./reeljudge-{__version__}-py3-none-any.whl"
              "   # the wheel built from the reeljudge repository (README)")
    npm = ("npm install --save-dev promptfoo"
           + ("" if options.python_entries else f" ./reeljudge-{__version__}.tgz   # and its npm pack tarball"))
    env = ("export PROMPTFOO_PYTHON=$PWD/.venv/bin/python PROMPTFOO_DISABLE_TELEMETRY=1"
           "   # the Python that has reeljudge; promptfoo's telemetry off")
    runs = [f"npx promptfoo eval -c {config_name(j)}" for j in options.judges]
    view = ("npx promptfoo view --yes   # the web viewer: promptfoo has no host option, it listens on every interface"
            if options.python_entries else
            'NODE_OPTIONS="--require ./node_modules/reeljudge/loopback.cjs" npx promptfoo view --yes   # the web '
            'viewer, on 127.0.0.1 only')
    return [python, npm, env, *runs, view]


def describe_gate(options: InitOptions) -> str:
    """One line: which suites the pull-request gate runs, with and without a key."""
    keyless, keyed = gate_suites(options)
    if not keyless and not keyed:
        return "gate: no suites (no workflows written)"
    line = f"gate: {', '.join(keyless) or 'no suite'} on every pull request (no key needed)"
    if keyed:
        line += f"; {', '.join(keyed)} when the repository secret GEMINI_API_KEY is set, else reported \"not run: no key\""
    return line


def describe(report: WriteReport) -> list[str]:
    """The report as lines for the terminal."""
    lines = [f"  {word} {path}" for word, paths in (("created", report.created), ("replaced", report.replaced)) for path in paths]
    lines += [f"  kept {path} (it differs from the template; --force replaces it)" for path in report.kept]
    if report.gitignore_added:
        lines.append(f"  .gitignore: added {report.gitignore_added} lines")
    if not report.changed:
        lines.insert(0, "nothing changed: every file is already there"
                     + (" (some kept as you edited them)" if report.kept else ""))
    return lines


def _init(args: argparse.Namespace) -> int:
    options = _options(args)
    folder = Path(args.dir)
    report = write_project(folder, plan_project(options), gitignore_lines(), force=args.force, clips=plan_clips(options))
    print(f"reeljudge init {folder}:")
    print("\n".join(describe(report)))
    print(describe_gate(options))
    if report.changed:
        print("\nnext:\n" + "\n".join(f"  {command}" for command in next_commands(options)))
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    """``reeljudge init [DIR] [--judges ...] [--python-entries] [--force]``."""
    p = sub.add_parser("init", help="scaffold a promptfoo project that uses reeljudge (never overwrites without --force)")
    p.add_argument("dir", nargs="?", default=".", help="the project folder (default: the current folder)")
    p.add_argument("--judges", default=",".join(JUDGES), help=f"comma-separated judges (default: {','.join(JUDGES)})")
    p.add_argument("--narration-var", default="narration", help="filmability: the var holding the narration")
    p.add_argument("--prompt-var", default="prompt", help="probes, gecko, ab: the var holding the generation prompt")
    p.add_argument("--video-var", default="video", help="probes, gecko, ab: the var naming the clip")
    p.add_argument("--reference-var", default="reference", help="ab: the var naming the reference clip")
    p.add_argument("--python-entries", action="store_true",
                   help="write three-line Python entry files (type: python) instead of npm package references")
    p.add_argument("--gate", default="keyless",
                   help="the suites the pull-request gate runs: keyless (default: those that judge without a key: "
                        "filmability with the offline judge, probes, ab with --ab-judge probes), all (Gemini suites too, "
                        "run when the secret GEMINI_API_KEY is set), none (no workflows), or a comma-separated list of "
                        "judges; one of "
                        f"{', '.join(GATE_CHOICES)} or judges")
    p.add_argument("--ab-judge", default="probes", choices=AB_JUDGES,
                   help="the A/B starter's judge: probes (offline, default) or gemini (every dimension; needs GEMINI_API_KEY)")
    p.add_argument("--force", action="store_true", help="replace files that differ from the templates")
    p.set_defaults(func=_init)
