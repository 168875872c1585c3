"""What ``reeljudge init`` writes: every file of a starter project, as text, from the packaged templates.

Pure: ``plan_project`` returns {relative path: text}; writing (and the no-overwrite rule) is
``reeljudge.scaffold.write``'s job.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from string import Template

from reeljudge.errors import BadInputError
from reeljudge.judging import BY_INIT_KEY, Judge
from reeljudge.package_data import init_templates_folder

#: the judges by the word ``--judges`` takes (``reeljudge.judging``'s table)
JUDGES: dict[str, Judge] = BY_INIT_KEY
ENTRY_FOLDER = "reeljudge_entries"
GATE_FILE = "reeljudge.gate.yaml"
CLIPS_PROVIDER = f"{ENTRY_FOLDER}/clips.py"
#: the example clips the clip judges' starters name: path → the reeljudge.synth fixture rendered there
EXAMPLE_CLIPS: dict[str, str] = {"clips/example.mp4": "clean", "clips/reference.mp4": "flicker"}
CLIP_JUDGES = tuple(key for key, judge in JUDGES.items() if judge.clips)
WORKFLOW_FILE = ".github/workflows/reeljudge.yml"
COMMENT_WORKFLOW_FILE = ".github/workflows/reeljudge-comment.yml"
_VAR_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: --gate's words besides a list of judges: the suites that judge without a key, every suite, none (no workflows)
GATE_CHOICES = ("keyless", "all", "none")
AB_JUDGES = ("probes", "gemini")


@dataclass(frozen=True)
class InitOptions:
    """What the user chose: the judges, their own var names, and the entry form."""

    judges: tuple[str, ...] = tuple(JUDGES)
    narration_var: str = "narration"
    prompt_var: str = "prompt"
    video_var: str = "video"
    reference_var: str = "reference"
    python_entries: bool = False
    gate: str = "keyless"
    ab_judge: str = "probes"
    python_dependencies: str = ""  # the project's own Python packages, for the gate (``detected_dependencies``)

    def __post_init__(self) -> None:
        unknown = [j for j in self.judges if j not in JUDGES]
        if unknown or not self.judges:
            raise BadInputError(f"--judges: unknown judge(s) {', '.join(unknown) or '(none given)'}; choose from "
                                f"{', '.join(JUDGES)}")
        if self.ab_judge not in AB_JUDGES:
            raise BadInputError(f"--ab-judge: {self.ab_judge!r} is not a judge; choose from {', '.join(AB_JUDGES)}")
        if self.gate not in GATE_CHOICES:
            outside = [j for j in self.gate.split(",") if j.strip() not in self.judges]
            if outside or not self.gate.strip():
                raise BadInputError(f"--gate: {', '.join(outside) or '(none given)'} is not one of the judges written "
                                    f"({', '.join(self.judges)}); give a comma-separated list of them, or "
                                    f"{', '.join(GATE_CHOICES)}")
        for name in ("narration_var", "prompt_var", "video_var", "reference_var"):
            if not _VAR_NAME.match(getattr(self, name)):
                raise BadInputError(f"--{name.replace('_', '-')}: {getattr(self, name)!r} is not a var name (letters, digits, _)")


def config_name(judge: str) -> str:
    """The file name of one judge's starter config."""
    return f"promptfooconfig.{judge}.yaml"


def needs_key(judge: str, options: InitOptions) -> bool:
    """Whether a judge's starter needs a Gemini key to judge (Gecko; the A/B judge unless ``judge: probes``)."""
    return judge == "gecko" or (judge == "ab" and options.ab_judge == "gemini")


def gate_suites(options: InitOptions) -> tuple[list[str], list[str]]:
    """(the gated judges that judge without a key, the gated judges that need one), by ``options.gate``."""
    if options.gate == "none":
        return [], []
    if options.gate == "keyless":
        chosen = [j for j in options.judges if not needs_key(j, options)]
    elif options.gate == "all":
        chosen = list(options.judges)
    else:
        chosen = [j for j in options.judges if j in {g.strip() for g in options.gate.split(",")}]
    return [j for j in chosen if not needs_key(j, options)], [j for j in chosen if needs_key(j, options)]


def _gate_inputs(keyless: list[str], keyed: list[str], dependencies: str = "") -> str:
    """The action's ``with:`` lines for the gated suites (configs space-separated, as the action reads them), and the
    project's own Python packages when it has them."""
    lines = [f"configs: {' '.join(config_name(j) for j in keyless)}"] if keyless else []
    if keyed:
        lines.append(f"key-configs: {' '.join(config_name(j) for j in keyed)} # judged with GEMINI_API_KEY; else "
                     "\"not run: no key\"")
    if dependencies:
        lines.append(f"python-dependencies: {dependencies} # your Python providers' packages, installed beside reeljudge")
    return "\n          ".join(lines)


def _template(name: str) -> Template:
    return Template((init_templates_folder() / name).read_text(encoding="utf-8"))


def _entry(judge: str, options: InitOptions) -> tuple[str, str]:
    """(assertion type, value) for one judge: the npm package reference, or the Python entry file."""
    row = JUDGES[judge]
    if options.python_entries:
        return "python", f"file://{ENTRY_FOLDER}/{row.entry_stem}.py"
    return "javascript", f"package:reeljudge:{row.npm_export}"


def plan_project(options: InitOptions) -> dict[str, str]:
    """Every file of the starter project, {path relative to the project folder: text}."""
    files: dict[str, str] = {}
    keyless, keyed = gate_suites(options)
    for judge in options.judges:
        kind, value = _entry(judge, options)
        files[config_name(judge)] = _template(JUDGES[judge].init_template).substitute(
            config=config_name(judge), assert_type=kind, entry=value, narration_var=options.narration_var,
            prompt_var=options.prompt_var, video_var=options.video_var, reference_var=options.reference_var,
            film_judge="local" if "filmability" in keyless else "auto", ab_judge=options.ab_judge)
        if options.python_entries:
            row = JUDGES[judge]
            files[f"{ENTRY_FOLDER}/{row.entry_stem}.py"] = _template("entry.py.template").substitute(judge=judge,
                                                                                                     module=row.adapter)
    if any(j in CLIP_JUDGES for j in options.judges):
        files[CLIPS_PROVIDER] = _template("clips_provider.py.template").substitute(entry_folder=ENTRY_FOLDER)
    files[GATE_FILE] = _template("reeljudge.gate.yaml").substitute()
    if keyless or keyed:
        files[WORKFLOW_FILE] = _template("workflow.yml").substitute(
            gate_inputs=_gate_inputs(keyless, keyed, options.python_dependencies))
        files[COMMENT_WORKFLOW_FILE] = _template("workflow-comment.yml").substitute()
    return files


#: the files that name a project's own Python packages, the first found wins (uv.lock: the locked set of its pyproject)
DEPENDENCY_FILES = ("uv.lock", "requirements.txt", "pyproject.toml")


def detected_dependencies(folder: Path) -> str:
    """The gate's ``python-dependencies`` for the project in ``folder``: its uv.lock, requirements.txt, or a
    pyproject.toml that declares dependencies; empty when it has none."""
    for name in DEPENDENCY_FILES:
        path = folder / name
        if not path.is_file():
            continue
        if name != "pyproject.toml":
            return name
        try:
            declared = tomllib.loads(path.read_text(encoding="utf-8")).get("project", {}).get("dependencies")
        except (tomllib.TOMLDecodeError, UnicodeDecodeError, AttributeError):
            return ""  # not ours to judge: the team names it by hand when it is meant
        return name if declared else ""
    return ""


def plan_clips(options: InitOptions) -> dict[str, str]:
    """The example clips the chosen starters name, {path: reeljudge.synth fixture name} (the reference only for ab)."""
    if not any(j in CLIP_JUDGES for j in options.judges):
        return {}
    return {path: name for path, name in EXAMPLE_CLIPS.items() if "ab" in options.judges or path == "clips/example.mp4"}


def gitignore_lines() -> list[str]:
    """The lines ``init`` makes sure the project's .gitignore has (judge cache, results, promptfoo's store, the virtualenv, the
    copied wheel)."""
    return (init_templates_folder() / "gitignore").read_text(encoding="utf-8").splitlines()
