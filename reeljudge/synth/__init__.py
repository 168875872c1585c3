"""Synthetic clips made by code: a seeded scene, a panning camera, a moving object and faults injected
at known frames (``clips``), rendered by ``scenes`` and written with PyAV (``encode``).

A product module: ``reeljudge ab gold`` renders its attention-check pairs with it, and the tests and
benchmarks build their fixtures from it. It reads no repository path and imports no other layer.
"""
