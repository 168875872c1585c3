"""Every registration of a judge is equal to the judge table (``reeljudge.judging``).

``index.js``, the root entry files, the adapters, ``reeljudge init`` (its keys and templates), the
package's faces and the CLI each name the judges; each test here reads one of them and fails when it
names a judge the table does not, misses one, or spells a derived name otherwise.
"""

from __future__ import annotations

import ast
import re

import reeljudge
from reeljudge import cli
from reeljudge.judging import BY_INIT_KEY, BY_NAME, JUDGES, Judge
from reeljudge.package_data import init_templates_folder
from reeljudge.scaffold import project
from support.paths import ROOT

ENTRY_FOLDER = ROOT / "assertions"
INIT_FILES_OF_NO_JUDGE = {"reeljudge.gate.yaml", "workflow.yml", "workflow-comment.yml"}


def _module_path(module: str):
    """The source file of a package module, by its dotted name."""
    base = ROOT.joinpath(*module.split("."))
    return base.with_suffix(".py") if base.with_suffix(".py").exists() else base / "__init__.py"


def test_the_table_names_each_judge_once_and_derives_distinct_names():
    for attribute in ("name", "npm_export", "entry_stem", "adapter", "face", "init_key", "init_template"):
        values = [getattr(j, attribute) for j in JUDGES]
        assert len(set(values)) == len(values), attribute
    assert [j.npm_export for j in JUDGES] == ["filmability", "videoProbes", "gecko", "abJudge"]
    assert Judge("a_b_c", package="x", face="f", command="m").npm_export == "aBC"
    assert Judge("a_b_c", package="x", face="f", command="m").init_key == "a_b_c"
    assert set(BY_NAME) == {j.name for j in JUDGES} and set(BY_INIT_KEY) == {j.init_key for j in JUDGES}


def test_index_js_exports_one_entry_per_row_in_the_tables_order():
    text = (ROOT / "index.js").read_text(encoding="utf-8")
    found = re.findall(r"^exports\.(\w+) = moduleEntry\('([^']*)', '([^']*)', '([^']*)'\);$", text, re.M)
    assert found == [(j.npm_export, j.npm_export, j.entry_stem, j.adapter) for j in JUDGES]
    assert len(re.findall(r"^exports\.", text, re.M)) == len(JUDGES)


def test_the_root_entry_files_are_the_tables_and_name_their_adapter():
    stems = {p.stem for p in ENTRY_FOLDER.iterdir() if p.suffix in (".py", ".js")}
    assert stems == {j.entry_stem for j in JUDGES}
    for judge in JUDGES:
        python = (ENTRY_FOLDER / f"{judge.entry_stem}.py").read_text(encoding="utf-8")
        assert f"from {judge.adapter} import get_assert" in python, judge.name
        script = (ENTRY_FOLDER / f"{judge.entry_stem}.js").read_text(encoding="utf-8")
        assert "require('../reeljudge/warm/client.js').entry(__filename)" in script, judge.name
        assert f"{judge.entry_stem}.py" in script and f"file://assertions/{judge.entry_stem}.js" in script, judge.name


def test_each_row_has_its_adapter_options_loader_and_face():
    adapters = {p.stem for p in (ROOT / "reeljudge" / "assertions").glob("*.py")} - {"__init__"}
    assert adapters == {j.name for j in JUDGES}
    for judge in JUDGES:
        for module, function in ((judge.adapter, "get_assert"), (judge.options_module, "load"), (judge.face_module, judge.face)):
            tree = ast.parse(_module_path(module).read_text(encoding="utf-8"))
            defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
            assert function in defined, f"{module} defines no {function}"


def test_the_package_faces_are_the_tables_faces_and_the_rest():
    judge_faces = [j.face for j in JUDGES]
    assert reeljudge.__all__[: len(JUDGES)] == judge_faces
    assert all(reeljudge._FACES[j.face] == j.face_module for j in JUDGES)
    assert set(reeljudge.__all__) == set(reeljudge._FACES)


def test_init_offers_the_tables_judges_with_one_template_each():
    assert list(project.JUDGES) == [j.init_key for j in JUDGES]
    assert project.CLIP_JUDGES == tuple(j.init_key for j in JUDGES if j.clips)
    templates = {p.name for p in init_templates_folder().glob("*.yaml")} | {p.name for p in init_templates_folder().glob("*.yml")}
    assert templates - INIT_FILES_OF_NO_JUDGE == {j.init_template for j in JUDGES}
    files = project.plan_project(project.InitOptions(python_entries=True))
    for judge in JUDGES:
        assert f"from {judge.adapter} import get_assert" in files[f"{project.ENTRY_FOLDER}/{judge.entry_stem}.py"]
    npm = project.plan_project(project.InitOptions())
    for judge in JUDGES:
        assert f"package:reeljudge:{judge.npm_export}" in npm[project.config_name(judge.init_key)]


def test_every_judge_adds_a_command_to_the_cli():
    registered = set(cli.COMMANDS) | {child for children in cli.SUBCOMMANDS.values() for child in children}
    assert {j.command for j in JUDGES} <= registered
    for judge in JUDGES:
        tree = ast.parse(_module_path(judge.command).read_text(encoding="utf-8"))
        assert "add_parser" in {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}, judge.command
