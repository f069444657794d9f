"""Benchmarks: `engine.py` (the rules engine alone) and `api.py` (the HTTP stack)."""
