"""Small vector arithmetic for the few vectors a request handles in Python.

numpy rather than generator expressions: memorize computes a cosine or a
mean for every message, and on the LoCoMo turns the pure-Python versions
took most of a second of the event loop's thread (measured 2026-11-23).
Results are float64, as before, and returned as plain lists where they are
stored.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """The cosine of two vectors (0 when either is zero)."""
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.shape != y.shape:
        raise ValueError(f"vectors of {x.shape} and {y.shape} elements")
    norm = float(np.linalg.norm(x) * np.linalg.norm(y))
    return float(x @ y) / norm if norm else 0.0


def mean(vectors: Sequence[Sequence[float]]) -> list[float]:
    """The element-wise mean of ``vectors``."""
    rows = np.asarray(vectors, dtype=np.float64)
    if rows.ndim != 2:
        raise ValueError("vectors of different lengths")
    averaged: list[float] = rows.mean(axis=0).tolist()
    return averaged


def unit(vector: Sequence[float]) -> list[float]:
    """``vector`` scaled to length 1 (a zero vector stays zero)."""
    x = np.asarray(vector, dtype=np.float64)
    norm = float(np.linalg.norm(x)) or 1.0
    scaled: list[float] = (x / norm).tolist()
    return scaled


def unit_rows(vectors: Sequence[Sequence[float]]) -> np.ndarray:
    """``vectors`` as the rows of a matrix, each scaled to length 1 (zero rows stay zero)."""
    rows = np.asarray(vectors, dtype=np.float64)
    if rows.ndim != 2:
        raise ValueError("vectors of different lengths")
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    scaled: np.ndarray = rows / np.where(norms == 0.0, 1.0, norms)
    return scaled
