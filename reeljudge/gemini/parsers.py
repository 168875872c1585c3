"""Named reply parsers: a parse function that can be rebuilt in another process from its name and
JSON arguments.

``JudgeClient.ask(request, parse)`` reads the judge's reply with ``parse``. Online, any callable
does. A request planned for the Batch API is answered later, in another process
(``reeljudge batch collect``), and its reply must go through the very same reader: so a judge
declares its parse functions with :func:`reply_parser`, and the plan records the parser's
identity (``{"name", "module", "args"}``), from which :func:`rebuild` makes the same function again.

Declaring one::

    @reply_parser("gecko.filter", encode=questions_to_json, decode=questions_from_json)
    def filter_parser(questions: list[Question]) -> Callable[[str], Any]: ...

``encode`` turns the factory's keyword arguments into JSON-able ones, ``decode`` back (both
default to the identity, for factories whose arguments are JSON already).
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from typing import Any, Callable, Mapping

Parse = Callable[[str], Any]
Codec = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class _Factory:
    make: Callable[..., Parse]
    module: str
    encode: Codec
    decode: Codec


_FACTORIES: dict[str, _Factory] = {}


@dataclass(frozen=True)
class NamedParser:
    """A parse function with the identity it can be rebuilt from."""

    name: str
    module: str
    args: dict[str, Any]
    parse: Parse

    def __call__(self, text: str) -> Any:
        return self.parse(text)

    def identity(self) -> dict[str, Any]:
        """What a plan records: name, declaring module, JSON arguments."""
        return {"name": self.name, "module": self.module, "args": self.args}


def reply_parser(name: str, *, encode: Codec | None = None, decode: Codec | None = None) -> Callable[[Callable[..., Parse]],
                                                                                                     Callable[..., NamedParser]]:
    """Declare a parser factory under ``name``; what it makes carries its identity (see module doc)."""

    def declare(make: Callable[..., Parse]) -> Callable[..., NamedParser]:
        signature = inspect.signature(make)
        factory = _Factory(make, make.__module__, encode or _same, decode or _same)
        if name in _FACTORIES and _FACTORIES[name].module != factory.module:
            raise ValueError(f"reply parser {name!r} is declared twice ({_FACTORIES[name].module}, {factory.module})")
        _FACTORIES[name] = factory

        def build(*args: Any, **kwargs: Any) -> NamedParser:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            arguments = dict(bound.arguments)
            return NamedParser(name, factory.module, factory.encode(arguments), make(**arguments))

        build.__doc__ = make.__doc__
        build.__name__ = make.__name__
        build.parser_name = name  # type: ignore[attr-defined]
        return build

    return declare


def identity_of(parse: Callable[[str], Any]) -> dict[str, Any] | None:
    """The identity of a named parser, or None for a plain function (which cannot be rebuilt)."""
    return parse.identity() if isinstance(parse, NamedParser) else None


def rebuild(identity: Mapping[str, Any]) -> NamedParser:
    """The parser an identity names, made again; ValueError when it cannot be."""
    name, module = str(identity.get("name", "")), str(identity.get("module", ""))
    if not module.startswith("reeljudge.") and module != "reeljudge":
        raise ValueError(f"reply parser {name!r}: module {module!r} is not part of reeljudge; refusing to import it")
    if name not in _FACTORIES:
        try:
            importlib.import_module(module)
        except ImportError as error:
            raise ValueError(f"reply parser {name!r}: cannot import {module} ({error})") from None
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ValueError(f"no reply parser named {name!r} is declared in {module}")
    args = dict(identity.get("args") or {})
    return NamedParser(name, factory.module, args, factory.make(**factory.decode(args)))


def _same(arguments: dict[str, Any]) -> dict[str, Any]:
    return arguments
