"""The offline filmability judge's version, part of its cache key (so a changed judge never replays old
verdicts) without reading its source files on every call.

**What its identity is made of.** ``SOURCES_SHA256`` is :func:`sources_digest`: what the code of
``SOURCES`` means (:func:`code_meaning`: the parsed code without comments, docstrings, type annotations,
``typing`` imports, ``cast`` wrappers, ``Protocol`` classes and ``if TYPE_CHECKING:`` blocks, and without line
numbers, so line wrapping is not part of it) plus its data files' bytes. Comments, docstrings, type fixes and
re-wrapped lines never give the judge a new identity; a changed constant, rule or data line does. Types are
left out because Python does not run them here (the modules postpone annotations, nothing reads them back,
and a protocol that is not runtime-checkable is only a type), except where a dataclass reads them: an
annotated name in a class body stays a field, and a ``ClassVar`` or ``InitVar`` annotation is kept.

**Which code.** ``SOURCES`` is every module of this package that the offline judge's reply is computed by:
``judge_local`` and what it imports from ``reeljudge.filmability``, among them ``score_table`` (its
``Breakdown`` and the answer words ``related``/``off-topic``/``unsure`` are the cached reply's shape);
``tests/filmability/test_local_judge_version.py`` holds that the list and the imports agree. The rules that
act around the cached reply are not: ``repeats`` runs before it (the distinct terms it leaves are the cache
key's own terms), ``text_kind`` refuses a narration before any verdict, and the ``unsure`` and
``repeated_terms`` rules of ``judge`` act on the cached reply on every call, under options the verdict's
identity records (``reeljudge.options.verdict_options``); the repeat cap in ``score_table`` is hashed with
the rest of that module, which costs only a recomputed reply when it changes. Modules outside this package
(``reeljudge.cache``, ``errors``, ``atomic``, ``package_data``) store, raise and find files; they decide no
verdict.

``tests/filmability/test_local_judge_version.py`` computes the digest and fails, with the new value to
record, whenever it changes: then bump ``LOCAL_JUDGE_VERSION`` (unless the version is new in this round)
and set ``SOURCES_SHA256``.
"""

from __future__ import annotations

import ast
from pathlib import Path

#: files (paths from reeljudge/filmability/) whose content decides the offline judge's verdicts
SOURCES: tuple[str, ...] = (
    "judge_local.py", "lexicon.py", "concreteness_overrides.py", "embeddings.py",
    "term_reading.py", "heads.py", "senses.py", "relevance.py", "background.py", "score_table.py",
    "../data/background_narrations.txt",
)
#: the offline judge's version, bumped whenever SOURCES change its verdicts (each version's change: docs/decisions.md)
LOCAL_JUDGE_VERSION = 12
SOURCES_SHA256 = "91d90a029333cc63"

#: modules whose imports only name types (their names matter only where the code uses them, which is kept)
TYPING_MODULES = frozenset({"__future__", "typing", "typing_extensions", "collections.abc"})
#: annotations that change what a dataclass is, so they stay part of the meaning
RUNTIME_ANNOTATIONS = frozenset({"ClassVar", "InitVar"})


def sources_digest(here: Path | None = None) -> str:
    """The offline judge's identity as ``SOURCES_SHA256`` records it: the meaning of each Python source of
    ``SOURCES`` and the bytes of each data file, with their names, hashed (16 hex digits); ``here``: the folder
    the paths start from (this package's, unless given)."""
    import hashlib

    here = here or Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for name in SOURCES:
        path = here / name
        content = code_meaning(path.read_text(encoding="utf-8")).encode() if name.endswith(".py") else path.read_bytes()
        digest.update(name.encode() + b"\0" + content + b"\0")
    return digest.hexdigest()[:16]


def code_meaning(source: str) -> str:
    """What a Python module's code means, as text: its syntax tree without docstrings and other bare strings,
    ``pass``, type annotations, ``typing`` imports, ``cast`` wrappers, ``Protocol`` classes, ``if TYPE_CHECKING:``
    blocks and positions. Empty fields are left out, so a Python release that adds an optional field reads the same."""
    return _dump(_Meaning().visit(ast.parse(source)))


class _Meaning(ast.NodeTransformer):
    """Removes from a syntax tree what does not change what the code does."""

    def __init__(self) -> None:
        self.in_class = False

    def generic_visit(self, node: ast.AST) -> ast.AST:
        """Drops bare strings and ``pass`` from every statement list (docstrings among them)."""
        super().generic_visit(node)
        for field in ("body", "orelse", "finalbody"):
            statements = getattr(node, field, None)
            if isinstance(statements, list):
                setattr(node, field, [s for s in statements if not _is_no_op(s)])
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST | None:
        """A class; a ``Protocol`` (not runtime-checkable) is a type only, like an annotation, and is left out."""
        if any(_names(b).rpartition(".")[2] == "Protocol" for b in node.bases) and not any(
                "runtime_checkable" in _names(d) for d in node.decorator_list):
            return None
        return self._within(node, in_class=True)

    def _within(self, node: ast.AST, in_class: bool) -> ast.AST:
        """``node`` visited inside a class body (``in_class``) or a function's."""
        outer, self.in_class = self.in_class, in_class
        try:
            return self.generic_visit(node)
        finally:
            self.in_class = outer

    def visit_If(self, node: ast.If) -> ast.AST | list[ast.stmt]:
        """``if TYPE_CHECKING:`` runs only for the type checker: what remains is its ``else``."""
        if _names(node.test) in {"TYPE_CHECKING", "typing.TYPE_CHECKING"}:
            kept: list[ast.stmt] = []
            for statement in node.orelse:
                visited = self.visit(statement)
                kept.extend(visited if isinstance(visited, list) else [visited] if visited is not None else [])
            return [s for s in kept if not _is_no_op(s)]
        return self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST | None:
        """``from typing import …`` (and its kin) binds names whose use is kept where they are used."""
        return None if node.module in TYPING_MODULES else node

    def visit_Import(self, node: ast.Import) -> ast.AST | None:
        """``import typing`` (and its kin), likewise."""
        return None if all(alias.name in TYPING_MODULES for alias in node.names) else node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        """An argument without its annotation."""
        node.annotation = None
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        """A function without its return annotation."""
        node.returns = None
        return self._within(node, in_class=False)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        """An async function without its return annotation."""
        node.returns = None
        return self._within(node, in_class=False)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST | None:
        """Outside a class body an annotated assignment is an assignment (and a bare annotation nothing); in a class
        body it keeps its place (a dataclass field) and value, not its type, unless the type is one a dataclass
        reads (``ClassVar``, ``InitVar``)."""
        if not self.in_class:
            return None if node.value is None else self.visit(ast.Assign(targets=[node.target], value=node.value))
        if not RUNTIME_ANNOTATIONS & {_names(n).rpartition(".")[2] for n in ast.walk(node.annotation)}:
            node.annotation = ast.Constant("annotation")
        return self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        """``cast(T, value)`` is ``value``."""
        if _names(node.func) in {"cast", "typing.cast"} and len(node.args) == 2 and not node.keywords:
            return self.visit(node.args[1])
        return self.generic_visit(node)


def _is_no_op(statement: ast.AST) -> bool:
    """Whether a statement does nothing: ``pass`` or a bare string (a docstring)."""
    return isinstance(statement, ast.Pass) or (
        isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str))


def _names(node: ast.AST) -> str:
    """The dotted name a node spells (``typing.cast``), or an empty string when it spells none."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _names(node.value)
        return f"{head}.{node.attr}" if head else ""
    return ""


def _dump(value: object) -> str:
    """A syntax tree as text: each node's type and its non-empty fields, no positions."""
    if isinstance(value, ast.AST):
        fields = ((name, getattr(value, name, None)) for name in value._fields)
        inner = ", ".join(f"{name}={_dump(v)}" for name, v in fields if v is not None and v != [])
        return f"{type(value).__name__}({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(_dump(v) for v in value) + "]"
    return repr(value)
