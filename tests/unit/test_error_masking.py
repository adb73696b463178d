"""Every GraphQL error carries a code; a bug's message never reaches the client."""

from __future__ import annotations

from collections.abc import AsyncGenerator

import strawberry

from hippograph.errors import InvalidInput, NotFound
from schema.masking import MASKED_MESSAGE, ErrorCodes, masked_stream


@strawberry.type
class _Query:
    @strawberry.field
    def bug(self) -> str | None:
        raise RuntimeError("password=hunter2 at /srv/secret.py")

    @strawberry.field
    def bad_input(self) -> str:
        raise InvalidInput("limit must be at most 100", "limit")

    @strawberry.field
    def missing(self) -> str | None:
        raise NotFound("memory", "mem_1")


async def _counting(then: Exception) -> AsyncGenerator[int, None]:
    yield 1
    raise then


@strawberry.type
class _Subscription:
    @strawberry.subscription
    async def broken(self) -> AsyncGenerator[int, None]:
        async for n in masked_stream(_counting(RuntimeError("password=hunter2"))):
            yield n

    @strawberry.subscription
    async def gone(self) -> AsyncGenerator[int, None]:
        async for n in masked_stream(_counting(NotFound("job", "job_1"))):
            yield n


_SCHEMA = strawberry.Schema(query=_Query, subscription=_Subscription, extensions=[ErrorCodes])


async def _streamed(document: str) -> list[tuple[object, list[tuple[str, object]]]]:
    results: list[tuple[object, list[tuple[str, object]]]] = []
    async for result in await _SCHEMA.stream(document):
        assert isinstance(result, strawberry.types.ExecutionResult)
        errors: list[tuple[str, object]] = [(e.message, e.extensions) for e in result.errors or []]
        results.append((result.data, errors))
    return results


async def test_an_unexpected_error_is_masked_as_internal() -> None:
    result = await _SCHEMA.execute("{ bug }")
    assert result.errors is not None
    [error] = result.errors
    assert error.message == MASKED_MESSAGE
    assert error.extensions == {"code": "INTERNAL"}
    assert error.original_error is None
    assert error.path == ["bug"]


async def test_expected_errors_keep_their_message_code_and_field() -> None:
    result = await _SCHEMA.execute("{ badInput }")
    assert result.errors is not None
    assert [(e.message, e.extensions) for e in result.errors] == [
        ("limit must be at most 100", {"code": "BAD_USER_INPUT", "field": "limit"})
    ]
    result = await _SCHEMA.execute("{ missing }")
    assert result.errors is not None
    assert [e.extensions for e in result.errors] == [{"code": "NOT_FOUND"}]


async def test_graphql_errors_before_execution_are_the_clients() -> None:
    for document in ("{ nosuchField }", "{ bug", "query ($n: Int!) { bug }"):
        result = await _SCHEMA.execute(document)
        assert result.errors is not None
        for error in result.errors:
            assert error.message != MASKED_MESSAGE
            assert error.extensions == {"code": "GRAPHQL_VALIDATION_FAILED"}


async def test_only_the_bugs_are_masked_when_errors_mix() -> None:
    result = await _SCHEMA.execute("{ bug missing }")
    assert result.errors is not None
    codes = sorted((e.extensions or {})["code"] for e in result.errors)
    assert codes == ["INTERNAL", "NOT_FOUND"]


async def test_a_bug_in_a_subscriptions_stream_is_masked_and_expected_errors_are_coded() -> None:
    assert await _streamed("subscription { broken }") == [
        ({"broken": 1}, []),
        (None, [(MASKED_MESSAGE, {"code": "INTERNAL"})]),
    ]
    assert await _streamed("subscription { gone }") == [
        ({"gone": 1}, []),
        (None, [("job 'job_1' not found", {"code": "NOT_FOUND"})]),
    ]
