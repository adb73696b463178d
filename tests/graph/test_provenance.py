"""Provenance walks: down to messages, up from them, never across tenants."""

from __future__ import annotations

from graph.store import GraphStore
from hippograph.models import Direction, EdgeType
from tests.support import derivation_chain


async def test_down_reaches_every_message_with_typed_edges(store: GraphStore) -> None:
    summary, fact, unit, messages = await derivation_chain(store)
    walk = await store.provenance.walk(summary.id, 4, Direction.DOWN, ["ann"])
    assert walk is not None
    assert {n.id for n in walk.nodes} == {summary.id, fact.id, unit.id, *(m.id for m in messages)}
    assert {(e.source, e.type, e.target) for e in walk.edges} == {
        (summary.id, EdgeType.DERIVED_FROM, fact.id),
        (summary.id, EdgeType.DERIVED_FROM, messages[2].id),
        (fact.id, EdgeType.DERIVED_FROM, unit.id),
        (unit.id, EdgeType.DERIVED_FROM, messages[0].id),
        (unit.id, EdgeType.DERIVED_FROM, messages[1].id),
    }


async def test_depth_limits_the_walk(store: GraphStore) -> None:
    summary, fact, _, messages = await derivation_chain(store)
    walk = await store.provenance.walk(summary.id, 1, Direction.DOWN, None)
    assert walk is not None
    assert {n.id for n in walk.nodes} == {summary.id, fact.id, messages[2].id}


async def test_up_answers_what_was_derived_from_a_message(store: GraphStore) -> None:
    summary, fact, unit, messages = await derivation_chain(store)
    walk = await store.provenance.walk(messages[0].id, 4, Direction.UP, ["ann"])
    assert walk is not None
    assert {n.id for n in walk.nodes} == {messages[0].id, unit.id, fact.id, summary.id}
    assert (unit.id, EdgeType.DERIVED_FROM, messages[0].id) in {
        (e.source, e.type, e.target) for e in walk.edges
    }


async def test_another_tenant_sees_nothing(store: GraphStore) -> None:
    summary, _, _, messages = await derivation_chain(store)
    assert await store.provenance.walk(summary.id, 4, Direction.DOWN, ["bob"]) is None
    assert await store.provenance.walk(messages[0].id, 4, Direction.UP, ["bob"]) is None
