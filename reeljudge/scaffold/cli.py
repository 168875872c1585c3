"""``reeljudge init [DIR]``: scaffold a promptfoo project that uses reeljudge's judges."""

from __future__ import annotations

import argparse
from pathlib import Path

from reeljudge.scaffold.project import (AB_JUDGES, GATE_CHOICES, JUDGES, WORKFLOW_FILE, InitOptions, config_name, gate_suites,
                                        gitignore_lines, needs_key, plan_clips, plan_project)
from reeljudge.scaffold.write import WriteReport, write_project
from reeljudge.scaffold.project import detected_dependencies


def _options(args: argparse.Namespace) -> InitOptions:
    judges = tuple(j.strip() for j in args.judges.split(",") if j.strip())
    return InitOptions(judges=judges, narration_var=args.narration_var, prompt_var=args.prompt_var, video_var=args.video_var,
                       reference_var=args.reference_var, python_entries=args.python_entries,
                       gate=args.gate, ab_judge=args.ab_judge, python_dependencies=detected_dependencies(Path(args.dir)))


#: promptfoo as the project installed it: one process (its PID is the viewer's), no npm in between (npx asks the npm
#: registry whether npm itself is out of date, once a day)
PROMPTFOO = "./node_modules/.bin/promptfoo"


def next_commands(options: InitOptions) -> list[str]:
    """The commands a user runs next, as the README gives them: install the wheel and the npm tarball built
    from the reeljudge repository (not yet published), then one eval per judge and the viewer, with promptfoo's
    telemetry and update check off and (npm package) the preload that refuses what promptfoo sends anyway."""
    from importlib.metadata import version

    __version__ = version("reeljudge")  # the installed release: the wheel and tarball names the README builds
    python = (f"python3 -m venv .venv && .venv/bin/pip install ./reeljudge-{__version__}-py3-none-any.whl"
              "   # the wheel built from the reeljudge repository (README)")
    npm = ("npm install --save-dev promptfoo"
           + ("" if options.python_entries else f" ./reeljudge-{__version__}.tgz   # and its npm pack tarball"))
    env = "export PROMPTFOO_PYTHON=$PWD/.venv/bin/python PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1"
    env += ("   # the Python that has reeljudge; promptfoo's telemetry and update check off (it still posts a "
            "\"telemetry disabled\" event: the npm package's loopback.cjs refuses it, docs/install.md)"
            if options.python_entries else
            ' NODE_OPTIONS="--require $PWD/node_modules/reeljudge/loopback.cjs"   # the Python that has reeljudge; '
            "promptfoo's telemetry and update check off, and what it sends anyway refused")
    runs = [f"{PROMPTFOO} eval -c {config_name(j)}"
            + ("   # needs a Gemini key: export GEMINI_API_KEY=… first" if needs_key(j, options) else "")
            for j in options.judges]
    view = (f"{PROMPTFOO} view --yes   # the web viewer, one process (Ctrl+C or kill its PID stops it): "
            + ("promptfoo has no host option, it listens on every interface" if options.python_entries else
               "on 127.0.0.1:15500 only"))
    return [python, npm, env, *runs, view]


def workflow_suites(folder: Path) -> tuple[list[str], list[str]] | None:
    """The suites the gate workflow in ``folder`` runs (its ``configs``, its ``key-configs``, named as the action
    names them), or None when there is no workflow file there to read."""
    import yaml

    try:
        workflow = yaml.safe_load((folder / WORKFLOW_FILE).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    jobs = workflow.get("jobs") if isinstance(workflow, dict) else None
    for job in (jobs or {}).values():
        for step in (job or {}).get("steps") or [] if isinstance(job, dict) else []:
            given = step.get("with") if isinstance(step, dict) else None
            if isinstance(given, dict) and ("configs" in given or "key-configs" in given):
                return _suite_names(given.get("configs")), _suite_names(given.get("key-configs"))
    return [], []


def _suite_names(words: object) -> list[str]:
    """The action's suite names of a ``configs`` input (``name=path``, else the file name without promptfooconfig. and
    .yaml; action/gate.sh's rule)."""
    names = []
    for word in str(words or "").split():
        if "=" in word:
            names.append(word.split("=", 1)[0])
            continue
        name = Path(word).name.removesuffix(".yaml").removesuffix(".yml")
        names.append(name.removeprefix("promptfooconfig."))
    return names


def describe_gate(options: InitOptions, folder: Path | None = None) -> str:
    """One line: which suites the pull-request gate runs, with and without a key: as the workflow in ``folder`` says
    (a kept workflow keeps its own suites), else as ``options`` plan it."""
    found = workflow_suites(folder) if folder is not None else None
    keyless, keyed = found if found is not None else gate_suites(options)
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
    print(describe_gate(options, folder))
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
