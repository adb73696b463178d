"""A/B experiments: each measured once to take a decision (docs/decisions/ says which).

They stay runnable (``python -m bench.experiments.<name>``) so a decision can
be measured again when what it rested on changes (a new model, a new server),
but they are not regression benchmarks: ``bench/registry.py`` lists those.
"""
