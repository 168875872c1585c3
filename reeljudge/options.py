"""The one options loader: typed dataclass options from an assertion's or provider's ``config:``.

Every assertion, provider and command declares its options as a frozen dataclass whose fields are
made with :func:`option` (a default, an explanation, optionally an environment variable, choices
and bounds). :func:`load_options` fills one or more such classes from a ``config`` mapping over
``REELJUDGE_*`` environment variables over the defaults, with one coercion table for every value:

- booleans: ``true/false/yes/no/1/0`` (any case) or a YAML boolean; anything else is an error;
- integers and numbers: numbers or numeric text (a boolean is not a number);
- text: text; ``None``/``null``/empty text only where the field is optional;
- choices (a ``Literal`` type or ``choices=``): case-insensitive, checked;
- lists (``tuple[str, ...]``): a list, or comma-separated text.

A class may hold groups of options (:func:`group`: a field that is an options class of its own);
a group's keys are read as the parent's own, so the config stays flat while the object is grouped.

A key that no class declares is an error with a did-you-mean suggestion
(``unknown option 'treshold' for gecko; did you mean 'threshold'?``). Nothing is silently ignored.

An option that changes a judge's verdicts is declared so (``option(..., verdict=True)``, or
``group(..., verdict=True)`` for every option of a group): :func:`verdict_options` derives from the
declarations what a judge records of how it was configured (``reeljudge.identity``), so a gate
compares like with like and names a changed threshold; no judge lists them by hand.
"""

from __future__ import annotations

import dataclasses
import os
import types
import typing
from typing import TYPE_CHECKING, Any, Iterable, Literal, Mapping, TypeVar

from reeljudge.errors import BadInputError
from reeljudge.identity import RecordedOptions

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T", bound="DataclassInstance")  # an options class: a dataclass
_MISSING = dataclasses.MISSING
_TRUE = frozenset({"true", "yes", "1"})
_FALSE = frozenset({"false", "no", "0"})
_NULL = frozenset({"", "none", "null"})


def option(
    default: Any = _MISSING,
    *,
    doc: str,
    env: str | None = None,
    key: str | None = None,
    aliases: Iterable[str] = (),
    choices: Iterable[str] | None = None,
    minimum: float | None = None,
    maximum: float | None = None,
    verdict: bool = False,
) -> Any:
    """A dataclass field that the loader fills: its default, what it means, and how it is checked.

    Args:
        default: the value when neither config nor environment sets it.
        doc: one line saying what the option does (shown in errors and documentation).
        env: the environment variable that sets it when the config does not (``REELJUDGE_…``).
        key: the config key when it differs from the field name (e.g. ``cache`` for ``cache_mode``).
        aliases: former names still accepted for the key (giving both is an error).
        choices: the allowed text values (a ``Literal`` annotation gives them too).
        minimum: the smallest allowed number (inclusive).
        maximum: the largest allowed number (inclusive).
        verdict: the option changes the judge's verdicts (a threshold, a scoring rule, how media is sampled): the
            judge records it in who judged (:func:`verdict_options`).
    """
    metadata = {"doc": doc, "env": env, "key": key, "aliases": tuple(aliases), "choices": tuple(choices) if choices else None,
                "minimum": minimum, "maximum": maximum, "verdict": verdict}
    if isinstance(default, (list, dict, set)):
        raise TypeError("option defaults must be immutable (use a tuple)")
    return dataclasses.field(default=default, metadata=metadata)


def group(cls: type, *, doc: str, verdict: bool = False) -> Any:
    """A dataclass field holding a group of options (an options class of its own, at its defaults unless
    set): its keys are read as the parent's own, so a config stays flat (``black_min_frames: 3``) while the
    code reads it grouped (``options.black.black_min_frames``). ``verdict``: every option of the group
    changes the judge's verdicts (:func:`option`)."""
    return dataclasses.field(default_factory=cls, metadata={"doc": doc, "group": cls, "verdict": verdict})


@dataclasses.dataclass(frozen=True)
class Leaf:
    """One option of a class, its groups' options included: the path of field names down to it; ``verdict``: it
    changes the judge's verdicts (declared on the option or on a group around it)."""

    path: tuple[str, ...]
    field: dataclasses.Field
    annotation: Any
    verdict: bool = False


def leaves(cls: type) -> list[Leaf]:
    """Every option of ``cls`` in declaration order, each group's options in the group's place."""
    out: list[Leaf] = []
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        inner = f.metadata.get("group")
        if inner is None:
            out.append(Leaf((f.name,), f, hints[f.name], bool(f.metadata.get("verdict"))))
        else:
            out += [dataclasses.replace(leaf, path=(f.name, *leaf.path), verdict=leaf.verdict or bool(f.metadata.get("verdict")))
                    for leaf in leaves(inner)]
    return out


def verdict_options(*instances: Any) -> RecordedOptions:
    """What a judge records of how it was configured: of its options objects, every option declared to change
    verdicts (``verdict=True``): the ones set away from their defaults, and every one's default."""
    values: dict[str, Any] = {}
    defaults: dict[str, Any] = {}
    for instance in instances:
        if instance is None:
            continue
        for leaf in leaves(type(instance)):
            if not leaf.verdict:
                continue
            value = instance
            for name in leaf.path:
                value = getattr(value, name)
            key, default = config_key(leaf.field), _default(leaf.field)
            defaults.setdefault(key, default)
            if value != default:
                values.setdefault(key, value)
    return RecordedOptions(values, defaults)


def _default(f: dataclasses.Field) -> Any:
    """A field's declared default (a group's: its class at its defaults)."""
    if f.default is not _MISSING:
        return f.default
    return f.default_factory() if f.default_factory is not _MISSING else None


def flat_values(instance: Any) -> dict[str, Any]:
    """Every option of an options object by its config key (its groups' options among them)."""
    out: dict[str, Any] = {}
    for leaf in leaves(type(instance)):
        value = instance
        for name in leaf.path:
            value = getattr(value, name)
        out[config_key(leaf.field)] = value
    return out


def load_options(
    config: Mapping[str, Any] | None,
    *classes: type,
    owner: str,
    env: Mapping[str, str] | None = None,
) -> tuple[Any, ...]:
    """One instance of each options class, filled from ``config`` over the environment over defaults.

    The first class that declares a key owns it. BadInputError names ``owner``, the option (or the
    environment variable) and the problem: an unknown key, a value of the wrong type, a value
    outside its choices or bounds.
    """
    env = os.environ if env is None else env
    owners: dict[str, tuple[int, dataclasses.Field]] = {}
    found: dict[str, Leaf] = {}
    for index, cls in enumerate(classes):
        for leaf in leaves(cls):
            key = config_key(leaf.field)
            if key not in owners:
                owners[key], found[key] = (index, leaf.field), leaf
    config = _resolve_aliases(_mapping(config, owner), owners, owner)
    unknown = [k for k in config if k not in owners]
    if unknown:
        raise BadInputError(_unknown_message(unknown[0], owner, owners))
    values: list[dict[tuple[str, ...], Any]] = [{} for _ in classes]
    for name, (index, f) in owners.items():
        leaf = found[name]
        if name in config:
            values[index][leaf.path] = coerce(config[name], leaf.annotation, f, f"{owner} option {name!r}")
        elif f.metadata.get("env") and env.get(f.metadata["env"], "").strip():
            var = f.metadata["env"]
            values[index][leaf.path] = coerce(env[var].strip(), leaf.annotation, f, f"environment variable {var}")
    return tuple(_assemble(cls, vals, owner) for cls, vals in zip(classes, values))


def load_one(config: Mapping[str, Any] | None, cls: type[T], *, owner: str, env: Mapping[str, str] | None = None) -> T:
    """:func:`load_options` for a single class."""
    return load_options(config, cls, owner=owner, env=env)[0]


def with_value(instance: T, key: str, value: Any, *, where: str) -> T:
    """``instance`` with option ``key`` set from ``value`` (e.g. a per-test var), coerced and checked alike."""
    f = next(f for f in dataclasses.fields(instance) if config_key(f) == key)
    annotation = typing.get_type_hints(type(instance))[f.name]
    return _build(type(instance), {**{g.name: getattr(instance, g.name) for g in dataclasses.fields(instance)},
                                   f.name: coerce(value, annotation, f, where)}, where)


def config_key(f: dataclasses.Field) -> str:
    """The config key of a field (its ``key=`` if given, else its name)."""
    return f.metadata.get("key") or f.name


def describe(cls: type) -> list[dict[str, Any]]:
    """Every option of a class: key, type, default, environment variable and explanation (for docs)."""
    return [
        {"key": config_key(leaf.field), "type": _type_name(leaf.annotation), "default": leaf.field.default,
         "env": leaf.field.metadata.get("env"), "doc": leaf.field.metadata.get("doc", "")}
        for leaf in leaves(cls)
    ]


def coerce(value: Any, annotation: Any, f: dataclasses.Field | None, where: str) -> Any:
    """``value`` converted to ``annotation`` by the one coercion table; BadInputError naming ``where``."""
    meta = f.metadata if f is not None else {}
    optional, inner = _unwrap_optional(annotation)
    blank = isinstance(value, str) and value.strip().lower() in _NULL
    if value is None or (blank and (optional or inner is not str or not value.strip())):
        if optional:
            return None
        raise BadInputError(f"{where} needs a value, got {value!r}")
    converted = _convert(value, inner, where)
    choices = meta.get("choices") or _literal_choices(inner)
    if choices and isinstance(converted, str):
        lowered = converted.strip().lower()
        match = next((c for c in choices if c.lower() == lowered), None)
        if match is None:
            raise BadInputError(f"{where} must be one of {', '.join(choices)}; got {value!r}")
        converted = match
    _check_bounds(converted, meta, where, value)
    return converted


def _convert(value: Any, inner: Any, where: str) -> Any:
    """The type conversion step of :func:`coerce`."""
    origin = typing.get_origin(inner)
    if inner is bool:
        return parse_bool(value, where)
    if inner is int:
        return _to_int(value, where)
    if inner is float:
        return _to_float(value, where)
    if inner is str or origin is Literal:
        if isinstance(value, str):
            return value.strip()
        raise BadInputError(f"{where} must be text, got {type(value).__name__} {value!r}")
    if origin is tuple:
        items = [v.strip() for v in value.split(",") if v.strip()] if isinstance(value, str) else value
        if not isinstance(items, (list, tuple)):
            raise BadInputError(f"{where} must be a list, got {value!r}")
        item_type = (typing.get_args(inner) or (str,))[0]
        return tuple(coerce(v, item_type, None, f"{where} item {i + 1}") for i, v in enumerate(items))
    if origin in (dict, Mapping) or inner is dict:
        if not isinstance(value, Mapping):
            raise BadInputError(f"{where} must be a mapping, got {value!r}")
        return dict(value)
    return value


def parse_bool(value: Any, where: str) -> bool:
    """``true/false/yes/no/1/0`` (any case) or a boolean; BadInputError for anything else."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise BadInputError(f"{where} must be true or false (or yes/no, 1/0), got {value!r}")


def _to_int(value: Any, where: str) -> int:
    if isinstance(value, bool):
        raise BadInputError(f"{where} must be a whole number, got {value!r}")
    if isinstance(value, float) and value.is_integer():
        return int(value)
    try:
        return int(str(value).strip()) if not isinstance(value, int) else value
    except ValueError:
        raise BadInputError(f"{where} must be a whole number, got {value!r}") from None


def _to_float(value: Any, where: str) -> float:
    if isinstance(value, bool):
        raise BadInputError(f"{where} must be a number, got {value!r}")
    try:
        number = float(value if isinstance(value, (int, float)) else str(value).strip())
    except ValueError:
        raise BadInputError(f"{where} must be a number, got {value!r}") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise BadInputError(f"{where} must be a finite number, got {value!r}")
    return number


def _check_bounds(converted: Any, meta: Mapping[str, Any], where: str, raw: Any) -> None:
    if not isinstance(converted, (int, float)) or isinstance(converted, bool):
        return
    low, high = meta.get("minimum"), meta.get("maximum")
    if low is not None and converted < low:
        raise BadInputError(f"{where} must be at least {low:g}, got {raw!r}")
    if high is not None and converted > high:
        raise BadInputError(f"{where} must be at most {high:g}, got {raw!r}")


def _unwrap_optional(annotation: Any) -> tuple[bool, Any]:
    """(is optional, the non-None type) of an annotation like ``float | None``."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        optional = len(args) < len(typing.get_args(annotation))
        return optional, args[0] if len(args) == 1 else annotation
    return False, annotation


def _literal_choices(inner: Any) -> tuple[str, ...] | None:
    if typing.get_origin(inner) is Literal:
        return tuple(str(a) for a in typing.get_args(inner))
    return None


def _type_name(annotation: Any) -> str:
    optional, inner = _unwrap_optional(annotation)
    choices = _literal_choices(inner)
    name = " | ".join(choices) if choices else getattr(inner, "__name__", str(inner))
    return f"{name} or null" if optional else name


def _mapping(config: Any, owner: str) -> dict[str, Any]:
    if config is None:
        return {}
    if not isinstance(config, Mapping):
        raise BadInputError(f"{owner} config must be a mapping of options, got {type(config).__name__}")
    return {str(k): v for k, v in config.items()}


def _resolve_aliases(config: dict[str, Any], owners: Mapping[str, tuple[int, dataclasses.Field]], owner: str) -> dict[str, Any]:
    """``config`` with former option names replaced by their current key."""
    for key, (_, f) in owners.items():
        for alias in f.metadata.get("aliases") or ():
            if alias in config:
                if key in config:
                    raise BadInputError(f"{owner} options {alias!r} and {key!r} are the same option; give only {key!r}")
                config[key] = config.pop(alias)
    return config


#: option names that mean the same thing in different judges (the var naming the clip: ``var`` for the
#: probes, ``media_var`` for Gecko and the A/B judge); one given where another is the option suggests it
SAME_MEANING: tuple[frozenset[str], ...] = (frozenset({"var", "clip_var", "media_var"}),)


def _unknown_message(key: str, owner: str, owners: Mapping[str, tuple[int, dataclasses.Field]]) -> str:
    """``unknown option 'treshold' for gecko; did you mean 'threshold'?`` (field names count as near misses too,
    and so do the names of :data:`SAME_MEANING`)."""
    by_name = {f.name: k for k, (_, f) in owners.items()}
    if key in by_name:
        return f"unknown option {key!r} for {owner}; did you mean {by_name[key]!r}?"
    same = next((k for group in SAME_MEANING if key in group for k in sorted(group) if k in owners), None)
    if same is not None:
        return f"unknown option {key!r} for {owner}; did you mean {same!r}?"
    import difflib  # here: only a bad option needs it

    close = difflib.get_close_matches(key, [*owners, *by_name], n=1, cutoff=0.6)
    hint = f"; did you mean {by_name.get(close[0], close[0])!r}?" if close else f" (known options: {', '.join(sorted(owners))})"
    return f"unknown option {key!r} for {owner}{hint}"


def _assemble(cls: type[T], values: Mapping[tuple[str, ...], Any], owner: str) -> T:
    """The instance from values by path (:class:`Leaf`), each group built from its own values."""
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        inner = f.metadata.get("group")
        if inner is not None:
            kwargs[f.name] = _assemble(inner, {path[1:]: v for path, v in values.items() if path[0] == f.name}, owner)
        elif (f.name,) in values:
            kwargs[f.name] = values[(f.name,)]
    return _build(cls, kwargs, owner)


def _build(cls: type[T], values: dict[str, Any], owner: str) -> T:
    """The instance; a ValueError from its own checks becomes BadInputError naming the owner."""
    try:
        return cls(**values)
    except BadInputError:
        raise
    except (TypeError, ValueError) as error:
        raise BadInputError(f"{owner} options: {error}") from None
