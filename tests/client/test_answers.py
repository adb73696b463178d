"""How the client reads an HTTP answer that is not the API's own: a proxy's page,
a gateway's 429, a body of the wrong shape. Each is a ``HippoGraphError`` the
caller can tell apart, by the API's code where the answer had one and by its
HTTP status where it had none."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from hippograph_client import (
    BadUserInput,
    HippoGraphError,
    RateLimited,
    ServerError,
    Unauthenticated,
    Unavailable,
    Viewer,
)
from hippograph_client.calls import Call, record
from hippograph_client.clients import VIEWER
from hippograph_client.transport import answer

CALL = Call(VIEWER, {}, "viewer", record(Viewer))


def _raised(response: httpx.Response) -> HippoGraphError:
    with pytest.raises(HippoGraphError) as raised:
        answer(CALL, response)
    return raised.value


@pytest.mark.parametrize(
    ("status", "kind", "code"),
    [
        (401, Unauthenticated, "UNAUTHENTICATED"),
        (503, Unavailable, "UNAVAILABLE"),
        (502, ServerError, "HTTP_502"),
        (500, ServerError, "HTTP_500"),
        (404, ServerError, "HTTP_404"),
    ],
)
def test_an_answer_without_the_apis_body_is_read_by_its_status(
    status: int, kind: type[HippoGraphError], code: str
) -> None:
    for response in (
        httpx.Response(status, text="<html>Bad Gateway</html>"),
        httpx.Response(status, json={"message": "upstream failed"}),
    ):
        error = _raised(response)
        assert type(error) is kind
        assert error.code == code
        assert f"HTTP {status}" in error.message


def test_a_gateways_429_is_rate_limited_with_its_retry_after() -> None:
    for response in (
        httpx.Response(429, text="Too Many Requests", headers={"Retry-After": "7"}),
        httpx.Response(429, json={"error": "slow down"}, headers={"Retry-After": "7"}),
    ):
        error = _raised(response)
        assert isinstance(error, RateLimited)
        assert error.retry_after == 7


def test_the_servers_own_413_is_bad_input() -> None:
    body = {
        "data": None,
        "errors": [{"message": "too big", "extensions": {"code": "PAYLOAD_TOO_LARGE"}}],
    }
    error = _raised(httpx.Response(413, json=body))
    assert isinstance(error, BadUserInput)
    assert error.message == "too big"


@pytest.mark.parametrize(
    "errors",
    ["boom", ["boom"], [{"message": "boom", "extensions": ["not", "a", "map"]}], [{}]],
)
def test_errors_of_the_wrong_shape_are_a_server_error(errors: Any) -> None:
    error = _raised(httpx.Response(200, json={"data": None, "errors": errors}))
    assert isinstance(error, ServerError)


def test_a_good_answer_is_read() -> None:
    body = {"data": {"viewer": {"keyId": "key_1", "admin": True, "userIds": []}}}
    assert answer(CALL, httpx.Response(200, json=body)).admin is True
