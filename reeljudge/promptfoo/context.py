"""What promptfoo hands a judge: the test's context, read once per call into a frozen ``TestContext``
(its label, vars as rendered and as written, the assertion's ``config:``, the provider response, the
prompt), and a Python provider's own ``config:``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

from reeljudge.errors import BadInputError

#: keys promptfoo itself reads from (or adds to) a Python provider's ``config:``; never ours
PROMPTFOO_PROVIDER_KEYS = frozenset({"basePath", "pythonExecutable", "workers", "timeout"})
_EMPTY: Mapping[str, Any] = MappingProxyType({})


def _frozen(value: Any) -> Mapping[str, Any]:
    """A read-only view of a mapping (empty for anything else)."""
    return MappingProxyType(dict(value)) if isinstance(value, Mapping) else _EMPTY


@dataclass(frozen=True)
class TestContext:
    """One assertion call's context, as promptfoo passed it.

    Attributes:
        label: a name for the test (its description, else its vars in short).
        vars: the test's vars as promptfoo rendered them (a ``file://`` video already loaded).
        written_vars: the test's vars as the test wrote them (``test.vars``: ``file://clip.mp4``).
        config: the assertion's ``config:``.
        provider_response: the provider's response (``output``, ``metadata``, ``video``, ``images`` …).
        prompt: the rendered prompt, when promptfoo passed one.
    """

    __test__ = False  # not a pytest test class, whatever its name

    label: str
    vars: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    written_vars: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    config: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    provider_response: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    prompt: str | None = None

    @classmethod
    def of(cls, context: Mapping[str, Any] | None) -> TestContext:
        """The context of one call; BadInputError when the assertion's ``config:`` is not a mapping."""
        context = context or {}
        config = context.get("config") or {}
        if not isinstance(config, Mapping):
            raise BadInputError(f"assertion config must be a mapping, got {type(config).__name__}")
        test = context.get("test")
        prompt = context.get("prompt")
        return cls(label=test_label(context), vars=_frozen(context.get("vars")),
                   written_vars=_frozen(test.get("vars") if isinstance(test, Mapping) else None),
                   config=_frozen(config), provider_response=_frozen(context.get("providerResponse")),
                   prompt=prompt if isinstance(prompt, str) else None)

    def require_var(self, name: str) -> Any:
        """The test var ``name``; a BadInputError naming the test and the var when missing or empty."""
        if name not in self.vars:
            known = ", ".join(sorted(self.vars)) or "none"
            raise BadInputError(f"test {self.label!r} has no var {name!r} (vars present: {known})")
        value = self.vars[name]
        if value is None or (isinstance(value, str) and not value.strip()):
            raise BadInputError(f"test {self.label!r}: var {name!r} is empty")
        return value

    def written(self, name: str) -> str:
        """How the test wrote var ``name`` (stripped), when it wrote a string; else empty."""
        value = self.written_vars.get(name)
        return value.strip() if isinstance(value, str) else ""


def test_label(context: Mapping[str, Any] | None) -> str:
    """A name for the test being graded: its description, else its vars in short."""
    context = context or {}
    test = context.get("test") or {}
    description = test.get("description") if isinstance(test, Mapping) else None
    if description:
        return str(description)
    vars_ = context.get("vars") or {}
    short = ", ".join(f"{k}={str(v)[:30]!r}" for k, v in list(vars_.items())[:2])
    return f"<test with {short}>" if short else "<unnamed test>"


test_label.__test__ = False  # type: ignore[attr-defined]  # not a pytest test, whatever its name


def provider_config(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """A Python provider's own ``config:`` (promptfoo's ``options.config``) without promptfoo's keys."""
    config = (options or {}).get("config") or {}
    if not isinstance(config, Mapping):
        raise BadInputError(f"provider config must be a mapping, got {type(config).__name__}")
    return {k: v for k, v in config.items() if k not in PROMPTFOO_PROVIDER_KEYS}
