"""The offline judge's cache key changes whenever what its code means or its data change (a recorded digest
guards it), and only then: comments, docstrings, type annotations and line wrapping are not part of it."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

from reeljudge.filmability import local_version
from reeljudge.filmability.local_version import SOURCES, code_meaning, sources_digest

HERE = Path(local_version.__file__).resolve().parent

MODULE = '''"""A module."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from pathlib import Path

LIMIT = 3.65  # the cut


def pick(words: list[str], limit: float = LIMIT) -> list[str]:
    """The words over the limit."""
    return [w for w in words if len(w) > limit]
'''


def test_recorded_sources_digest_matches_the_code() -> None:
    actual = sources_digest()
    assert actual == local_version.SOURCES_SHA256, (
        f"the offline filmability judge changed: bump LOCAL_JUDGE_VERSION and set SOURCES_SHA256 = {actual!r} "
        "in reeljudge/filmability/local_version.py, so cached verdicts of the old judge are not replayed "
        "(no bump while the version is new in this round)"
    )


def test_comments_docstrings_annotations_and_wrapping_do_not_change_the_meaning() -> None:
    same = [
        MODULE.replace("# the cut", "# where concrete starts"),
        MODULE.replace('"""The words over the limit."""', '"""Each word longer than ``limit``."""'),
        MODULE.replace('"""A module."""\n', ""),
        MODULE.replace("[w for w in words if len(w) > limit]", "[\n        w for w in words\n        if len(w) > limit\n    ]"),
        MODULE.replace("words: list[str], limit: float = LIMIT) -> list[str]",
                       "words: Any,\n         limit: float | int = LIMIT,\n         ) -> list[Any]"),
        MODULE.replace("return [w for", "return cast(list[str], [w for").replace("> limit]", "> limit])"),
        MODULE.replace("    from pathlib import Path", "    from pathlib import Path, PurePath"),
        MODULE.replace("LIMIT = 3.65", "LIMIT: float = 3.65"),
        MODULE.replace("    return [w", "    kept: list[str]\n    return [w"),
        MODULE + "\n\nclass Sized(Protocol):\n    size: int\n",
    ]
    for edited in same:
        assert edited != MODULE
        assert code_meaning(edited) == code_meaning(MODULE), edited


def test_a_changed_constant_rule_or_import_changes_the_meaning() -> None:
    changed = [
        MODULE.replace("LIMIT = 3.65", "LIMIT = 3.7"),
        MODULE.replace("len(w) > limit", "len(w) >= limit"),
        MODULE.replace("from typing import", "from pathlib import Path\nfrom typing import"),
        MODULE.replace('"""The words over the limit."""', 'print("The words over the limit.")'),
    ]
    for edited in changed:
        assert code_meaning(edited) != code_meaning(MODULE), edited


def test_the_else_of_a_type_checking_block_is_kept_as_its_statements() -> None:
    block = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import numpy\n"
             "else:\n    from typing import Any\n    x = 1\n")
    assert code_meaning(block) == code_meaning("x = 1\n")
    assert code_meaning(block.replace("x = 1", "x = 2")) != code_meaning(block)


def test_a_dataclass_field_kind_stays_part_of_the_meaning() -> None:
    fields = "from dataclasses import dataclass\n\n@dataclass\nclass A:\n    x: int = 0\n"
    assert code_meaning(fields.replace("x: int", "x: float")) == code_meaning(fields)
    assert code_meaning(fields.replace("x: int", "x: ClassVar[int]")) != code_meaning(fields)
    assert code_meaning(fields.replace("x: int = 0", "x = 0")) != code_meaning(fields)
    checked = "@runtime_checkable\nclass Sized(Protocol):\n    size: int\n"
    assert code_meaning(checked.replace("size", "length")) != code_meaning(checked)


def test_the_digest_of_a_copy_survives_comments_and_docstrings_and_changes_with_a_constant(tmp_path: Path) -> None:
    root = tmp_path / "filmability"
    for name in SOURCES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(HERE / name, root / name)
    assert sources_digest(root) == sources_digest()
    heads, lexicon = root / "heads.py", root / "lexicon.py"
    heads.write_text(heads.read_text(encoding="utf-8").replace('"""The syntactic head of a search term',
                                                               '"""# a note\nThe head of a search term', 1),
                     encoding="utf-8")
    text = lexicon.read_text(encoding="utf-8")
    assert "DEFAULT_THRESHOLD = 3.65\n" in text
    lexicon.write_text(text.replace("DEFAULT_THRESHOLD = 3.65\n", "DEFAULT_THRESHOLD = (\n    3.65  # a comment\n)\n"),
                       encoding="utf-8")
    assert sources_digest(root) == sources_digest()
    lexicon.write_text(text.replace("DEFAULT_THRESHOLD = 3.65\n", "DEFAULT_THRESHOLD = 3.6\n"), encoding="utf-8")
    assert sources_digest(root) != sources_digest()
    lexicon.write_text(text, encoding="utf-8")
    data = root / SOURCES[-1]
    data.write_text(data.read_text(encoding="utf-8") + "one more narration\n", encoding="utf-8")
    assert sources_digest(root) != sources_digest()


def _package_imports(path: Path) -> set[str]:
    """The modules of reeljudge.filmability a source imports (at its top or inside a function)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "reeljudge.filmability":
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("reeljudge.filmability."):
            found.add(node.module.rsplit(".", 1)[1])
    return found


def test_sources_are_the_offline_judge_and_what_it_imports_from_its_package() -> None:
    closure, todo = set(), ["judge_local"]
    while todo:
        name = todo.pop()
        if name not in closure:
            closure.add(name)
            todo.extend(_package_imports(HERE / f"{name}.py"))
    listed = {name.removesuffix(".py") for name in SOURCES if name.endswith(".py")}
    assert listed == closure, f"missing from SOURCES: {sorted(closure - listed)}; not imported: {sorted(listed - closure)}"
