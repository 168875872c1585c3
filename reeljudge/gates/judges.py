"""Like with like: who judged each run, read from the results, and whether two runs are comparable.

Every reeljudge judge records ``metadata.judge_identity`` (judge, engine, model, rubric/protocol
version, the options that change verdicts; ``reeljudge.identity.judge_identity``). Two runs whose
tests in one group were judged by different identities measure different things: a drop may be
the judge's, not the pipeline's. Results without identities (other assertions, or results written
before identities were recorded) cannot be checked; that is noted, not refused.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from reeljudge.gates.results import CannotCompare
from reeljudge.identity import LOCAL_ENGINE, PROBES_ENGINE, RecordedIdentity

if TYPE_CHECKING:
    from reeljudge.gates.units import Unit


def describe(identity_json: str, options: bool = False) -> str:
    """A reader's name for one judge identity: ``gemini-2.5-flash (filmability, rubric 1a2b…)``, ``the offline judge (…)``
    (``options``: with the verdict options set away from their defaults, ``…, threshold 0.5)``)."""
    identity = RecordedIdentity.parse(identity_json)
    judge, engine = identity.judge, identity.engine
    version = f", version {identity.version}" if identity.version else ""
    if options:
        version += "".join(f", {key} {_text(value)}" for key, value in sorted(identity.options.items()))
    if engine == LOCAL_ENGINE:
        return f"the offline judge ({judge}{version})"
    if engine == PROBES_ENGINE:
        return f"the video probes ({judge}{version})"
    return f"{identity.model or engine} ({judge}{version})"


def _names(identities: Iterable[str]) -> str:
    return " and ".join(describe(i) for i in sorted(identities)) or "nothing"


class OptionsChanged(CannotCompare):
    """The same judges with other options that change verdicts (a threshold lowered): never compared, named.

    ``changes``: ``(judge, option, base value, candidate value)`` each."""

    def __init__(self, named: str, changes: list[tuple[str, str, Any, Any]]) -> None:
        super().__init__(f"{named}: the judge's options changed, so its verdicts are not comparable (a pull request "
                         "that means it says so in the gate file: accept_option_changes)")
        self.named, self.changes = named, changes


def _defaults(identities: Iterable[RecordedIdentity]) -> dict[str, Mapping[str, Any]]:
    """Per judge, the declared defaults of its verdict options (from any identity that records them)."""
    found: dict[str, Mapping[str, Any]] = {}
    for identity in identities:
        if identity.defaults is not None:
            found.setdefault(identity.judge, identity.defaults)
    return found


def _text(value: Any) -> str:
    """An option value as a reader writes it (``0.5``, ``hard``, ``none``, ``[pexels, pixabay]``)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_text(v) for v in value) + "]"
    return f"{value:g}" if isinstance(value, float) else str(value)


def option_changes(base: set[str], candidate: set[str]) -> list[tuple[str, str, Any, Any]]:
    """``(judge, option, base value, candidate value)`` for every verdict option whose value differs between two runs'
    identities of the same judge (an option a run does not record had its default)."""
    parsed = [[RecordedIdentity.parse(i) for i in side] for side in (base, candidate)]
    defaults = _defaults([*parsed[1], *parsed[0]])
    changes: list[tuple[str, str, Any, Any]] = []
    for judge in sorted({i.judge for i in parsed[0]} & {i.judge for i in parsed[1]}):
        sides = [[i for i in side if i.judge == judge] for side in parsed]
        keys = sorted({k for side in sides for i in side for k in i.without_defaults(defaults.get(judge)).options})
        for key in keys:
            b, c = ({json.dumps(i.option(key, defaults.get(judge)), sort_keys=True) for i in side} for side in sides)
            if b != c:
                before, after = ([json.loads(v) for v in sorted(x)] for x in (b, c))
                changes.append((judge, key, before[0] if len(before) == 1 else before, after[0] if len(after) == 1 else after))
    return changes


def _same(base: set[str], candidate: set[str]) -> bool:
    """Whether two runs' identities are the same judges with the same options (an option recorded at its default
    counts as not set: identities recorded before their defaults were recorded some that way)."""
    parsed = [[RecordedIdentity.parse(i) for i in side] for side in (base, candidate)]
    defaults = _defaults([*parsed[1], *parsed[0]])
    keys = [{i.without_defaults(defaults.get(i.judge)).key() for i in side} for side in parsed]
    return keys[0] == keys[1]


def judge_difference(base: set[str], candidate: set[str]) -> str | None:
    """Why two runs' judges differ (None when they are the same, or when either run records none)."""
    if not base or not candidate or _same(base, candidate):
        return None
    base_names, cand_names = _names(base), _names(candidate)
    if base_names != cand_names:
        return f"baseline judged by {base_names}, candidate by {cand_names}: not comparable"
    changes = option_changes(base, candidate)
    if changes:
        return change_text(changes)
    return (f"the judge's options differ (baseline {'; '.join(sorted(_options(base)))}, candidate "
            f"{'; '.join(sorted(_options(candidate)))}): not comparable")


def change_text(changes: list[tuple[str, str, Any, Any]]) -> str:
    """``filmability: threshold 0.8 → 0.5, min_relevance 1 → 0`` (judge by judge)."""
    by_judge: dict[str, list[str]] = defaultdict(list)
    for judge, key, before, after in changes:
        by_judge[judge].append(f"{key} {_text(before)} → {_text(after)}")
    return "; ".join(f"{judge}: {', '.join(moved)}" for judge, moved in by_judge.items())


def _options(identities: set[str]) -> set[str]:
    return {json.dumps(dict(RecordedIdentity.parse(i).options), sort_keys=True) for i in identities}


def check_judges(name: str, base: Iterable["Unit"], cand: Iterable["Unit"], on_change: str, notes: list[str]) -> list[str]:
    """Per group, the judges of the judged tests of both runs: when they differ, CannotCompare (with
    ``on_judge_change: refuse``; OptionsChanged, naming each option, when only verdict options moved), else the
    flags to report; a run that records none is noted."""
    judges: dict[str, tuple[set[str], set[str]]] = defaultdict(lambda: (set(), set()))
    for side, units in ((0, base), (1, cand)):
        for unit in units:
            if unit.judged:
                judges[unit.group][side].update(unit.judges)
    flags, changed, moved = [], [], []
    for group, (b, c) in sorted(judges.items()):
        why = judge_difference(b, c)
        if why is None:
            if bool(b) != bool(c):
                notes.append(f"{group}: the {'base' if not b else 'candidate'} records no judge identity; judges not checked")
            continue
        where = f"{name}" + (f" · {group}" if len(judges) > 1 else "")
        changes = option_changes(b, c) if _names(b) == _names(c) else []
        if changes:
            changed.append(f"{change_text(changes)} in {where}")
            moved += [ch for ch in changes if ch not in moved]
        elif on_change == "refuse":
            raise CannotCompare(f"{name} · {group}: {why}")
        else:
            flags.append(f"{group}: {why} (on_judge_change: flag)")
    if changed and on_change == "refuse":
        raise OptionsChanged("; ".join(changed), moved)
    return flags + [f"{text} (on_judge_change: flag)" for text in changed]
