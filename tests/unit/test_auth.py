"""Principals, keys and bearer headers."""

from __future__ import annotations

from hippograph.auth import Principal, generate_key, hash_key, keys_match, parse_bearer


def test_a_limited_principal_sees_only_its_users() -> None:
    ann = Principal(key_id="k", admin=False, user_ids=frozenset({"ann"}))
    assert ann.can_access("ann")
    assert not ann.can_access("bob")
    assert ann.scope == ["ann"]
    admin = Principal(key_id="a", admin=True)
    assert admin.can_access("anyone")
    assert admin.scope is None


def test_keys_are_random_and_matched_by_hash() -> None:
    key = generate_key()
    assert key.startswith("hg_")
    assert key != generate_key()
    assert keys_match(key, hash_key(key))
    assert not keys_match(key + "x", hash_key(key))


def test_bearer_parsing() -> None:
    assert parse_bearer("Bearer abc") == "abc"
    assert parse_bearer("bearer   abc ") == "abc"
    assert parse_bearer("Basic abc") is None
    assert parse_bearer("Bearer ") is None
    assert parse_bearer(None) is None
