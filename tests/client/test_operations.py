"""The client cannot drift from the schema: its documents, enums and two classes are checked.

Every operation the client sends is validated with the project's other
documents (tests/test_contract.py); here every enum it declares must list
the schema's values, the sync and async
clients must offer the same methods with the same arguments, and every root
field of the schema is wrapped by the client or left out with its reason,
and the client's guide names the ones left out.
"""

from __future__ import annotations

import inspect
import re
from enum import StrEnum
from pathlib import Path

from graphql import (
    FieldNode,
    GraphQLEnumType,
    OperationDefinitionNode,
    build_schema,
    parse,
)
from hippograph_client import AsyncHippoGraph, HippoGraph, clients, enums, operations

from tests.documents import section

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = build_schema((ROOT / "schema.graphql").read_text())


def test_the_clients_enums_are_the_schemas() -> None:
    ours = {
        name: {member.value for member in kind}
        for name, kind in vars(enums).items()
        if inspect.isclass(kind) and issubclass(kind, StrEnum) and kind is not StrEnum
    }
    theirs = {
        name: set(kind.values)
        for name, kind in SCHEMA.type_map.items()
        if isinstance(kind, GraphQLEnumType) and not name.startswith("__")
    }
    assert {name: theirs.get(name) for name in ours} == ours
    # Every schema enum a result or an argument of the client can carry is declared.
    assert set(theirs) - set(ours) <= {"EntityKind"}


def _public(cls: type) -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(member)
        for name, member in vars(cls).items()
        if callable(member) and not name.startswith("_")
    }


def test_the_sync_and_async_clients_offer_the_same_methods() -> None:
    sync, aio = _public(HippoGraph), _public(AsyncHippoGraph)
    assert set(sync) ^ set(aio) == {"close", "aclose"}
    for name in set(sync) - {"close"}:
        assert str(sync[name]) == str(aio[name]), name
        assert inspect.iscoroutinefunction(getattr(AsyncHippoGraph, name)), name
        assert getattr(HippoGraph, name).__doc__, name


# Root fields the client leaves to GraphQL itself, each with the reason.
UNWRAPPED = {
    "subscription.jobUpdated": "a WebSocket subscription; the client speaks HTTP (wait_for_job polls)",
    "subscription.memoryAdded": "a WebSocket subscription; the client speaks HTTP",
    "query.session": "read back through a memory's sessionId or provenance",
    "query.message": "provenance returns the messages a memory came from",
    "query.memUnit": "provenance returns the MemUnits a memory came from",
    "query.entity": "entities() pages through a user's entities with the same fields",
    "mutation.revokeApiKey": "key administration belongs to the admin's tools (hippograph keys)",
}


def test_every_root_field_is_wrapped_by_the_client_or_left_out_for_a_reason() -> None:
    roots = {
        f"{kind}.{name}"
        for kind, root in (
            ("query", SCHEMA.query_type),
            ("mutation", SCHEMA.mutation_type),
            ("subscription", SCHEMA.subscription_type),
        )
        if root is not None
        for name in root.fields
    }
    wrapped = {
        f"{op.operation.value}.{selection.name.value}"
        for document in operations.ALL
        for op in parse(document).definitions
        if isinstance(op, OperationDefinitionNode)
        for selection in op.selection_set.selections
        if isinstance(selection, FieldNode)
    }
    assert roots - wrapped - set(UNWRAPPED) == set(), "wrap it, or say in UNWRAPPED why not"
    assert set(UNWRAPPED) <= roots, "UNWRAPPED names a field the schema no longer has"
    assert not set(UNWRAPPED) & wrapped, "wrapped now: take it out of UNWRAPPED"


def test_the_guide_lists_the_root_fields_the_client_leaves_out() -> None:
    text = section("docs/client.md", "Not covered")
    bullets = [line for line in text.splitlines() if line.startswith("* ")]
    named = {name for line in bullets for name in re.findall(r"`(\w+)`", line.split(":")[0])}
    assert named == {field.split(".", 1)[1] for field in UNWRAPPED}


def test_every_operation_of_the_file_is_sent_by_a_call() -> None:
    # clients.py names each operation once (document("…") at import), so
    # a misspelt name fails at import and an operation nobody sends shows here.
    sent = {
        value for name, value in vars(clients).items() if name.isupper() and isinstance(value, str)
    }
    assert sent == set(operations.ALL)
