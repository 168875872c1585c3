"""The warm path: one long-lived Python worker per ``promptfoo eval`` runs the Python assertions,
so no test pays for an interpreter start or a model load (opt-in; the plain Python assertions stay
the default). ``worker.py`` is the worker; ``client.js`` is the in-process JavaScript side that
promptfoo loads through the thin entries ``assertions/<judge>.js``.
"""
