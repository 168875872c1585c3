"""The one reader of promptfoo's results files (``promptfoo eval -o results.json``), for the gates,
``ab import`` and the Gecko reports and pairs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from reeljudge.errors import BadInputError


def read_results_document(path: str | Path) -> dict[str, Any]:
    """A whole promptfoo results file (``promptfoo eval -o results.json``: ``results.results`` plus
    ``config``, ``metadata``, ``evalId``); BadInputError naming the file when it is unreadable,
    truncated or not promptfoo's."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as error:
        raise BadInputError(f"{p}: cannot read ({error.strerror or error})") from None
    except UnicodeDecodeError as error:
        raise BadInputError(f"{p}: cannot read (not UTF-8 text: {error.reason})") from None
    try:
        data = json.loads(text)
    except ValueError as error:
        raise BadInputError(f"{p}: not valid JSON (truncated?): {error}") from None
    results = data.get("results") if isinstance(data, Mapping) else None
    rows = results.get("results") if isinstance(results, Mapping) else results
    if not isinstance(rows, list) or not all(isinstance(r, Mapping) for r in rows):
        found = f"top-level keys: {', '.join(sorted(map(str, data))[:8]) or 'none'}" if isinstance(data, Mapping) else (
            f"the top level is a {type(data).__name__}")
        raise BadInputError(f"{p}: not a promptfoo results file (no results.results list; {found})")
    return data


def read_results_file(path: str | Path) -> list[dict[str, Any]]:
    """The per-test rows of a promptfoo results file (see ``read_results_document``)."""
    data = read_results_document(path)
    results = data["results"]
    rows = results.get("results") if isinstance(results, Mapping) else results
    return [dict(r) for r in rows]


def provider_label(provider: Any) -> str:
    """The name of a result row's ``provider`` (its label, else its id; a bare string as it is)."""
    if isinstance(provider, Mapping):
        return str(provider.get("label") or provider.get("id") or "")
    return str(provider or "")
