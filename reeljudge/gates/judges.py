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
from typing import TYPE_CHECKING, Iterable

from reeljudge.gates.results import CannotCompare
from reeljudge.identity import LOCAL_ENGINE, PROBES_ENGINE, RecordedIdentity

if TYPE_CHECKING:
    from reeljudge.gates.units import Unit


def describe(identity_json: str) -> str:
    """A reader's name for one judge identity: ``gemini-2.5-flash (filmability, rubric 1a2b…)``, ``the offline judge (…)``."""
    identity = RecordedIdentity.parse(identity_json)
    judge, engine = identity.judge, identity.engine
    version = f", version {identity.version}" if identity.version else ""
    if engine == LOCAL_ENGINE:
        return f"the offline judge ({judge}{version})"
    if engine == PROBES_ENGINE:
        return f"the video probes ({judge}{version})"
    return f"{identity.model or engine} ({judge}{version})"


def _names(identities: Iterable[str]) -> str:
    return " and ".join(describe(i) for i in sorted(identities)) or "nothing"


def judge_difference(base: set[str], candidate: set[str]) -> str | None:
    """Why two runs' judges differ (None when they are the same, or when either run records none)."""
    if not base or not candidate or base == candidate:
        return None
    base_names, cand_names = _names(base), _names(candidate)
    if base_names != cand_names:
        return f"baseline judged by {base_names}, candidate by {cand_names}: not comparable"
    return (f"the judge's options differ (baseline {'; '.join(sorted(_options(base)))}, candidate "
            f"{'; '.join(sorted(_options(candidate)))}): not comparable")


def _options(identities: set[str]) -> set[str]:
    return {json.dumps(dict(RecordedIdentity.parse(i).options), sort_keys=True) for i in identities}


def check_judges(name: str, base: Iterable["Unit"], cand: Iterable["Unit"], on_change: str, notes: list[str]) -> list[str]:
    """Per group, the judges of the judged tests of both runs: CannotCompare when they differ (with
    ``on_judge_change: refuse``), else the flags to report; a run that records none is noted."""
    judges: dict[str, tuple[set[str], set[str]]] = defaultdict(lambda: (set(), set()))
    for side, units in ((0, base), (1, cand)):
        for unit in units:
            if unit.judged:
                judges[unit.group][side].update(unit.judges)
    flags = []
    for group, (b, c) in sorted(judges.items()):
        why = judge_difference(b, c)
        if why is None:
            if bool(b) != bool(c):
                notes.append(f"{group}: the {'base' if not b else 'candidate'} records no judge identity; judges not checked")
            continue
        if on_change == "refuse":
            raise CannotCompare(f"{name} · {group}: {why}")
        flags.append(f"{group}: {why} (on_judge_change: flag)")
    return flags
