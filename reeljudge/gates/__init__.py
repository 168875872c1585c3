"""Regression gates: compare a candidate promptfoo run with a base run (``reeljudge compare``).

Public: ``compare_paths`` (two files or folders → ``Comparison``), ``compare_results``,
``read_results``, ``load_gate`` / ``GateSettings``, ``render`` (Markdown), ``comparison_json``.
"""
