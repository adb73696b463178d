"""``Call``: one GraphQL request and how to read its answer, and the readers they share.

Each method of the async client builds its own ``Call`` (its document, its
variables, its root field and its reader) and runs it; the sync client runs
the async client's methods, so an operation is written once, in one place.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from hippograph_client.decode import decode
from hippograph_client.errors import from_error_member
from hippograph_client.job_results import ForgetReport, ForgetResult, Job, JobCounts, MemorizeResult
from hippograph_client.records import Memory, Message

T = TypeVar("T")


@dataclass(frozen=True)
class Call(Generic[T]):
    """One GraphQL request and the reader of its root field's value."""

    document: str
    variables: Mapping[str, Any]
    field: str
    read: Callable[[Any], T]

    def body(self) -> dict[str, Any]:
        """The JSON body to POST."""
        return {"query": self.document, "variables": dict(self.variables)}


def success(value: Mapping[str, Any]) -> Mapping[str, Any]:
    """A mutation's union value when it is the success member; its error member raised."""
    if "code" in value and str(value.get("__typename", "")).endswith("Error"):
        raise from_error_member(value)
    return value


def known(options: Mapping[str, Any], kind: Any) -> Mapping[str, Any]:
    """``options`` if ``kind`` (a TypedDict) declares each; a misspelt one is a TypeError.

    GraphQL ignores variables an operation does not declare, so without this
    ``search(..., topk=3)`` from untyped code would quietly do nothing.
    """
    allowed = kind.__optional_keys__ | kind.__required_keys__
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise TypeError(f"unexpected option {unknown}: {kind.__name__} has {sorted(allowed)}")
    return options


def record(cls: type[T]) -> Callable[[Any], T]:
    """The reader of a query's value of type ``cls``."""
    return lambda value: decode(cls, value)


def optional(cls: type[T]) -> Callable[[Any], T | None]:
    """The reader of a query's value of type ``cls`` that may be null (not found, not yours)."""
    return lambda value: None if value is None else decode(cls, value)


def payload(cls: type[T], member: str | None = None) -> Callable[[Any], T]:
    """The reader of a mutation's success member (or of its field ``member``) as ``cls``."""
    if member is None:
        return lambda value: decode(cls, success(value))
    return lambda value: decode(cls, success(value)[member])


def memorized(value: Mapping[str, Any]) -> MemorizeResult:
    """memorize's answer: the messages as stored, and the counts or the job."""
    found = success(value)
    return MemorizeResult(
        messages=tuple(decode(Message, m) for m in found["messages"]),
        created=int(found["created"]),
        counts=None if found["counts"] is None else decode(JobCounts, found["counts"]),
        job=None if found["job"] is None else decode(Job, found["job"]),
    )


def forgotten(value: Mapping[str, Any]) -> ForgetResult:
    """forget's answer: the report of a run done at once, or the job of a queued one."""
    found = success(value)
    if "job" in found:
        return ForgetResult(job=decode(Job, found["job"]))
    return ForgetResult(report=decode(ForgetReport, found))


def memory_payload(value: Mapping[str, Any]) -> Memory:
    """addMemory's and updateMemory's answer: the memory."""
    return decode(Memory, success(value)["memory"])
