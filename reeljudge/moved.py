"""The promptfoo adapters' module names from before issue 29, which moved them to ``reeljudge.assertions``:
the one table the warm worker serves them by, and the one message their old modules raise when imported.
"""

from __future__ import annotations

from typing import NoReturn

#: an adapter's name before issue 29 → its module now
MOVED: dict[str, str] = {
    "reeljudge.filmability.assertion": "reeljudge.assertions.filmability",
    "reeljudge.gecko.assertion": "reeljudge.assertions.gecko",
    "reeljudge.probes.assertion": "reeljudge.assertions.video_probes",
    "reeljudge.ab_judge.assertion": "reeljudge.assertions.ab_judge",
}


def refuse_moved(name: str) -> NoReturn:
    """Raise the ImportError of an old adapter name: where the adapter went and the line to write instead."""
    new = MOVED[name]
    raise ImportError(f"{name} has moved to {new}: in your promptfoo entry file write "
                      f"`from {new} import get_assert` (what `reeljudge init` writes now)")
