"""Reproducible benchmarks; each script prints what it measured (and JSON with --json)."""
