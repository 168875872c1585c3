"""The human A/B protocol: protocol data, judgement records, store, QC, rating server, report.

Public API for other parts of reeljudge (e.g. a model judge writing records as a rater, or
calibration reading the store)::

    from reeljudge.ab import Workspace, build_record, validate_record, Judgement, agreement_with_majority

- ``Workspace(folder)``: ``.store`` (``Store``: ``samples()``, ``judgements()``, ``append_judgement()``),
  ``.clips`` (clip files by content hash), ``.protocol``.
- ``build_record(...)``: a schema-checked record from a verdict in side terms; a model rater
  passes ``rater_kind="model"``, ``model=...`` and ``extra={"inconsistent": ..., "judge": {...}}``.
- ``agreement_with_majority(records, rater)``: the rater against the human majority.
"""

from __future__ import annotations

from typing import Any

_EXPORTS = {
    "Workspace": "reeljudge.ab.study.workspace",
    "Store": "reeljudge.ab.store.store",
    "Sample": "reeljudge.ab.store.samples",
    "Judgement": "reeljudge.ab.store.records",
    "build_record": "reeljudge.ab.store.records",
    "validate_record": "reeljudge.ab.store.records",
    "load_protocol": "reeljudge.ab.store.protocol",
    "check_form": "reeljudge.ab.store.protocol",
    "agreement_with_majority": "reeljudge.ab.analysis.analysis",
    "build_report": "reeljudge.ab.analysis.report",
}


def __getattr__(name: str) -> Any:
    """Load public names on first use (keeps ``import reeljudge.ab`` light)."""
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(name)


__all__ = list(_EXPORTS)
