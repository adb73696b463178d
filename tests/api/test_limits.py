"""Query depth, alias and token limits are on."""

from __future__ import annotations

from tests.api.conftest import Api


def test_deep_queries_are_refused(api: Api) -> None:
    nested = "id " + "session { user { sessions { edges { node { " * 4 + "id" + " } } } } }" * 4
    body = api.post('{ message(id: "msg_01HZZZZZZZZZZZZZZZZZZZZZZZ") { ' + nested + " } }")
    assert body["data"] is None
    assert "exceeds maximum operation depth" in body["errors"][0]["message"]


def test_many_aliases_are_refused(api: Api) -> None:
    aliases = " ".join(f"a{i}: viewer {{ keyId }}" for i in range(40))
    body = api.post("{ " + aliases + " }")
    assert body["data"] is None
    assert "aliases" in body["errors"][0]["message"]


def test_huge_documents_are_refused(api: Api) -> None:
    fields = " ".join("__typename" for _ in range(3000))
    body = api.post("{ " + fields + " }")
    assert body["data"] is None
    assert "token" in body["errors"][0]["message"].lower()
