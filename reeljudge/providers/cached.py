"""A team's own Python provider, cached: the same prompt, vars and provider config never call the generator twice.

promptfoo's own response cache never hits for a Python provider (its key holds the test's vars, and promptfoo adds the
eval's id to them: ``__evalId``), so a team's generator — an LLM that writes search terms, a paid video model — is
called again on every run. Decorate its entry:

    from reeljudge.providers.cached import cached_generator

    @cached_generator
    def call_api(prompt, options, context):
        ...

and each answer is kept in the judge cache (``REELJUDGE_CACHE_DIR``, mode ``REELJUDGE_CACHE``; the one cache), keyed by
the provider file's content, the function, ``version``, the prompt, the provider's ``config`` and the test's vars. A
replayed answer says so in ``metadata.cache_hit`` (what the gate counts); an answer with an ``error`` is never kept.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
from pathlib import Path
from typing import Any, Awaitable, Callable, Mapping, TypeVar, overload

from reeljudge.cache import JudgeCache, environment_cache

#: the cache entries' kind
CACHE_KIND = "generator"
#: the response metadata key that says whether the answer was replayed (the Veo provider's too)
CACHE_HIT_KEY = "cache_hit"

Entry = TypeVar("Entry", bound=Callable[..., Any])


def _source_hash(call: Callable[..., Any]) -> str:
    """The sha256 of the file that defines ``call`` (a change to the generator's code is a new answer)."""
    source = inspect.getsourcefile(inspect.unwrap(call))
    return hashlib.sha256(Path(source).read_bytes()).hexdigest() if source else ""


def generator_identity(call: Callable[..., Any], version: str, prompt: Any, options: Mapping[str, Any] | None,
                       context: Mapping[str, Any] | None) -> dict[str, Any]:
    """What identifies one generator answer: its code, ``version``, the prompt, the provider config, the test's vars
    and the repeat (``--repeat``: each repeat its own sample). promptfoo's own vars of the run (``__evalId``,
    ``__evalStepId``: new every eval, which is why promptfoo's cache never hits) are left out."""
    given = dict((context or {}).get("vars") or {})
    return {"source": _source_hash(call), "function": getattr(call, "__qualname__", repr(call)), "version": version,
            "prompt": prompt, "config": dict((options or {}).get("config") or {}), "repeat": given.get("__repeatIndex", 0),
            "vars": {k: v for k, v in given.items() if not str(k).startswith("__")}}


def _replayed(cache: JudgeCache, identity: Mapping[str, Any]) -> dict[str, Any] | None:
    """The kept answer for ``identity`` marked as replayed; None on a miss; an error answer in replay mode."""
    entry = cache.get_record(CACHE_KIND, identity)
    if entry is None:
        if cache.mode == "replay":
            return {"error": f"cache mode is 'replay' and no output of {identity['function']} is cached for this prompt, "
                             "vars and config; run once in 'readwrite' mode to record it"}
        return None
    answer = dict(entry["answer"])
    answer["metadata"] = {**(answer.get("metadata") or {}), CACHE_HIT_KEY: True}
    return answer


def _kept(cache: JudgeCache, identity: Mapping[str, Any], answer: Any) -> Any:
    """Keep a fresh answer (not one with an error), marked as not replayed."""
    if not isinstance(answer, dict):
        return answer
    if not answer.get("error"):
        cache.put_record(CACHE_KIND, identity, {"answer": answer})
    return {**answer, "metadata": {**(answer.get("metadata") or {}), CACHE_HIT_KEY: False}}


@overload
def cached_generator(call: Entry) -> Entry: ...
@overload
def cached_generator(*, version: str = "") -> Callable[[Entry], Entry]: ...
def cached_generator(call: Any = None, *, version: str = "") -> Any:
    """Cache a promptfoo Python provider entry (``call_api(prompt, options, context)``, plain or async).

    Args:
        call: the entry function (when used as ``@cached_generator``).
        version: a word to change when the answers change for a reason the provider file does not show (a model
            behind an API, a module it imports): a new version calls the generator again.
    """
    def wrap(entry: Callable[..., Any]) -> Callable[..., Any]:
        if inspect.iscoroutinefunction(entry):
            @functools.wraps(entry)
            async def cached_async(prompt: Any, options: Any = None, context: Any = None) -> Any:
                cache, identity = environment_cache(), generator_identity(entry, version, prompt, options, context)
                hit = _replayed(cache, identity)
                if hit is not None:
                    return hit
                answer: Awaitable[Any] = entry(prompt, options, context)
                return _kept(cache, identity, await answer)
            return cached_async

        @functools.wraps(entry)
        def cached(prompt: Any, options: Any = None, context: Any = None) -> Any:
            cache, identity = environment_cache(), generator_identity(entry, version, prompt, options, context)
            hit = _replayed(cache, identity)
            return hit if hit is not None else _kept(cache, identity, entry(prompt, options, context))
        return cached

    return wrap(call) if call is not None else wrap
