"""The tests' own layout: test modules in folders by area, shared support in ``tests/support`` only,
and no test module that leans on a test module of another folder (pytest puts each test's own folder
on ``sys.path``, so such an import works only when the other folder happened to be collected first)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from support.paths import ROOT, TESTS
from support.promptfoo_run import promptfoo_view, run_promptfoo_eval

#: the areas, named for the package (or the folder: ``action``) they test, or for what they hold: ``house`` the house
#: rules (import graph, the architecture page's floors, lint, types, this layout, the lanes, set-up), ``shared`` the
#: one-of-each pieces every judge uses, ``verdicts`` the judge table and the one verdict protocol, ``cli`` the command
#: table. A new one is added here, to README.md's list and to docs/architecture.md's row (held equal below).
#: ``providers`` also holds promptfoo_stores.mjs, the promptfoo provider the media suites run
AREAS = {
    "ab", "ab_judge", "action", "batch", "browser", "calibration", "cli", "fakes", "filmability", "gates", "gecko",
    "house", "library", "media", "plugin", "probes", "providers", "shared", "synth", "verdicts",
}
#: folders of data, not tests: what the suites, configs and tests read
DATA = {"data", "suites", "support"}


def area_test_modules() -> list[Path]:
    """Every test module under tests/."""
    return sorted(TESTS.rglob("test_*.py"))


def test_every_test_module_is_in_an_area_folder_and_the_top_holds_only_the_conftest() -> None:
    modules = area_test_modules()
    assert len(modules) >= 100
    assert sorted({p.parent.name for p in modules if p.parent.parent == TESTS}) == sorted(AREAS)
    assert [p.relative_to(TESTS).as_posix() for p in modules if p.parent.parent != TESTS or p.parent.name not in AREAS] == []
    assert sorted(p.name for p in TESTS.glob("*.py")) == ["conftest.py"]
    assert {p.name for p in TESTS.iterdir() if p.is_dir() and not p.name.startswith((".", "__"))} == AREAS | DATA


def listed_areas(text: str) -> list[str]:
    """The area names written in backticks in ``text`` (a row or a sentence of the docs)."""
    return re.findall(r"`([a-z_]+)`", text)


def test_the_docs_list_exactly_the_test_areas() -> None:
    """docs/architecture.md's ``tests/<area>/`` row and README.md's layout sentence name the areas, each once."""
    row = next(line for line in (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8").splitlines()
               if line.startswith("| `tests/<area>/` |"))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    sentence = readme[readme.index("The tests live in folders by area"):readme.index("shared support in")]
    for listed in (listed_areas(row), listed_areas(sentence.replace("`tests/filmability`", "`filmability`"))):
        assert sorted(listed) == sorted(AREAS)


def test_no_test_module_imports_a_test_module_of_another_folder() -> None:
    crossing = []
    for path in area_test_modules() + sorted((TESTS / "support").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                     if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                top = name.split(".")[0]
                if top.startswith("test_") and not (path.parent / f"{top}.py").is_file():
                    crossing.append(f"{path.relative_to(TESTS)} imports {top}")
    assert crossing == []


def test_a_test_not_marked_e2e_cannot_start_promptfoo(tmp_path) -> None:
    """The fast lane's promise (no promptfoo process) holds for every test that runs promptfoo through support."""
    with pytest.raises(AssertionError, match="mark the test e2e"):
        run_promptfoo_eval("promptfooconfig.yaml", tmp_path)
    with pytest.raises(AssertionError, match="mark the test e2e"), promptfoo_view(tmp_path):
        pass
    assert not (tmp_path / "results.json").exists()
