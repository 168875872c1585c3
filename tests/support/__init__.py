"""Test support shared by tests/, benchmarks/ and scripts/ (never shipped): the probes corpus and its findings,
scripted fake-judge replies, results fixtures, the embedded PostgreSQL, worker functions for the engines.

Imported as ``support.<module>`` with tests/ on ``sys.path`` (pytest puts it there; benchmarks insert it)."""
