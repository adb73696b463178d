"""Cosine, mean and unit length, pinned to hand-computed values."""

from __future__ import annotations

import math

import pytest

from hippograph.vector_math import cosine, mean, unit


def test_cosine_of_known_vectors() -> None:
    assert cosine([1.0, 0.0], [0.0, 2.0]) == 0.0
    assert math.isclose(cosine([1.0, 1.0], [2.0, 0.0]), 1 / math.sqrt(2))
    assert math.isclose(cosine([3.0, 4.0], [-3.0, -4.0]), -1.0)
    assert cosine([0.0, 0.0], [1.0, 1.0]) == 0.0


def test_mean_and_unit_are_plain_lists() -> None:
    averaged = mean([[1.0, 2.0], [3.0, 6.0]])
    assert averaged == [2.0, 4.0]
    assert isinstance(averaged, list)
    assert all(isinstance(x, float) for x in averaged)
    assert unit([3.0, 4.0]) == [0.6, 0.8]
    assert unit([0.0, 0.0]) == [0.0, 0.0]


def test_vectors_of_different_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match="elements"):
        cosine([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match=r"different lengths|inhomogeneous"):
        mean([[1.0, 2.0], [1.0]])
