"""promptfoo extension: after the eval, write the Gecko pair check (matched above counter-prompt).

In a config: ``extensions: [file://reeljudge/gecko/extension.py:after_all]``. promptfoo does not
show an extension's output, so the report goes to ``REELJUDGE_GECKO_PAIRS_REPORT`` (default
``.reeljudge/gecko-pairs.txt``) and to stderr (seen with ``--verbose``). It only reports: a hook that
raised would lose the run's results. Gate on ``reeljudge gecko check-pairs results.json``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Mapping

DEFAULT_REPORT = ".reeljudge/gecko-pairs.txt"


def after_all(hook_name: str, context: Mapping[str, Any]) -> None:
    """promptfoo hook: on ``afterAll``, write the pair report."""
    if hook_name != "afterAll":
        return None
    try:  # promptfoo loads this file as a script: absolute imports only; never let a report break the run
        from reeljudge.gecko.pairs import check_pairs, rows_from_results
        from reeljudge.promptfoo.results_file import hook_rows

        report = check_pairs(rows_from_results(hook_rows(context)))
        lines = report.lines()
    except Exception as error:  # noqa: BLE001
        lines = [f"gecko pair check could not run: {type(error).__name__}: {error}"]
    text = "\n".join(lines) + "\n"
    print(text, file=sys.stderr, end="")
    from reeljudge.environment import gecko_environment

    target = Path(gecko_environment().pairs_report or DEFAULT_REPORT)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    except OSError:
        pass
    return None
