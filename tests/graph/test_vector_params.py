"""Vector parameters cost nothing in the driver's debug log and reach the server unchanged."""

from __future__ import annotations

from neo4j._codec.packstream import v1

from graph.driver import fetch
from graph.records import Vector, float32, vector_param
from graph.store import GraphStore


class _Buffer:
    def __init__(self) -> None:
        self.data = bytearray()

    def write(self, chunk: bytes) -> None:
        self.data += chunk


def _packed(value: object) -> bytes:
    buffer = _Buffer()
    # The driver's own packer (typed loosely): what goes on the wire.
    v1.Packer(buffer).pack(value, dehydration_hooks=None)  # type: ignore[no-untyped-call]
    return bytes(buffer.data)


def test_a_vector_prints_as_its_length_not_its_floats() -> None:
    # The driver formats every RUN's parameters for its debug log whatever the
    # log level; 1,000 vectors printed in full took 200 ms.
    vector = float32([0.1] * 384)
    assert isinstance(vector, Vector)
    assert repr({"embedding": vector}) == "{'embedding': <vector of 384 floats>}"
    assert repr(vector_param([1.0, 2.0])) == "<vector of 2 floats>"


def test_a_vector_packs_exactly_as_a_list_of_float32_values() -> None:
    vector = float32([0.1, -0.25, 1 / 3])
    assert _packed({"v": vector}) == _packed({"v": list(vector)})
    # Rounded to float32, as ArcadeDB stores it, so both servers agree.
    assert vector[1] == -0.25
    assert vector[0] != 0.1
    assert abs(vector[0] - 0.1) < 1e-8


async def test_a_vector_round_trips_through_the_server(store: GraphStore) -> None:
    vector = float32([0.5, -0.125, 0.1])

    async def echo(tx: object) -> list[float]:
        rows = await fetch(tx, "RETURN $v AS v", {"v": vector})  # type: ignore[arg-type]
        return list(rows[0]["v"])

    assert await store.graph.read(echo) == list(vector)
