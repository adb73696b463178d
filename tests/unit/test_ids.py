"""Ids carry their label, sort by time, and are validated with clear messages."""

from __future__ import annotations

from datetime import timedelta

import pytest

from hippograph.errors import InvalidInput
from hippograph.ids import (
    IdKind,
    derived_id,
    kind_of,
    new_id,
    require_client_id,
    require_id,
    require_user_id,
)
from tests.support import T0


def test_new_ids_carry_their_kind_and_sort_by_time() -> None:
    earlier, later = new_id(IdKind.MEMORY, T0), new_id(IdKind.MEMORY, T0 + timedelta(seconds=1))
    assert earlier.startswith("mem_")
    assert len(earlier) == 30
    assert kind_of(earlier) is IdKind.MEMORY
    assert earlier < later


def test_derived_ids_are_deterministic_and_well_formed() -> None:
    one = derived_id(IdKind.MESSAGE, "ses_x", "client", "42")
    assert one == derived_id(IdKind.MESSAGE, "ses_x", "client", "42")
    assert one != derived_id(IdKind.MESSAGE, "ses_y", "client", "42")
    assert kind_of(one) is IdKind.MESSAGE


@pytest.mark.parametrize(
    "value",
    [
        "",
        "mem_",
        "mem_01HZZZ",
        "MEM_01HZZZZZZZZZZZZZZZZZZZZZZZ",
        "x" * 300,
        "mem_01HZZZZZZZZZZZZZZZZZZZZZZZ\n",  # "$" alone lets a final newline through
    ],
)
def test_malformed_ids_are_refused_naming_the_field(value: str) -> None:
    with pytest.raises(InvalidInput, match="memoryId must be a memory id") as caught:
        require_id(value, IdKind.MEMORY, "memoryId")
    assert caught.value.field == "memoryId"


def test_an_id_of_another_kind_is_refused() -> None:
    with pytest.raises(InvalidInput):
        require_id(new_id(IdKind.SESSION, T0), IdKind.MEMORY, "id")


@pytest.mark.parametrize("good", ["alice", "user-42", "a.b@c:d_e", "0"])
def test_tame_user_ids_pass(good: str) -> None:
    assert require_user_id(good) == good


@pytest.mark.parametrize("bad", ["", " alice", "-x", "a b", "ü", "x" * 129, "a\nb", "alice\n"])
def test_wild_user_ids_fail(bad: str) -> None:
    with pytest.raises(InvalidInput, match="userId"):
        require_user_id(bad)


def test_client_ids_are_printable_ascii() -> None:
    assert require_client_id("msg-1/2#3", "clientId") == "msg-1/2#3"
    with pytest.raises(InvalidInput):
        require_client_id("has space", "clientId")
    with pytest.raises(InvalidInput):
        require_client_id("abc\n", "clientId")  # no newline, final or not
