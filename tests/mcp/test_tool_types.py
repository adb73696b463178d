"""The tools' enumerated parameters are the GraphQL enums they are passed to."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from graphql import GraphQLEnumType, build_schema
from mcp import Client

from hippograph.mcp.server import build_server
from hippograph.settings import LimitSettings
from schema.build import build_schema as build_app_schema

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


def _enum_values(node: Any) -> set[str]:
    """Every ``enum`` value anywhere in a JSON schema fragment."""
    if isinstance(node, dict):
        found = set(node.get("enum", []))
        for value in node.values():
            found |= _enum_values(value)
        return found
    if isinstance(node, list):
        return set().union(*(_enum_values(v) for v in node)) if node else set()
    return set()


@pytest.fixture(scope="module")
async def input_schemas() -> dict[str, dict[str, Any]]:
    """Each tool's input schema, as a client lists it (no graph needed to list)."""
    server = build_server(build_app_schema(LimitSettings()), services=lambda: None)  # type: ignore[arg-type,return-value]
    async with Client(server) as client:
        return {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}


@pytest.mark.parametrize(("tool", "parameter", "enum"), ENUMS)
def test_an_enumerated_parameter_offers_the_graphql_enums_values(
    input_schemas: dict[str, dict[str, Any]], tool: str, parameter: str, enum: str
) -> None:
    graphql_enum = build_schema(SDL.read_text()).get_type(enum)
    assert isinstance(graphql_enum, GraphQLEnumType)
    offered = _enum_values(input_schemas[tool]["properties"][parameter])
    assert offered == set(graphql_enum.values)


def test_a_messages_role_is_the_graphql_role(input_schemas: dict[str, dict[str, Any]]) -> None:
    role = build_schema(SDL.read_text()).get_type("Role")
    assert isinstance(role, GraphQLEnumType)
    message = input_schemas["memorize"]["$defs"]["MessageIn"]
    assert _enum_values(message["properties"]["role"]) == set(role.values)
