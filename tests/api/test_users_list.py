"""users(first, after): the users a key may see, page by page."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import CREATE_USER, Api

USERS = """
query($first: Int!, $after: String) {
  users(first: $first, after: $after) {
    edges { cursor node { id name } }
    pageInfo { hasNextPage endCursor }
  }
}"""


def _all(api: Api, first: int) -> list[str]:
    seen: list[str] = []
    after: str | None = None
    while True:
        page: dict[str, Any] = api.ok(USERS, {"first": first, "after": after})["users"]
        seen += [e["node"]["id"] for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            return seen
        after = page["pageInfo"]["endCursor"]


def test_a_key_lists_exactly_the_users_it_may_see(api: Api) -> None:
    for user_id in ("dora", "ann", "cid", "bob", "eve"):
        api.ok(CREATE_USER, {"id": user_id, "name": user_id.title()})
    assert _all(api, 2) == ["ann", "bob", "cid", "dora", "eve"]  # admin: everyone, by id
    assert _all(api, 50) == ["ann", "bob", "cid", "dora", "eve"]
    limited = api.as_key(api.create_key(["eve", "bob"]))
    assert _all(limited, 1) == ["bob", "eve"]
    assert api.as_key(None).error_codes(USERS, {"first": 5}) == ["UNAUTHENTICATED"]


def test_bad_pages_are_input_errors(api: Api) -> None:
    for variables, field in (
        ({"first": 0}, "first"),
        ({"first": 100000}, "first"),
        ({"first": 5, "after": "garbage"}, "after"),
    ):
        [error] = api.post(USERS, variables)["errors"]
        assert error["extensions"] == {"code": "BAD_USER_INPUT", "field": field}
