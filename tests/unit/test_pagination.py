"""Cursors round-trip and refuse garbage."""

from __future__ import annotations

import pytest

from hippograph.errors import InvalidInput
from hippograph.pagination import (
    decode_seq_cursor,
    decode_time_cursor,
    encode_seq_cursor,
    encode_time_cursor,
)
from tests.support import T0


def test_time_cursor_round_trips() -> None:
    cursor = decode_time_cursor(encode_time_cursor(T0, "mem_x"))
    assert cursor is not None
    assert (cursor.at, cursor.id) == (T0, "mem_x")


def test_seq_cursor_round_trips() -> None:
    cursor = decode_seq_cursor(encode_seq_cursor(41))
    assert cursor is not None
    assert cursor.seq == 41


@pytest.mark.parametrize(
    "garbage", ["", "!!!", "e30", encode_seq_cursor(3), "x" * 1000, "eyJ0IjoxfQ"]
)
def test_garbage_time_cursors_are_input_errors(garbage: str) -> None:
    with pytest.raises(InvalidInput, match="after is not a cursor"):
        decode_time_cursor(garbage)


def test_a_time_cursor_is_not_a_seq_cursor() -> None:
    with pytest.raises(InvalidInput):
        decode_seq_cursor(encode_time_cursor(T0, "x"))
    assert decode_seq_cursor(None) is None
