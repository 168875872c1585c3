"""The import graph of the whole package: no cycles, and nothing imports upward.

Read from the source with ``ast`` (every import, also inside functions and under TYPE_CHECKING), so
a lazy import counts like a top-level one. Each module belongs to the unit with the longest
matching name in ``LAYERS``; a module imports only from its own unit or from a lower layer.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

from support.paths import ROOT, TESTS

PACKAGE = ROOT / "reeljudge"

#: low to high; a unit is a package or a module (longest name wins)
LAYERS: tuple[tuple[str, ...], ...] = (
    # the contracts every floor reads: the table of judges, who judged, the verdict protocol
    ("reeljudge.errors", "reeljudge.judging", "reeljudge.identity", "reeljudge.verdict"),
    # package_data: where the packaged data files are; exits: every command's exit codes and error line
    ("reeljudge.extras", "reeljudge.package_data", "reeljudge.exits"),
    ("reeljudge.atomic", "reeljudge.options", "reeljudge.not_judged", "reeljudge.stats",
     # reeljudge.synth: synthetic clips (ab gold, test fixtures), importing no reeljudge layer
     "reeljudge.rows", "reeljudge.synth"),
    # the promptfoo wing's lower floor: what promptfoo hands us and what we hand back (no media, no judge)
    ("reeljudge.promptfoo", "reeljudge.retry", "reeljudge.cache", "reeljudge.environment"),
    ("reeljudge.media",),  # carriers and files only: nothing of promptfoo (test_media_knows_nothing_of_promptfoo)
    ("reeljudge.promptfoo.clips",),  # the wing's upper floor: the clip-finding order, on media facts
    ("reeljudge.gemini", "reeljudge.stock", "reeljudge.probes"),  # the Gemini client below everything that plans or judges
    ("reeljudge.batch", "reeljudge.library"),
    ("reeljudge.filmability", "reeljudge.gecko", "reeljudge.ab"),
    ("reeljudge.ab_judge", "reeljudge.providers", "reeljudge.gates"),
    ("reeljudge.calibration", "reeljudge.warm", "reeljudge.scaffold"),
    # the promptfoo adapters: named (by strings) by index.js, the warm worker and init; imported by no module
    ("reeljudge.assertions",),
    ("reeljudge",),  # the faces, each imported lazily by name when used
    ("reeljudge.cli", "reeljudge.cache_cli"),
)
LAYER_OF = {unit: level for level, units in enumerate(LAYERS) for unit in units}


@lru_cache(maxsize=None)
def _nodes(source: str) -> tuple[ast.AST, ...]:
    """Every node of ``source``'s syntax tree, parsed once per content (each test here reads the whole package)."""
    return tuple(ast.walk(ast.parse(source)))


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imported(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules that ``name`` imports, anywhere in its source (``from p import m``: ``p.m``)."""
    targets: set[str] = set()
    for node in _nodes(path.read_text(encoding="utf-8")):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")[: len(name.split(".")) - (node.level - (path.name == "__init__.py"))]
                base = ".".join(anchor + ([node.module] if node.module else []))
            subs = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in known]
            targets.update(subs or [base])
    resolved = set()
    for target in targets:
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target and target != name:
            resolved.add(target)
    return resolved


def graph() -> dict[str, set[str]]:
    """Module → the package modules it imports."""
    known = modules()
    return {name: imported(name, path, known) for name, path in known.items()}


def unit_of(module: str) -> str:
    """The LAYERS unit ``module`` belongs to (the longest matching name)."""
    return max((u for u in LAYER_OF if module == u or module.startswith(u + ".")), key=len)


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one member (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = stack[stack.index(node):]
                    del stack[stack.index(node):]
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                work.append((child, iter(sorted(edges[child]))))
            elif child in stack:
                low[node] = min(low[node], index[child])
    return found


def test_every_module_has_a_layer():
    assert [m for m in modules() if not any(m == u or m.startswith(u + ".") for u in LAYER_OF)] == []


def test_no_import_cycles_between_modules_or_units():
    edges = graph()
    assert cycles(edges) == []
    units: dict[str, set[str]] = {}
    for module, targets in edges.items():
        units.setdefault(unit_of(module), set()).update(unit_of(t) for t in targets if unit_of(t) != unit_of(module))
    assert cycles({u: units.get(u, set()) & set(LAYER_OF) for u in LAYER_OF}) == []


def test_nothing_imports_upward():
    upward = sorted(
        f"{module} ({unit_of(module)}, layer {LAYER_OF[unit_of(module)]}) imports {target} (layer {LAYER_OF[unit_of(target)]})"
        for module, targets in graph().items() for target in targets
        if unit_of(target) != unit_of(module) and LAYER_OF[unit_of(target)] >= LAYER_OF[unit_of(module)]
    )
    assert upward == []


def test_the_named_separations_hold():
    edges = graph()
    reach = _reachable(edges)
    assert not any(m.startswith("reeljudge.batch") for m in reach["reeljudge.gemini.client"])
    assert "reeljudge.ab_judge.batch" not in reach["reeljudge.ab.cli"]
    assert "reeljudge.ab.cli" not in reach["reeljudge.ab_judge.batch"]


def test_no_module_imports_the_promptfoo_adapters():
    """``reeljudge.assertions`` is the top floor: index.js, the warm worker and ``init`` name its modules (strings);
    no judge, bulk command, library, face or CLI imports one."""
    edges = graph()
    assert {"reeljudge.assertions.filmability", "reeljudge.assertions.video_probes"} <= set(edges)
    importers = sorted(f"{module} imports {target}" for module, targets in edges.items() for target in targets
                       if unit_of(target) == "reeljudge.assertions" != unit_of(module))
    assert importers == []


#: the keys of promptfoo's own shapes: the assertion context (providerResponse), a results file and its rows
PROMPTFOO_KEYS = frozenset({"providerResponse", "testCase", "gradingResult", "componentResults", "namedScores",
                            "promptIdx", "testIdx", "failureReason", "promptfooVersion", "evalId"})
#: where promptfoo's shapes may be read: the wing, and the top-floor adapters (``reeljudge.assertions``)
PROMPTFOO_ROOMS = ("reeljudge.promptfoo", "reeljudge.assertions")


def test_media_knows_nothing_of_promptfoo():
    """The media layer opens references through carriers; which reference a test names is the wing's."""
    found = sorted(f"{m} imports {t}" for m, targets in graph().items() if unit_of(m) == "reeljudge.media"
                   for t in targets if t == "reeljudge.promptfoo" or t.startswith("reeljudge.promptfoo."))
    assert found == []


def test_only_the_promptfoo_wing_reads_promptfoos_shapes():
    """The media layer, the judges, the gates and the library import the wing's types instead of digging
    through promptfoo's context or result rows: promptfoo's keys are written in the wing only."""
    found = sorted(f"{name}: {key!r}" for name, path in modules().items()
                   if not any(name == r or name.startswith(r + ".") for r in PROMPTFOO_ROOMS)
                   for key in promptfoo_keys(path.read_text(encoding="utf-8")))
    assert found == []


def test_judge_identity_is_spelled_in_its_module_only():
    """The judges write and the gates read ``metadata.judge_identity`` through ``reeljudge.identity``."""
    found = sorted(name for name, path in modules().items() if name != "reeljudge.identity"
                   and promptfoo_keys(path.read_text(encoding="utf-8"), {"judge_identity"}))
    assert found == []


def promptfoo_keys(source: str, keys: frozenset[str] | set[str] = PROMPTFOO_KEYS) -> set[str]:
    """The string constants of ``source`` that are one of ``keys`` (a docstring or message that
    mentions a key is no reading of it)."""
    return {node.value for node in _nodes(source)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in keys}


def test_the_checker_sees_cycles_and_lazy_typing_and_relative_imports(tmp_path):
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    source = tmp_path / "client.py"
    source.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from reeljudge.ab import cli\n"
                      "def ask():\n    from reeljudge.batch import plan\n    from . import wire\n")
    known = {m: Path() for m in ("reeljudge.gemini.client", "reeljudge.gemini.wire", "reeljudge.batch", "reeljudge.batch.plan",
                                 "reeljudge.ab", "reeljudge.ab.cli")}
    assert (imported("reeljudge.gemini.client", source, known)
            == {"reeljudge.batch.plan", "reeljudge.gemini.wire", "reeljudge.ab.cli"})
    assert unit_of("reeljudge.synth.clips") == "reeljudge.synth"
    assert unit_of("reeljudge.gecko.vqa") == "reeljudge.gecko"
    assert (unit_of("reeljudge.promptfoo.clips") == "reeljudge.promptfoo.clips" and unit_of("reeljudge.promptfoo.context")
            == "reeljudge.promptfoo")
    reading = 'def grade(row):\n    """Reads testCase."""\n    return row.get("gradingResult"), f"no {row[\'testCase\']}"\n'
    assert promptfoo_keys(reading) == {"gradingResult", "testCase"}


def test_the_product_imports_no_test_support():
    """No arrow runs from the package back up into tests/ (its support, fakes or fixtures)."""
    test_names = {"tests", "conftest"} | {p.stem for p in TESTS.rglob("*.py")} | {p.name for p in TESTS.iterdir() if p.is_dir()}
    assert {"support", "fake_gemini", "test_import_graph"} <= test_names  # the support modules, the test modules, the folders
    found = sorted(
        f"{name} imports {top}" for name, path in modules().items() for top in _top_names(path) if top in test_names
    )
    assert found == []


def _top_names(path: Path) -> set[str]:
    """The first component of every absolute import in ``path``."""
    names: set[str] = set()
    for node in _nodes(path.read_text(encoding="utf-8")):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module.split(".")[0])
    return names


def _reachable(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """Module → every module it imports directly or through others."""
    out = {}
    for start in edges:
        seen, todo = set(), [start]
        while todo:
            for nxt in edges[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        out[start] = seen
    return out


#: the judges' cores: they return verdicts (reeljudge.verdict) and say who judged (reeljudge.identity), knowing nothing
#: of promptfoo
JUDGE_CORES = ("reeljudge.filmability", "reeljudge.gecko", "reeljudge.probes", "reeljudge.ab_judge", "reeljudge.library")
#: what of the wing a judge package may read: promptfoo's results files (the Gecko report, its pairs and afterAll hook)
RESULTS_FILE_READER = "reeljudge.promptfoo.results_file"


def test_no_judge_core_imports_the_promptfoo_wing():
    """A judge's core builds its verdict and who judged it without promptfoo; only a report of results
    files reads the wing's reader of them."""
    found = sorted(f"{m} imports {t}" for m, targets in graph().items()
                   if any(m == core or m.startswith(core + ".") for core in JUDGE_CORES)
                   for t in targets if (t == "reeljudge.promptfoo" or t.startswith("reeljudge.promptfoo."))
                   and t != RESULTS_FILE_READER)
    assert found == []


#: the rooms of the human A/B study (``reeljudge.ab``) and the rooms each may import: the store at the bottom, the
#: page (the app that serves it) on top; the analysis knows nothing of the server, the transport nothing of a study's
#: rules. ``reeljudge.ab`` itself (its face and ``ab.cli``) stands on them all.
AB_ROOMS: dict[str, frozenset[str]] = {
    "reeljudge.ab.store": frozenset(),
    "reeljudge.ab.study": frozenset({"reeljudge.ab.store"}),
    "reeljudge.ab.analysis": frozenset({"reeljudge.ab.store", "reeljudge.ab.study"}),
    "reeljudge.ab.transport": frozenset({"reeljudge.ab.store"}),
    "reeljudge.ab.page": frozenset({"reeljudge.ab.store", "reeljudge.ab.study", "reeljudge.ab.transport"}),
}
AB_TOP = frozenset({"reeljudge.ab", "reeljudge.ab.cli"})


def ab_room(module: str) -> str | None:
    """The room of ``reeljudge.ab`` that ``module`` lives in (None outside the rooms)."""
    return next((room for room in AB_ROOMS if module == room or module.startswith(room + ".")), None)


def test_every_ab_module_lives_in_a_room():
    """Only the face and the command stand in ``reeljudge.ab`` itself; every other module is in one of its rooms."""
    loose = sorted(m for m in modules() if m.startswith("reeljudge.ab.") and m not in AB_TOP and ab_room(m) is None)
    assert loose == []


def test_the_ab_rooms_import_only_the_rooms_below_them():
    """No room imports ``ab.cli`` or the face, nor a room it does not stand on (which also keeps them free of cycles)."""
    wrong = sorted(f"{m} imports {t}" for m, targets in graph().items() if (room := ab_room(m))
                   for t in targets if t in AB_TOP or ((other := ab_room(t)) and other != room and other not in AB_ROOMS[room]))
    assert wrong == []
    assert cycles({room: set(below) for room, below in AB_ROOMS.items()}) == []
