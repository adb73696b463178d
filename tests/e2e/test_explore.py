"""The /explore page: self-contained, and in headless Chromium it draws what the API returns."""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.ids import IdKind, new_id
from hippograph.server import app as app_module
from hippograph.server.app import create_app
from hippograph.settings import GraphSettings, Settings
from tests.api.conftest import (
    ADD_MEMORY,
    ADMIN_KEY,
    CREATE_SESSION,
    CREATE_USER,
    Api,
    make_settings,
)
from tests.e2e.browser import run_check
from tests.graphs import TestDatabase
from tests.serving import serving

REFERENCE = re.compile(r"""(?:src|href)\s*=\s*["']([^"']*)["']""")
# absolute URLs, and protocol-relative ones in string literals (not `//` comments)
ABSOLUTE = re.compile(r"""https?://|["'`(]//""", re.IGNORECASE)

NODES = (
    "nodes { __typename id ... on Memory { content originalContent } } edges { source type target }"
)
PROVENANCE = f"""
query($id: ID!, $depth: Int!, $direction: Direction!) {{
  provenance(id: $id, depth: $depth, direction: $direction) {{ {NODES} }}
}}"""
MEMORIZE = """
mutation($input: MemorizeInput!) {
  memorize(input: $input) { __typename ... on Memorized { messages { id } } ... on Error { message } }
}"""
UNIT = """
query($id: ID!) { provenance(id: $id, depth: 1, direction: UP) { nodes { __typename id } } }"""
FORGET = """
mutation($ids: [ID!]!) {
  forget(input: {userId: "ann", memoryIds: $ids}) { __typename ... on ForgetReport { counts { fuzzed } } }
}"""
REFLECT = """
mutation { reflect(userId: "ann", force: true) { __typename ... on ReflectQueued { job { id } } } }"""
JOB = "query($id: ID!) { job(id: $id) { status error } }"
DELETE = "mutation($id: ID!) { deleteMemory(input: {id: $id}) { __typename } }"
REFLECTIONS = """
query { memories(userId: "ann", first: 10, filter: {kinds: [REFLECTION]}) { edges { node { id } } } }"""

T0 = datetime(2026, 3, 1, 12, tzinfo=UTC)
# Markup in a message: the page must show it as text, on the canvas and in the panel.
MARKUP = "I go <b>rock climbing</b> at the gym <img src=x onerror=alert(1)> every Saturday."
TURNS = [
    MARKUP,
    "Last month I started training to lead climb outdoors.",
    "My goal is to climb in the Alps next summer with my sister.",
    "I bought new climbing shoes and a harness last week.",
    "Bouldering on Wednesdays helps my finger strength.",
    "My climbing partner Tom belays me at the crag.",
    "We plan a climbing trip to Fontainebleau in October.",
    "I keep a climbing journal of every route I send.",
]
FACTS = [
    "Ann climbs at the gym every Saturday",
    "Ann trains to lead climb outdoors",
    "Ann wants to climb in the Alps with her sister",
    "Ann owns new climbing shoes and a harness",
    "Ann boulders on Wednesdays for finger strength",
    "Tom is Ann's climbing partner and belays her at the crag",
    "Ann plans a climbing trip to Fontainebleau",
    "Ann keeps a journal of the routes she climbs",
]
# Long enough that the node shows only its beginning and the panel the rest.
OLD_FACT = (
    "Ann's first outdoor climbing trip was to Fontainebleau, where she spent a whole "
    "weekend bouldering on the sandstone with Tom and decided to train for the Alps"
)


class Clock:
    """A clock the test sets by hand (forgetting fuzzes by age)."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@dataclass
class Seeded:
    """What the explorer is shown: a reflection and the ids the steps click."""

    url: str
    api: Api[httpx.Client]
    reflection: str
    fuzzed: str
    message: str
    unit: str

    def provenance(self, node_id: str, depth: int = 4, direction: str = "DOWN") -> Any:
        """The API's own answer, which the drawing must match."""
        variables = {"id": node_id, "depth": depth, "direction": direction}
        return self.api.ok(PROVENANCE, variables)["provenance"]


def _fact(api: Api[httpx.Client], content: str, derived_from: list[str], importance: float) -> str:
    result = api.ok(
        ADD_MEMORY,
        {
            "input": {
                "userId": "ann",
                "content": content,
                "importance": importance,
                "derivedFrom": derived_from,
            }
        },
    )["addMemory"]
    assert result["__typename"] == "MemoryPayload", result
    memory_id: str = result["memory"]["id"]
    return memory_id


def _reflect(api: Api[httpx.Client]) -> None:
    job_id = api.ok(REFLECT)["reflect"]["job"]["id"]
    deadline = time.monotonic() + 60
    while (job := api.ok(JOB, {"id": job_id})["job"])["status"] not in {"SUCCEEDED", "FAILED"}:
        assert time.monotonic() < deadline, job
        time.sleep(0.05)
    assert job["status"] == "SUCCEEDED", job


@pytest.fixture
def seeded(
    graph_db: TestDatabase, embedder: SentenceTransformerEmbedder, tmp_path: Path
) -> Iterator[Seeded]:
    """A live server holding a reflection over facts, MemUnits and messages (one
    holding markup): a provenance of twenty-odd nodes; and a fuzzed fact."""
    clock = Clock(T0 - timedelta(days=100))
    settings = make_settings(graph_db, tmp_path)
    # One reflection, the forced one below: the run memorize queues by itself
    # would race the facts added after it and sometimes summarise only some
    # of them, leaving two reflections (1 setup in 5 failed so).
    memorize = settings.memorize.model_copy(update={"reflect_after_write": False})
    # All of Ann's climbing facts are one theme here: the page is under test,
    # not where a model's cosines split a theme (e5's sit close to its cut).
    reflection = settings.reflection.model_copy(update={"cluster_threshold": 0.5})
    settings = settings.model_copy(update={"memorize": memorize, "reflection": reflection})
    app = create_app(settings, embedder=embedder, clock=clock, **graph_db.start)
    with serving(app) as url, httpx.Client(base_url=url, timeout=60) as http:
        api = Api(http, ADMIN_KEY)
        api.ok(CREATE_USER, {"id": "ann", "name": "Ann"})
        session = api.ok(CREATE_SESSION, {"userId": "ann"})["createSession"]["session"]["id"]
        turns = [
            {
                "speaker": "Ann",
                "content": text,
                # a day apart: each turn is a MemUnit of its own
                "ts": (clock.now - timedelta(days=len(TURNS) - i)).isoformat(),
            }
            for i, text in enumerate(TURNS)
        ]
        memorized = api.ok(
            MEMORIZE,
            {
                "input": {
                    "userIds": ["ann"],
                    "sessionId": session,
                    "messages": turns,
                    "async": False,
                }
            },
        )["memorize"]
        assert memorized["__typename"] == "Memorized", memorized
        messages = [m["id"] for m in memorized["messages"]]
        units = [
            next(
                n["id"]
                for n in api.ok(UNIT, {"id": m})["provenance"]["nodes"]
                if n["__typename"] == "MemUnit"
            )
            for m in messages
        ]
        assert len(set(units)) == len(TURNS), units
        old = _fact(api, OLD_FACT, units[6:8], 0.5)
        clock.now = T0  # a hundred days later: forgetting blurs the old fact
        assert api.ok(FORGET, {"ids": [old]})["forget"]["counts"]["fuzzed"] == 1
        # Each MemUnit is under two facts: the reflection reaches them all even if
        # its theme leaves a fact out.
        for i, text in enumerate(FACTS):
            _fact(api, text, [units[i], units[(i + 1) % len(units)]], 0.9)
        _reflect(api)
        # Deleted, but still on the walk: the page must not show it as current.
        assert api.ok(DELETE, {"id": old})["deleteMemory"]["__typename"] == "MemoryDeleted"
        reflections = [e["node"]["id"] for e in api.ok(REFLECTIONS)["memories"]["edges"]]
        assert len(reflections) == 1, reflections
        yield Seeded(
            url=url,
            api=api,
            reflection=reflections[0],
            fuzzed=old,
            message=messages[0],
            unit=units[1],
        )


def test_the_explore_page_references_nothing_outside_the_app(tmp_path: Path) -> None:
    # no lifespan: serving the page needs no database
    client = TestClient(create_app(Settings(graph=GraphSettings(data_dir=tmp_path))))
    page = client.get("/explore")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "default-src 'self'" in policy
    assert "unsafe" not in policy  # no inline scripts or styles, no eval
    references = REFERENCE.findall(page.text)
    assert {
        "/static/explore.js",
        "/static/vendor/cytoscape.min.js",
        "/static/vendor/cytoscape-dagre.min.js",
    } <= set(references)
    texts = {"/explore": page.text}
    for reference in references:
        assert reference.startswith("data:") or (
            reference.startswith("/") and not reference.startswith("//")
        ), reference
        if reference.startswith("/static/"):
            asset = client.get(reference)
            assert asset.status_code == 200, reference
            # The vendored libraries name their licences' URLs in comments; that
            # they fetch nothing is what the Chromium test below checks.
            if not reference.startswith("/static/vendor/"):
                texts[reference] = asset.text
    assert {name: ABSOLUTE.findall(text) for name, text in texts.items()} == {
        name: [] for name in texts
    }


def test_without_its_graph_library_the_page_says_how_to_build_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app_module, "STATIC_DIR", tmp_path)  # a static folder with no vendor/
    client = TestClient(create_app(Settings(graph=GraphSettings(data_dir=tmp_path))))
    page = client.get("/explore")
    assert page.status_code == 503
    assert "make assets" in page.text
    assert "cytoscape.min.js" in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]


def _overlapping(boxes: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Pairs of labels whose rendered boxes intersect."""
    return [
        (a["id"], b["id"])
        for a, b in itertools.combinations(boxes, 2)
        if a["label"]["x1"] < b["label"]["x2"]
        and b["label"]["x1"] < a["label"]["x2"]
        and a["label"]["y1"] < b["label"]["y2"]
        and b["label"]["y1"] < a["label"]["y2"]
    ]


def _inside(inner: dict[str, float], outer: dict[str, float]) -> bool:
    return (
        outer["x1"] <= inner["x1"] <= inner["x2"] <= outer["x2"]
        and outer["y1"] <= inner["y1"] <= inner["y2"] <= outer["y2"]
    )


def _assert_readable(view: dict[str, Any]) -> None:
    """No two labels overlap, each label fits inside its node, all of it in view."""
    labels = view["labels"]
    assert labels
    assert _overlapping(labels) == []
    screen = {"x1": 0, "y1": 0, "x2": view["viewport"]["width"], "y2": view["viewport"]["height"]}
    for drawn in labels:
        assert _inside(drawn["label"], drawn["node"]), drawn
        assert _inside(drawn["node"], screen), (drawn, screen)


def _edges(provenance: Any) -> set[str]:
    return {f"{e['source']} {e['type']} {e['target']}" for e in provenance["edges"]}


@pytest.mark.slow  # headless Chromium
@pytest.mark.only_on("arcadedb", "a page over the API; tests/api walks provenance on every server")
def test_explore_draws_zooms_details_and_expands_in_chromium(
    seeded: Seeded, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    walked = seeded.provenance(seeded.reflection)
    expected = {n["id"] for n in walked["nodes"]}
    types = {n["__typename"] for n in walked["nodes"]}
    assert len(expected) >= 20, walked["nodes"]
    assert {"Reflection", "SemanticMemory", "MemUnit", "Message"} <= types
    assert {seeded.message, seeded.unit} <= expected
    around = [seeded.provenance(seeded.message, 1, way) for way in ("DOWN", "UP")]
    expanded = expected | {n["id"] for p in around for n in p["nodes"]}
    assert expanded > expected  # expanding the message has something to add
    fuzzed = next(n for n in seeded.provenance(seeded.fuzzed)["nodes"] if n["id"] == seeded.fuzzed)
    assert fuzzed["originalContent"] == OLD_FACT != fuzzed["content"]

    shots = tmp_path / "shots"
    shots.mkdir()
    monkeypatch.setenv("EXPLORE_SCREENSHOT", str(shots))
    unknown = new_id(IdKind.MEMORY, datetime.now(UTC))
    report = run_check(
        "explore-check.mjs",
        seeded.url,
        ADMIN_KEY,
        seeded.reflection,
        "zoom-in",
        "fit",
        f"click:{seeded.message}",
        "expand",
        f"click:{seeded.unit}",
        "reroot",
        seeded.fuzzed,
        f"click:{seeded.fuzzed}",
        unknown,
        "bogus",
        f"tab:{seeded.unit}",
        "forget",
        f"tab:{seeded.unit}",
    )
    assert report["ok"], report
    assert report["outside"] == [], "the page tried to reach the internet"
    assert report["errors"] == []  # script errors and CSP violations alike
    views = report["views"]
    drawn, zoomed, fitted, on_message, grown, on_unit, rerooted, fuzzed_root, on_fuzzed = views[:9]
    missing, bad, other_tab, forgotten, keyless_tab = views[9:]

    # Every node and edge of the provenance, no label over another, none cut off.
    assert drawn["state"] == "done", drawn
    assert set(drawn["nodeIds"]) == set(drawn["listedIds"]) == expected
    assert len(drawn["nodeIds"]) == len(expected)
    assert set(drawn["edges"]) == _edges(walked)
    _assert_readable(drawn)
    legend = set(drawn["legend"])
    assert {"Message", "MemUnit", "Reflection", "SemanticMemory", "SUMMARIZES"} <= legend
    assert drawn["url"].endswith(f"?id={seeded.reflection}")
    png = (shots / "explore-0.png").read_bytes()
    assert png.startswith(b"\x89PNG")
    assert len(png) > 20_000

    # "+" zooms in (labels grow with it), "Fit" brings the whole graph back into view.
    assert zoomed["viewport"]["zoom"] == pytest.approx(drawn["viewport"]["zoom"] * 1.25)
    assert _overlapping(zoomed["labels"]) == []
    assert fitted["viewport"]["zoom"] == pytest.approx(drawn["viewport"]["zoom"])
    _assert_readable(fitted)

    # Markup in a message is drawn as text on the canvas and in the panel, never as elements.
    label = next(x["text"] for x in drawn["labels"] if x["id"] == seeded.message)
    assert label.splitlines()[0] == "MESSAGE · Ann"
    assert "<b>rock" in label
    assert drawn["markup"] == on_message["markup"] == 0
    assert on_message["panel"]["text"] == MARKUP
    assert on_message["panel"]["properties"]["Speaker"] == "Ann"

    # Expanding the message adds what was made from it (and what it came from), no label overlapping.
    assert grown["state"] == "done", grown
    assert set(grown["nodeIds"]) == expanded
    assert set(grown["edges"]) == _edges(walked) | set().union(*map(_edges, around))
    _assert_readable(grown)
    assert grown["panel"]["id"] == seeded.message

    assert on_unit["panel"]["id"] == seeded.unit
    assert rerooted["state"] == "done", rerooted
    assert set(rerooted["nodeIds"]) == {n["id"] for n in seeded.provenance(seeded.unit)["nodes"]}
    assert rerooted["url"].endswith(f"?id={seeded.unit}")

    # A fuzzed memory: the node shows the start of its text, the panel all of it, the
    # original content and the properties.
    assert fuzzed_root["state"] == "done", fuzzed_root
    label = next(x["text"] for x in fuzzed_root["labels"] if x["id"] == seeded.fuzzed)
    assert label.splitlines()[0] == "SEMANTIC · root · deleted"
    panel = on_fuzzed["panel"]
    assert panel["id"] == seeded.fuzzed
    assert panel["text"] == fuzzed["content"]
    assert panel["original"] == OLD_FACT
    assert set(panel["properties"]) >= {
        "Kind",
        "Level",
        "Importance",
        "Valid from",
        "Valid to",
        "Created",
        "Last accessed",
        "Level change",
    }
    assert panel["properties"]["Level"] == "SUMMARY"
    assert panel["properties"]["Deleted"].startswith(T0.date().isoformat())
    assert panel["properties"]["Valid to"] == "—"
    assert panel["properties"]["Importance"] == "0.50"
    assert panel["properties"]["Created"].startswith((T0 - timedelta(days=100)).date().isoformat())

    assert (missing["state"], missing["nodeIds"]) == ("error", [])
    assert "not found or not yours" in missing["status"]
    assert bad["state"] == "error"
    assert "id" in bad["status"]

    # Another tab of the same browser has the key (kept per origin) and draws at once.
    assert other_tab["keyFilled"] is True
    assert other_tab["state"] == "done", other_tab
    assert set(other_tab["nodeIds"]) == set(rerooted["nodeIds"])

    # "Forget key" removes it for the whole site: a tab opened afterwards has none.
    assert (forgotten["keyFilled"], forgotten["keyStored"]) == (False, False)
    assert forgotten["state"] == "idle"
    assert forgotten["nodeIds"] == []  # what the key showed goes with it
    assert keyless_tab["keyFilled"] is False
    assert keyless_tab["state"] == "idle"
    assert keyless_tab["nodeIds"] == []
    assert "API key" in keyless_tab["status"]
