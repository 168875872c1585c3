"""Helpers for tests and benchmarks: deterministic fixture clips made by code."""
