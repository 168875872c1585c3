"""``reeljudge init``: a starter project in the user's folder, never overwriting without --force."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from reeljudge.cli import main
from reeljudge.gates.gatefile import load_gate
from reeljudge.scaffold.project import InitOptions, plan_project
from support.entries import load_entry
from support.paths import ROOT


def init(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["init", *args])
    out = capsys.readouterr()
    return code, out.out + out.err


def test_init_writes_a_project_with_the_users_var_names_and_package_references(tmp_path, capsys):
    code, out = init(capsys, str(tmp_path), "--judges", "filmability,ab", "--narration-var", "voiceover",
                     "--video-var", "clip_file")
    assert (code == 0 and "created promptfooconfig.filmability.yaml" in out
            and "./node_modules/.bin/promptfoo eval -c promptfooconfig.ab.yaml" in out)
    assert not (tmp_path / "promptfooconfig.gecko.yaml").exists()
    assert [p.name for p in (tmp_path / "reeljudge_entries").iterdir()] == ["clips.py"]  # the clip provider entry only
    film = yaml.safe_load((tmp_path / "promptfooconfig.filmability.yaml").read_text())
    check = film["defaultTest"]["assert"][0]
    assert check["type"] == "javascript" and check["value"] == "package:reeljudge:filmability"
    assert check["config"]["narration_var"] == "voiceover" and "voiceover" in film["tests"][0]["vars"]
    ab = yaml.safe_load((tmp_path / "promptfooconfig.ab.yaml").read_text())["defaultTest"]["assert"][0]
    assert ab["value"] == "package:reeljudge:abJudge" and ab["config"]["media_var"] == "clip_file"
    assert load_gate(tmp_path / "reeljudge.gate.yaml").tolerance == 0.02  # the gate loader (unknown keys refused) reads it
    workflow = yaml.safe_load((tmp_path / ".github" / "workflows" / "reeljudge.yml").read_text())
    step = workflow["jobs"]["gate"]["steps"][1]
    assert (step["uses"] == "reeljudge/reeljudge@COMMIT_SHA" and step["with"]["configs"]
            == "promptfooconfig.filmability.yaml promptfooconfig.ab.yaml")
    comment = yaml.safe_load((tmp_path / ".github" / "workflows" / "reeljudge-comment.yml").read_text())
    assert comment["jobs"]["comment"]["steps"][0]["with"]["mode"] == "comment"
    assert {".reeljudge/cache/", "results/", ".promptfoo/"} <= set((tmp_path / ".gitignore").read_text().splitlines())


def test_a_second_run_changes_nothing_and_says_so(tmp_path, capsys):
    init(capsys, str(tmp_path))
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    code, out = init(capsys, str(tmp_path))
    assert code == 0 and out.splitlines()[1] == "nothing changed: every file is already there"
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_init_never_overwrites_an_edited_file_without_force(tmp_path, capsys):
    init(capsys, str(tmp_path), "--judges", "probes")
    config = tmp_path / "promptfooconfig.probes.yaml"
    config.write_text("# mine\n")
    code, out = init(capsys, str(tmp_path), "--judges", "probes")
    assert code == 0 and config.read_text() == "# mine\n"
    assert ("kept promptfooconfig.probes.yaml (it differs from the template; --force replaces it)" in out
            and "nothing changed" in out)
    code, out = init(capsys, str(tmp_path), "--judges", "probes", "--force")
    assert "replaced promptfooconfig.probes.yaml" in out and "package:reeljudge:videoProbes" in config.read_text()


def test_init_appends_missing_gitignore_lines_and_keeps_the_users(tmp_path, capsys):
    (tmp_path / ".gitignore").write_text("node_modules/\nresults/")  # no final newline
    init(capsys, str(tmp_path), "--judges", "gecko")
    lines = (tmp_path / ".gitignore").read_text().splitlines()
    assert lines[:2] == ["node_modules/", "results/"] and lines.count("results/") == 1 and ".promptfoo/" in lines


def test_an_entry_written_by_an_earlier_init_gets_pythons_import_error_and_the_readme_says_what_to_write(tmp_path):
    """An earlier ``init --python-entries`` wrote ``from reeljudge.<judge>.assertion import get_assert``:
    that module is gone, so Python itself refuses it; the README's upgrade note names the line to write."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for package, stem in (("filmability", "filmability"), ("probes", "video_probes"), ("gecko", "gecko"),
                          ("ab_judge", "ab_judge")):
        entry = tmp_path / f"old_{stem}.py"
        entry.write_text(f"from reeljudge.{package}.assertion import get_assert\n__all__ = ['get_assert']\n")
        run = subprocess.run([sys.executable, str(entry)], capture_output=True, text=True, cwd=tmp_path)
        assert run.returncode == 1
        assert f"ModuleNotFoundError: No module named 'reeljudge.{package}.assertion'" in run.stderr, run.stderr
        assert f"| `reeljudge.{package}.assertion` | `from reeljudge.assertions.{stem} import get_assert` |" in readme


def test_python_entries_are_three_lines_that_import_the_installed_judge(tmp_path, capsys):
    code, _ = init(capsys, str(tmp_path), "--python-entries")
    assert code == 0
    for stem in ("filmability", "video_probes", "gecko", "ab_judge"):
        entry = tmp_path / "reeljudge_entries" / f"{stem}.py"
        assert len(entry.read_text().splitlines()) == 3
        assert load_entry(entry).get_assert.__module__ == f"reeljudge.assertions.{stem}"
    config = yaml.safe_load((tmp_path / "promptfooconfig.gecko.yaml").read_text())["defaultTest"]["assert"][0]
    assert config == {**config, "type": "python", "value": "file://reeljudge_entries/gecko.py"}


@pytest.mark.parametrize("args, message", [
    (["--judges", "filmability,veo"], "--judges: unknown judge(s) veo; choose from filmability, probes, gecko, ab"),
    (["--judges", ","], "--judges: unknown judge(s) (none given)"),
    (["--video-var", "my clip"], "--video-var: 'my clip' is not a var name"),
])
def test_bad_options_are_refused_naming_the_option_and_nothing_is_written(tmp_path, capsys, args, message):
    code, out = init(capsys, str(tmp_path), *args)
    assert code == 2 and message in out
    assert list(tmp_path.iterdir()) == []


def test_every_template_placeholder_is_filled():
    files = plan_project(InitOptions(python_entries=True))
    assert not [name for name, text in files.items() if "$" in text.replace("${{", "").replace("$schema", "")]
    assert Path("reeljudge_entries/ab_judge.py").as_posix() in files


def test_the_workflow_passes_the_workflow_linter_once_its_placeholder_is_pinned(tmp_path, capsys):
    init(capsys, str(tmp_path), "--judges", "probes")
    workflow = tmp_path / ".github" / "workflows" / "reeljudge.yml"
    zizmor = [str(Path(sys.executable).parent / "zizmor"), "--offline", "--pedantic", "--strict-collection", "--no-progress",
              "--color", "never",
              "--no-config", "--cache-dir", str(tmp_path / "zizmor-cache"), str(workflow)]
    placeholder = subprocess.run(zizmor, capture_output=True, text=True, cwd=tmp_path)
    findings = [line for line in placeholder.stdout.splitlines() if line.startswith(("error[", "warning[", "info[", "help["))]
    said = placeholder.stdout + placeholder.stderr
    assert findings == ["error[unpinned-uses]: unpinned action reference"] and "reeljudge/reeljudge@COMMIT_SHA" in said, said
    workflow.write_text(workflow.read_text().replace("reeljudge/reeljudge@COMMIT_SHA", "example/reeljudge@" + "a" * 40))
    pinned = subprocess.run(zizmor, capture_output=True, text=True, cwd=tmp_path)
    assert pinned.returncode == 0 and "No findings to report" in pinned.stdout + pinned.stderr, pinned.stdout


@pytest.mark.parametrize(("judge", "key"), [("probes", "var"), ("gecko", "media_var"), ("ab", "media_var")])
def test_the_clip_starters_say_promptfoos_own_video_providers_need_no_extra_configuration(judge, key):
    text = plan_project(InitOptions(judges=(judge,), video_var="clip_file"))[f"promptfooconfig.{judge}.yaml"]
    comments = " ".join(line.split("# ", 1)[1] for line in text.splitlines() if "# " in line)
    assert "google:video:veo-*" in comments and "openai:video:sora-*" in comments and "no extra configuration" in comments
    assert f"set `{key}` below to null" in comments and "docs/media.md" in comments
    config = yaml.safe_load(text)["defaultTest"]["assert"][0]["config"]
    assert config[key] == "clip_file"  # the key the comment names is the one the starter sets (the e2e sets it to null)


def test_the_workflows_init_writes_are_the_snippets_docs_gates_md_shows():
    """One text for the gate workflows: what ``init`` writes is what docs/gates.md tells users to paste."""
    import re

    docs = (ROOT / "docs" / "gates.md").read_text()

    def snippet(name: str) -> str:
        return re.search(r"```yaml\n(.*?)```", docs.split(f"<!-- action-snippet: {name} -->", 1)[1], re.S).group(1)

    files = plan_project(InitOptions(judges=("filmability",)))
    body = lambda text: "\n".join(line for line in text.splitlines() if not line.startswith("# Written by")
                                  and not line.startswith("# "))
    gate = snippet("gate").replace("configs: promptfooconfig.yaml", "configs: promptfooconfig.filmability.yaml")
    assert body(files[".github/workflows/reeljudge.yml"]) == body(gate)
    assert body(files[".github/workflows/reeljudge-comment.yml"]) == body(snippet("comment"))


def _gate_inputs(folder: Path) -> dict:
    workflow = yaml.safe_load((folder / ".github" / "workflows" / "reeljudge.yml").read_text())
    return next(s for s in workflow["jobs"]["gate"]["steps"] if "uses" in s and "COMMIT_SHA" in s["uses"])["with"]


def test_the_default_gate_runs_only_suites_that_judge_without_a_key(tmp_path, capsys):
    code, out = init(capsys, str(tmp_path))
    assert code == 0 and "gate: filmability, probes, ab on every pull request (no key needed)" in out
    given = _gate_inputs(tmp_path)
    assert given == {"configs": "promptfooconfig.filmability.yaml promptfooconfig.probes.yaml promptfooconfig.ab.yaml"}
    film = yaml.safe_load((tmp_path / "promptfooconfig.filmability.yaml").read_text())["defaultTest"]["assert"][0]["config"]
    ab = yaml.safe_load((tmp_path / "promptfooconfig.ab.yaml").read_text())["defaultTest"]["assert"][0]["config"]
    assert film["judge"] == "local" and ab["judge"] == "probes"  # the same judge on a fork's run and the default branch's


def test_gate_all_puts_the_gemini_suites_in_key_configs(tmp_path, capsys):
    code, out = init(capsys, str(tmp_path), "--gate", "all", "--ab-judge", "gemini")
    assert code == 0 and 'gecko, ab when the repository secret GEMINI_API_KEY is set, else reported "not run: no key"' in out
    given = _gate_inputs(tmp_path)
    assert given["configs"] == "promptfooconfig.filmability.yaml promptfooconfig.probes.yaml"
    assert given["key-configs"] == "promptfooconfig.gecko.yaml promptfooconfig.ab.yaml"
    ab = yaml.safe_load((tmp_path / "promptfooconfig.ab.yaml").read_text())
    assert ab["defaultTest"]["assert"][0]["config"]["judge"] == "gemini"


def test_gate_lists_and_none(tmp_path, capsys):
    code, _ = init(capsys, str(tmp_path / "a"), "--gate", "gecko,probes")
    assert code == 0
    given = _gate_inputs(tmp_path / "a")
    assert given["configs"] == "promptfooconfig.probes.yaml" and given["key-configs"] == "promptfooconfig.gecko.yaml"
    film = yaml.safe_load((tmp_path / "a" / "promptfooconfig.filmability.yaml").read_text())["defaultTest"]["assert"][0]["config"]
    assert film["judge"] == "auto"  # not gated: Gemini with a key, else offline
    code, out = init(capsys, str(tmp_path / "b"), "--gate", "none")
    assert code == 0 and not (tmp_path / "b" / ".github").exists() and "gate: no suites" in out
    code, out = init(capsys, str(tmp_path / "c"), "--judges", "probes", "--gate", "gecko")
    assert code == 2 and "--gate: gecko is not one of the judges written (probes)" in out


@pytest.mark.parametrize("files, named", [
    ({"requirements.txt": "iniconfig\n"}, "requirements.txt"),
    ({"requirements.txt": "iniconfig\n", "pyproject.toml": "[project]\nname = 'r'\n", "uv.lock": "version = 1\n"}, "uv.lock"),
    ({"pyproject.toml": "[project]\nname = 'r'\ndependencies = ['iniconfig']\n"}, "pyproject.toml"),
    ({"pyproject.toml": "[project]\nname = 'r'\n"}, None),  # declares no dependencies: nothing to name
    ({}, None),
])
def test_init_names_the_projects_own_python_dependencies_in_the_gate(tmp_path, capsys, files, named):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    code, _ = init(capsys, str(tmp_path))
    assert code == 0
    assert _gate_inputs(tmp_path).get("python-dependencies") == named


def test_gitignore_keeps_the_virtualenv_and_the_copied_wheel_out(tmp_path, capsys):
    init(capsys, str(tmp_path))
    lines = set((tmp_path / ".gitignore").read_text().splitlines())
    assert {".venv/", "reeljudge-*.whl"} <= lines and not any(line.endswith(".tgz") for line in lines)


def test_the_project_starts_clean_node_modules_ignored_files_with_the_umask_mode_and_example_clips(tmp_path, capsys):
    """init's .gitignore keeps node_modules/ out; files get the mode the umask gives (not 0600); the
    clip starters' example clips exist (rendered by reeljudge.synth), the A/B reference a flickering one."""
    import os
    import stat

    from reeljudge.media.container import clip_facts

    old = os.umask(0o022)
    try:
        code, out = init(capsys, str(tmp_path))
    finally:
        os.umask(old)
    assert code == 0 and "created clips/example.mp4" in out and "created clips/reference.mp4" in out
    assert {"node_modules/", "reeljudge-results/", "reeljudge-gate/"} <= set((tmp_path / ".gitignore").read_text().splitlines())
    for name in ("promptfooconfig.probes.yaml", ".gitignore", ".github/workflows/reeljudge.yml", "clips/example.mp4",
                 "reeljudge_entries/clips.py"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o644, name
    assert clip_facts(tmp_path / "clips" / "example.mp4")["frames"] > 24
    clip = (tmp_path / "clips" / "example.mp4").read_bytes()
    (tmp_path / "clips" / "example.mp4").write_bytes(b"the user's own clip")
    code, out = init(capsys, str(tmp_path))
    assert (tmp_path / "clips" / "example.mp4").read_bytes() == b"the user's own clip" and "nothing changed" in out and clip


def test_next_steps_install_what_the_readme_installs_with_telemetry_off(tmp_path, capsys):
    from reeljudge import __version__

    code, out = init(capsys, str(tmp_path))
    steps = out.split("next:", 1)[1]
    assert f".venv/bin/pip install ./reeljudge-{__version__}-py3-none-any.whl" in steps
    assert f"npm install --save-dev promptfoo ./reeljudge-{__version__}.tgz" in steps
    # unpublished names
    assert "pip install reeljudge " not in steps and "npm install --save-dev promptfoo reeljudge" not in steps
    assert "PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1" in steps
    assert 'NODE_OPTIONS="--require $PWD/node_modules/reeljudge/loopback.cjs"' in steps and "npx " not in steps
    readme = (ROOT / "README.md").read_text()
    assert f"./reeljudge-{__version__}-py3-none-any.whl" in readme and f"./reeljudge-{__version__}.tgz" in readme
    # the README's and docs/install.md's commands are init's (tests/plugin/test_offline_commands.py runs init's)
    for doc in (readme, (ROOT / "docs" / "install.md").read_text()):
        assert "PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1" in doc
        assert 'NODE_OPTIONS="--require $PWD/node_modules/reeljudge/loopback.cjs"' in doc
        assert "./node_modules/.bin/promptfoo eval -c promptfooconfig.filmability.yaml" in doc
        assert "./node_modules/.bin/promptfoo view --yes" in doc and "npx promptfoo view --yes" not in doc


def test_the_clips_provider_entry_serves_a_clip_from_the_installed_package(tmp_path, capsys):
    init(capsys, str(tmp_path), "--judges", "probes")
    assert load_entry(tmp_path / "reeljudge_entries" / "clips.py").call_api.__module__ == "reeljudge.providers.clips"
    assert "file://reeljudge_entries/clips.py" in (ROOT / "README.md").read_text()
    assert "file://providers/clips.py" not in (ROOT / "README.md").read_text().split("## Develop reeljudge")[0]


def _help_options() -> dict[str, str]:
    """``reeljudge init --help``'s options, {--name: its default or 'off'} (flags without a value: off)."""
    import argparse

    from reeljudge.scaffold.cli import add_parser

    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers())
    init_parser = parser._subparsers._group_actions[0].choices["init"]
    found = {}
    for action in init_parser._actions:
        for flag in action.option_strings:
            if flag.startswith("--") and flag != "--help":
                found[flag] = "off" if action.nargs == 0 else str(action.default)
    return found


def test_docs_install_md_option_table_is_init_help():
    """docs/install.md's table of ``reeljudge init`` options names every option ``--help`` has, with its default."""
    import re

    section = (ROOT / "docs" / "install.md").read_text().split("## `reeljudge init [DIR]`", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `--")]
    documented = {}
    for row in rows:
        names, default = row.split("|")[1], row.split("|")[2]
        flags = re.findall(r"`(--[\w-]+)`", names)
        defaults = re.findall(r"`([^`]*)`", default) or [default.strip()]
        for i, flag in enumerate(flags):
            documented[flag] = defaults[i] if i < len(defaults) else defaults[-1]
    assert documented == _help_options()


def test_next_steps_mark_the_suites_that_need_a_key_and_a_second_init_reports_the_gate_it_kept(tmp_path, capsys):
    """The next steps mark the suites that need a key (Gecko), and a second ``init --gate all`` that kept the edited
    workflow reports the gate of the workflow that is there, not its template's (Gecko with a key)."""
    code, out = init(capsys, str(tmp_path))
    gecko = "  ./node_modules/.bin/promptfoo eval -c promptfooconfig.gecko.yaml   # needs a Gemini key: export GEMINI_API_KEY"
    assert code == 0 and gecko in out
    assert "  ./node_modules/.bin/promptfoo eval -c promptfooconfig.filmability.yaml\n" in out  # judges offline: no mark
    code, out = init(capsys, str(tmp_path), "--gate", "all")
    assert code == 0 and "kept .github/workflows/reeljudge.yml" in out
    assert "gate: filmability, probes, ab on every pull request (no key needed)\n" in out and "GEMINI_API_KEY is set" not in out
    workflow = tmp_path / ".github" / "workflows" / "reeljudge.yml"
    workflow.write_text(workflow.read_text().replace("configs: promptfooconfig.filmability.yaml",
                                                     "configs: broll=promptfooconfig.filmability.yaml"))
    _code, out = init(capsys, str(tmp_path))
    assert "gate: broll, probes, ab on every pull request" in out  # named as the action names the suite
