"""`Provenance.paths` over the wire: message → memory → memory, both ways."""

from __future__ import annotations

from tests.api.conftest import Api, add_memory, seed_user

PATHS = """
query($id: ID!, $direction: Direction!) {
  provenance(id: $id, depth: 4, direction: $direction) {
    nodes { id }
    paths { nodeIds edgeTypes target }
    pathsTruncated
  }
}"""


def test_provenance_paths_lead_from_a_memory_down_to_each_message(api: Api) -> None:
    _, (m1, m2) = seed_user(api, "ann", ["I moved to Lyon", "I work as a nurse"])
    city = add_memory(api, "ann", "Ann lives in Lyon", [m1])
    both = add_memory(api, "ann", "Ann is a nurse in Lyon", [city, m2])

    down = api.ok(PATHS, {"id": both, "direction": "DOWN"})["provenance"]
    assert down["pathsTruncated"] is False
    assert down["paths"] == [
        {"nodeIds": [both, m2], "edgeTypes": ["DERIVED_FROM"], "target": m2},
        {
            "nodeIds": [both, city, m1],
            "edgeTypes": ["DERIVED_FROM", "DERIVED_FROM"],
            "target": m1,
        },
    ]
    walked = {n["id"] for n in down["nodes"]}
    assert {i for p in down["paths"] for i in p["nodeIds"]} == walked

    up = api.ok(PATHS, {"id": m1, "direction": "UP"})["provenance"]
    assert up["paths"] == [
        {
            "nodeIds": [m1, city, both],
            "edgeTypes": ["DERIVED_FROM", "DERIVED_FROM"],
            "target": both,
        }
    ]
