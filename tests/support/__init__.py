"""Test support shared by tests/, benchmarks/ and scripts/ (never shipped): the fake Gemini and stock
servers, the test proxy and local servers, the user project and packaging helpers, the workflow runner,
the probes corpus and its findings, scripted fake-judge replies, results fixtures, the embedded PostgreSQL,
worker functions for the engines, and where things are in the clone (``support.paths``).

Imported as ``support.<module>`` with tests/ on ``sys.path`` (pytest puts it there: the root conftest's
folder; benchmarks insert it; from a shell, ``PYTHONPATH=tests``)."""
