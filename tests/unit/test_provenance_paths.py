"""Paths through provenance subgraphs: complete, ordered, bounded."""

from __future__ import annotations

import pytest

from hippograph.models import Direction, Edge, EdgeType, Provenance, Session
from hippograph.provenance_paths import find_paths, provenance_paths
from tests.support import T0, memory, message

D = EdgeType.DERIVED_FROM
S = EdgeType.SUMMARIZES


def edge(source: str, target: str, type: EdgeType = D) -> Edge:
    return Edge(source=source, type=type, target=target)


def node_lists(edges: list[Edge], targets: set[str]) -> list[list[str]]:
    return [list(p.node_ids) for p in find_paths("r", edges, targets).paths]


def test_a_chain_yields_one_path_with_its_edge_types() -> None:
    found = find_paths("r", [edge("r", "a", S), edge("a", "m")], {"m"})
    assert found.truncated is False
    [path] = found.paths
    assert path.node_ids == ("r", "a", "m")
    assert path.edge_types == (S, D)
    assert path.target == "m"


def test_a_diamond_yields_both_ways_round() -> None:
    edges = [edge("r", "b"), edge("r", "a"), edge("a", "m"), edge("b", "m")]
    assert node_lists(edges, {"m"}) == [["r", "a", "m"], ["r", "b", "m"]]


def test_paths_come_shortest_first_then_by_node_ids() -> None:
    edges = [edge("r", "z"), edge("r", "a"), edge("a", "y"), edge("z", "m2"), edge("r", "m1")]
    assert node_lists(edges, {"m1", "m2", "y"}) == [
        ["r", "m1"],
        ["r", "a", "y"],
        ["r", "z", "m2"],
    ]


def test_two_edge_types_between_the_same_nodes_are_two_paths() -> None:
    found = find_paths("r", [edge("r", "m", S), edge("r", "m", D), edge("r", "m", D)], {"m"})
    assert [p.edge_types for p in found.paths] == [(D,), (S,)]


def test_branches_that_reach_no_target_are_left_out() -> None:
    edges = [edge("r", "a"), edge("a", "b"), edge("r", "m")]
    assert node_lists(edges, {"m"}) == [["r", "m"]]
    assert find_paths("r", edges, {"nowhere"}).paths == ()


def test_the_root_alone_is_a_path_when_it_is_a_target() -> None:
    assert node_lists([], {"r"}) == [["r"]]


def test_a_cycle_does_not_loop() -> None:
    edges = [edge("r", "a"), edge("a", "b"), edge("b", "a"), edge("b", "r"), edge("b", "m")]
    assert node_lists(edges, {"m"}) == [["r", "a", "b", "m"]]


def test_upward_walks_against_the_edges() -> None:
    # m ← a ← r: walking up from m reaches a, then r
    edges = [edge("a", "m"), edge("r", "a")]
    found = find_paths("m", edges, {"r"}, upward=True)
    assert [p.node_ids for p in found.paths] == [("m", "a", "r")]


def stacked_diamonds(layers: int) -> list[Edge]:
    """``layers`` diamonds in a row: 2**layers paths from r to the last node."""
    edges: list[Edge] = []
    for i in range(layers):
        top, bottom = ("r" if i == 0 else f"j{i}"), f"j{i + 1}"
        edges += [edge(top, f"l{i}"), edge(top, f"h{i}"), edge(f"l{i}", bottom)]
        edges.append(edge(f"h{i}", bottom))
    return edges


def test_the_cap_stops_an_exponential_number_of_paths() -> None:
    # 2**40 paths: only a bounded enumeration finishes
    found = find_paths("r", stacked_diamonds(40), {"j40"}, limit=1000)
    assert found.truncated is True
    assert len(found.paths) == 1000
    assert len(set(found.paths)) == 1000
    assert all(p.node_ids[0] == "r" and p.target == "j40" for p in found.paths)


def test_exactly_the_cap_is_not_truncated() -> None:
    found = find_paths("r", stacked_diamonds(3), {"j3"}, limit=8)
    assert (len(found.paths), found.truncated) == (8, False)
    assert len(find_paths("r", stacked_diamonds(3), {"j3"}, limit=7).paths) == 7


def test_the_same_graph_gives_the_same_paths_in_any_edge_order() -> None:
    edges = [*stacked_diamonds(4), edge("l2", "j4"), edge("r", "j4", S)]
    forward = find_paths("r", edges, {"j4"}, limit=10)
    backward = find_paths("r", list(reversed(edges)), {"j4"}, limit=10)
    assert forward == backward
    assert forward.paths[0].node_ids == ("r", "j4")


def test_a_limit_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="limit"):
        find_paths("r", [], {"r"}, limit=0)


SESSION = Session(id="ses_1", user_id="ann", title="chat", started_at=T0)


def test_down_paths_end_at_messages() -> None:
    m1, m2 = message(SESSION, "one"), message(SESSION, "two")
    fact, summary = memory("ann", "fact"), memory("ann", "summary")
    walk = Provenance(
        root_id=summary.id,
        nodes=(m1, m2, fact, summary),
        edges=(
            edge(summary.id, fact.id, S),
            edge(summary.id, m2.id),
            edge(fact.id, m1.id),
            edge(fact.id, m2.id),
        ),
    )
    found = provenance_paths(walk, Direction.DOWN)
    assert {p.node_ids for p in found.paths} == {
        (summary.id, m2.id),
        (summary.id, fact.id, m1.id),
        (summary.id, fact.id, m2.id),
    }
    assert found.paths[0].node_ids == (summary.id, m2.id)


def test_up_paths_end_at_leaves_of_the_walk() -> None:
    m1 = message(SESSION, "one")
    fact, other, summary = memory("ann", "fact"), memory("ann", "other"), memory("ann", "sum")
    walk = Provenance(
        root_id=m1.id,
        nodes=(m1, fact, other, summary),
        edges=(edge(fact.id, m1.id), edge(other.id, m1.id), edge(summary.id, fact.id, S)),
    )
    found = provenance_paths(walk, Direction.UP)
    assert sorted(p.node_ids for p in found.paths) == sorted(
        [(m1.id, other.id), (m1.id, fact.id, summary.id)]
    )
    assert found.paths[1].edge_types == (D, S)


def test_edges_to_nodes_the_walk_did_not_return_are_ignored() -> None:
    m1, fact = message(SESSION, "one"), memory("ann", "fact")
    walk = Provenance(
        root_id=fact.id,
        nodes=(m1, fact),
        edges=(edge(fact.id, m1.id), edge(fact.id, "mem_hidden"), edge("mem_hidden", m1.id)),
    )
    assert [p.node_ids for p in provenance_paths(walk, Direction.DOWN).paths] == [(fact.id, m1.id)]
