"""addMessages: a replay creates nothing; a client id reused for another message is refused."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import ADD_MESSAGES, Api, seed_user

MESSAGES = """
query($id: ID!) {
  session(id: $id) { messages(first: 50) { edges { node { content speaker seq } } } }
}"""


def _stored(api: Api, session: str) -> list[dict[str, Any]]:
    edges = api.ok(MESSAGES, {"id": session})["session"]["messages"]["edges"]
    return [e["node"] for e in edges]


def test_a_client_id_reused_for_another_message_is_a_conflict(api: Api) -> None:
    session, _ = seed_user(api, "ann", ["hello"])
    sent = [{"speaker": "ann", "content": "A", "clientId": "c1"}]
    first = api.ok(ADD_MESSAGES, {"sessionId": session, "messages": sent})["addMessages"]
    assert (first["created"], first["existing"]) == (1, 0), first
    # The same call again is a replay: nothing new, no error.
    again = api.ok(ADD_MESSAGES, {"sessionId": session, "messages": sent})["addMessages"]
    assert (again["created"], again["existing"]) == (0, 1), again
    assert again["messages"] == first["messages"]
    before = _stored(api, session)
    fresh = {"speaker": "ann", "content": "a new line"}
    for other in ({"content": "B"}, {"speaker": "bob"}, {"role": "ASSISTANT"}):
        messages = [fresh, sent[0] | other]
        answer = api.post(ADD_MESSAGES, {"sessionId": session, "messages": messages})
        errors = answer.get("errors") or []
        assert [e["extensions"]["code"] for e in errors] == ["CONFLICT"], answer
        assert "c1" in errors[0]["message"]
        # All or nothing: the new line in the same call was not kept either.
        assert _stored(api, session) == before
