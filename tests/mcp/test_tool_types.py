"""The tools' enumerated parameters are the GraphQL enums they are passed to."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from graphql import GraphQLEnumType, build_schema
from mcp import Client
from starlette.types import ASGIApp

from hippograph.admission import KeyChecker
from hippograph.mcp.caller import Caller
from hippograph.mcp.inprocess import InProcess
from hippograph.mcp.server import build_server

SDL = Path(__file__).resolve().parents[2] / "schema.graphql"

# (tool, parameter, the GraphQL enum its value goes to)
ENUMS = [
    ("search", "method", "SearchMethod"),
    ("search", "kinds", "MemoryKind"),
    ("add_memory", "kind", "MemoryKind"),
    ("provenance", "direction", "Direction"),
    ("forget", "policy", "ForgetPolicy"),
    ("forget", "strategy", "HardDeleteStrategy"),
]


def _no_app() -> ASGIApp:
    raise AssertionError("listing the tools reaches no app")


def _no_keys() -> KeyChecker:
    raise AssertionError("listing the tools checks no key")


def _enum_values(node: Any, defs: dict[str, Any]) -> set[str]:
    """Every ``enum`` value anywhere in a JSON schema fragment, following ``$ref`` to ``defs``."""
    if isinstance(node, dict):
        found = set(node.get("enum", []))
        ref = node.get("$ref")
        if isinstance(ref, str):
            found |= _enum_values(defs[ref.rsplit("/", 1)[1]], defs)
        for value in node.values():
            found |= _enum_values(value, defs)
        return found
    if isinstance(node, list):
        return set().union(*(_enum_values(v, defs) for v in node)) if node else set()
    return set()


@pytest.fixture(scope="module")
async def input_schemas() -> dict[str, dict[str, Any]]:
    """Each tool's input schema, as a client lists it (no graph needed to list)."""
    server = build_server(InProcess(_no_app), Caller(keys=_no_keys))
    async with Client(server) as client:
        return {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}


@pytest.mark.parametrize(("tool", "parameter", "enum"), ENUMS)
def test_an_enumerated_parameter_offers_the_graphql_enums_values(
    input_schemas: dict[str, dict[str, Any]], tool: str, parameter: str, enum: str
) -> None:
    graphql_enum = build_schema(SDL.read_text()).get_type(enum)
    assert isinstance(graphql_enum, GraphQLEnumType)
    schema = input_schemas[tool]
    offered = _enum_values(schema["properties"][parameter], schema.get("$defs", {}))
    assert offered == set(graphql_enum.values)


def test_a_messages_role_is_the_graphql_role(input_schemas: dict[str, dict[str, Any]]) -> None:
    role = build_schema(SDL.read_text()).get_type("Role")
    assert isinstance(role, GraphQLEnumType)
    defs = input_schemas["memorize"]["$defs"]
    assert _enum_values(defs["MessageIn"]["properties"]["role"], defs) == set(role.values)
