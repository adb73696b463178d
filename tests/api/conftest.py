"""The API over real HTTP handling (Starlette's TestClient), a fresh database per test."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Generic

import pytest
from starlette.testclient import TestClient
from typing_extensions import TypeVar

from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.server.app import create_app
from hippograph.settings import ApiSettings, Settings
from tests.graphql import Answer, SyncHttp, bearer, data_of, payload
from tests.graphs import TestDatabase

ADMIN_KEY = "hg_test-admin-key-for-the-api-tests"


# The client an Api is over: TestClient here, an httpx.Client to a live server
# in the e2e tests (TestClient is built on httpx2, so neither is the other's type).
C = TypeVar("C", bound=SyncHttp, default=TestClient)


class Api(Generic[C]):
    """A GraphQL client bound to one API key."""

    def __init__(self, client: C, key: str | None) -> None:
        self.client = client
        self.key = key

    def as_key(self, key: str | None) -> Api[C]:
        """The same client with another key."""
        return Api(self.client, key)

    def post(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        """The JSON answer of one operation (any status)."""
        response = self._send(query, variables)
        body: dict[str, Any] = response.json()
        body["_status"] = response.status_code
        return body

    def ok(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        """The ``data`` of an operation that must succeed without errors."""
        return data_of(self._send(query, variables))

    def _send(self, query: str, variables: dict[str, Any] | None) -> Answer:
        return self.client.post(
            "/graphql", json=payload(query, variables), headers=bearer(self.key)
        )

    def error_codes(self, query: str, variables: dict[str, Any] | None = None) -> list[str]:
        """The ``extensions.code`` of every error of an operation."""
        body = self.post(query, variables)
        return [e.get("extensions", {}).get("code") for e in body.get("errors") or []]

    def finished_job(self, query: str, job_id: str, timeout_s: float = 30.0) -> dict[str, Any]:
        """``query``'s job (it selects ``job(id: $id) { status … }``) once it succeeded or
        failed, or as it stands when ``timeout_s`` have passed."""
        deadline = time.monotonic() + timeout_s
        while True:
            job: dict[str, Any] = self.ok(query, {"id": job_id})["job"]
            if job["status"] in {"SUCCEEDED", "FAILED"} or time.monotonic() > deadline:
                return job
            time.sleep(0.05)

    def create_key(self, user_ids: list[str]) -> str:
        """A new key limited to ``user_ids`` (made with this client's admin key)."""
        data = self.ok(
            'mutation($u: [ID!]!) { createApiKey(input: {name: "t", userIds: $u}) '
            "{ ... on ApiKeyCreated { key } ... on Error { message } } }",
            {"u": user_ids},
        )
        key: str = data["createApiKey"]["key"]
        return key


# Important facts of two themes: what one reflect run consolidates into two
# reflections (coffee, climbing).
ANN_FACTS_BY_THEME: dict[str, list[tuple[str, float]]] = {
    "coffee": [
        ("Ann drinks two flat whites every morning", 0.8),
        ("Ann loves espresso from the cafe near her office", 0.8),
        ("Ann grinds her own coffee beans at home", 0.7),
    ],
    "climbing": [
        ("Ann goes rock climbing every Saturday", 0.8),
        ("Ann is training to lead climb outdoors in the Alps", 0.9),
        ("Ann bought new climbing shoes last week", 0.7),
    ],
}


def make_settings(graph_db: TestDatabase, data_dir: Path, **api: Any) -> Settings:
    """Settings for an app on the test's database."""
    return Settings(
        graph=graph_db.settings(data_dir),
        api=ApiSettings(admin_key=ADMIN_KEY, key_cache_ttl_s=0, **api),
    )


@pytest.fixture
def settings(graph_db: TestDatabase, tmp_path: Path) -> Settings:
    """This test's settings."""
    return make_settings(graph_db, tmp_path)


@pytest.fixture
def client(
    graph_db: TestDatabase, embedder: SentenceTransformerEmbedder, settings: Settings
) -> Iterator[TestClient]:
    """The app, started (lifespan and all) on an empty database."""
    app = create_app(settings, embedder=embedder, **graph_db.start)
    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture
def api(client: TestClient) -> Api:
    """A GraphQL client with the admin key."""
    return Api(client, ADMIN_KEY)


CREATE_USER = """
mutation($id: ID!, $name: String!) {
  createUser(input: {id: $id, name: $name}) {
    __typename
    ... on UserCreated { user { id name } }
    ... on Error { message code }
  }
}"""

CREATE_SESSION = """
mutation($userId: ID!) {
  createSession(input: {userId: $userId, title: "chat"}) {
    __typename
    ... on SessionCreated { session { id } }
    ... on Error { message code }
  }
}"""

ADD_MESSAGES = """
mutation($sessionId: ID!, $messages: [MessageInput!]!) {
  addMessages(input: {sessionId: $sessionId, messages: $messages}) {
    __typename
    ... on MessagesAdded { created existing messages { id seq content } }
    ... on InputError { message field }
    ... on Error { message code }
  }
}"""

ADD_MEMORY = """
mutation($input: AddMemoryInput!) {
  addMemory(input: $input) {
    __typename
    ... on MemoryPayload { memory { id content kind } }
    ... on InputError { message field }
    ... on Error { message code }
  }
}"""


# A validity that ended years ago: the memory is no longer current.
ENDED = {"validFrom": "2020-01-01T00:00:00+00:00", "validTo": "2021-01-01T00:00:00+00:00"}


def seed_user(api: Api, user_id: str, texts: list[str]) -> tuple[str, list[str]]:
    """A user with one session holding ``texts``; returns (session id, message ids)."""
    assert api.ok(CREATE_USER, {"id": user_id, "name": user_id.title()})["createUser"]["user"]
    session = api.ok(CREATE_SESSION, {"userId": user_id})["createSession"]["session"]["id"]
    added = api.ok(
        ADD_MESSAGES,
        {"sessionId": session, "messages": [{"speaker": user_id, "content": t} for t in texts]},
    )["addMessages"]
    return session, [m["id"] for m in added["messages"]]


GROUP_MEMORIZE = """
mutation($session: ID!, $messages: [MessageInput!]!) {
  memorize(input: {userIds: ["bob", "ann"], sessionId: $session, messages: $messages}) {
    __typename ... on Memorized { counts { memunits memories } } ... on Error { message }
  }
}"""


def group_memorize(api: Api, messages: list[dict[str, str]]) -> tuple[str, dict[str, Any]]:
    """Users bob and ann, and ``messages`` memorized as a group conversation of both, kept in
    Bob's session (it already holds one message of his); the session's id and the answer."""
    session, _ = seed_user(api, "bob", ["hi"])
    seed_user(api, "ann", ["hello"])
    made = api.ok(GROUP_MEMORIZE, {"session": session, "messages": messages})["memorize"]
    assert made["__typename"] == "Memorized", made
    return session, made


def add_memory(
    api: Api,
    user_id: str,
    content: str,
    derived_from: list[str] | None = None,
    *,
    extra: dict[str, Any] | None = None,
) -> str:
    """Add a memory (``extra``: more fields of ``AddMemoryInput``) and return its id."""
    given = {"userId": user_id, "content": content, "derivedFrom": derived_from or []}
    result = api.ok(ADD_MEMORY, {"input": given | (extra or {})})["addMemory"]
    assert result["__typename"] == "MemoryPayload", result
    memory_id: str = result["memory"]["id"]
    return memory_id
