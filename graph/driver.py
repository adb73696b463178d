"""Managed transactions over one async driver, with the error mapping in one place.

Units of work are plain async functions of a transaction; the driver may run
them more than once (transient errors, deadlocks), so they read their results
inside and return plain values. A unit built only of MERGEs may also ask to be
retried on ``ConstraintError``: ArcadeDB, unlike Neo4j, lets two racing MERGEs
of the same key both try to create it, and the loser fails instead of matching.
Run again, the MERGE matches the winner's node.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, LiteralString, TypeVar

from neo4j import (
    READ_ACCESS,
    WRITE_ACCESS,
    AsyncDriver,
    AsyncManagedTransaction,
    AsyncSession,
    Record,
)
from neo4j.exceptions import (
    ClientError,
    ConstraintError,
    DriverError,
    IncompleteCommit,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from graph.cypher import cypher
from graph.links import Unlinked
from graph.retry import Failure, RetryPolicy
from hippograph.errors import Conflict, Contended, NotFound, Unavailable

T = TypeVar("T")
Work = Callable[[AsyncManagedTransaction], Awaitable[T]]

log = logging.getLogger(__name__)

# What Neo4j answers the loser of two racing CREATE ... IF NOT EXISTS.
_SCHEMA_RACES = {
    "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists",
    "Neo.ClientError.Schema.IndexAlreadyExists",
    "Neo.ClientError.Schema.ConstraintAlreadyExists",
}

# What Neo4j answers a write whose matched node another transaction deleted.
_DELETED_MEANWHILE = "Neo.ClientError.Statement.EntityNotFound"


async def fetch(
    tx: AsyncManagedTransaction, query: LiteralString, params: Mapping[str, Any] | None = None
) -> list[Record]:
    """Run ``query`` in ``tx`` and read every record."""
    result = await tx.run(query, dict(params or {}))
    return [record async for record in result]


async def execute(
    tx: AsyncManagedTransaction, query: LiteralString, params: Mapping[str, Any] | None = None
) -> None:
    """Run ``query`` in ``tx`` for its effect and discard what it returns."""
    result = await tx.run(query, dict(params or {}))
    await result.consume()


_PING = cypher("driver.PING", "RETURN 1 AS ok")


async def _ping(tx: AsyncManagedTransaction) -> None:
    await execute(tx, _PING)


class GraphDriver:
    """One driver per process; one session per unit of work.

    The driver is built with ``max_transaction_retry_time=0`` (see
    ``graph.store``): retries happen here, under ``retry`` (a
    :class:`~graph.retry.RetryPolicy`, shared with the dialect's DDL).
    """

    def __init__(
        self,
        driver: AsyncDriver,
        database: str,
        retry: RetryPolicy | None = None,
        *,
        serial_writes: bool = False,
    ) -> None:
        self._driver = driver
        self.database = database
        self.retry = retry or RetryPolicy()
        # serial_writes: this process's write transactions run one at a time,
        # first come first served (for a server that fails colliding commits
        # instead of queueing them: ArcadeDB).
        self._writes = asyncio.Lock() if serial_writes else None

    async def _managed(
        self, run: Callable[[AsyncSession], Awaitable[T]], access: str = WRITE_ACCESS
    ) -> T:
        attempts = self.retry.attempts()
        while True:
            try:
                async with self._driver.session(
                    database=self.database, default_access_mode=access
                ) as session:
                    return await run(session)
            except TransientError as exc:
                if attempts.exhausted(Failure.TRANSIENT):
                    # Ours, not the driver's: callers (a job's runner) retry it.
                    raise Contended(
                        f"the graph kept refusing the transaction for contention: {exc.code}"
                    ) from exc
            except (ServiceUnavailable, SessionExpired) as exc:
                if isinstance(exc, IncompleteCommit) and access == WRITE_ACCESS:
                    # The connection dropped during COMMIT, so the write may
                    # be in the graph: run again, a boost would count twice
                    # and a supersede would refuse its own edit. The driver
                    # does not retry this either.
                    raise Unavailable(
                        "the connection to the graph dropped while it committed: the change "
                        "may or may not have been made; read it back before trying again"
                    ) from exc
                if attempts.exhausted(Failure.UNAVAILABLE):
                    raise Unavailable(f"the graph database cannot be reached: {exc}") from exc
            await attempts.pause()

    async def read(self, work: Work[T]) -> T:
        """Run ``work`` in a managed read transaction."""
        return await self._managed(lambda session: session.execute_read(work), READ_ACCESS)

    async def query(
        self, query: LiteralString, params: Mapping[str, Any] | None = None
    ) -> list[Record]:
        """Run one read-only statement on its own and read every record; retried like ``read``.

        A statement is atomic by itself, so an explicit transaction adds
        nothing but its BEGIN/COMMIT exchange: 1.25 ms against 0.46 ms for a
        trivial query on loopback, and a search runs three reads end to end.
        Only for a single statement that writes nothing.
        """

        async def run(session: AsyncSession) -> list[Record]:
            result = await session.run(query, dict(params or {}))
            return [record async for record in result]

        return await self._managed(run, READ_ACCESS)

    async def write(self, work: Work[T], *, merge_only: bool = False) -> T:
        """Run ``work`` in a managed write transaction.

        ``merge_only`` marks a unit whose every create is a MERGE on a unique
        key, so a ``ConstraintError`` can only be a lost race and is retried.
        Otherwise a ``ConstraintError`` means a real duplicate: ``Conflict``.
        A link that missed an end (``Unlinked``, graph/links.py) is retried
        like a lost race, then is ``NotFound``.
        """
        attempts = self.retry.attempts()
        while True:
            try:
                return await self._write(work)
            except ConstraintError as exc:
                if not merge_only or attempts.exhausted(Failure.RACE):
                    # The server's message names internal records: keep it in the log.
                    log.info("constraint violation: %s", exc.message)
                    raise Conflict("a node with this id already exists") from exc
            except Unlinked as exc:
                if attempts.exhausted(Failure.RACE):
                    raise NotFound(exc.resource, exc.detail) from exc
                log.info("a link missed %s; trying again", exc)
            except ClientError as exc:
                # Neo4j's answer to a write that matched a node, then waited on
                # its lock while another transaction deleted it (a derivation
                # racing a deletion, graph/cypher.py's provenance_write): run
                # again, the match no longer finds it.
                if exc.code != _DELETED_MEANWHILE:
                    raise
                if attempts.exhausted(Failure.RACE):
                    raise Conflict("a node this write needed was deleted meanwhile") from exc
                log.info("a node was deleted under this write; trying again")
            await attempts.pause()

    async def write_rows(
        self, query: LiteralString, params: Mapping[str, Any] | None = None
    ) -> list[Record]:
        """Run ``query`` alone in a managed write transaction (``write``) and read every record.

        The write's twin of :meth:`query`: a write keeps its transaction, for
        ``write``'s retries and its answer to a lost race.
        """

        async def work(tx: AsyncManagedTransaction) -> list[Record]:
            return await fetch(tx, query, params)

        return await self.write(work)

    async def _write(self, work: Work[T]) -> T:
        """One managed write transaction, after the writes queued before it, if they queue."""
        if self._writes is None:
            return await self._managed(lambda session: session.execute_write(work))
        async with self._writes:
            return await self._managed(lambda session: session.execute_write(work))

    async def write_once(self, work: Work[object]) -> bool:
        """Run ``work`` in one write transaction, once, and say whether it committed.

        For writes that are worth less than the time a retry costs: touching
        recalled memories under load would otherwise collide on hot nodes, and
        the driver's retries back off for a second each. A lost touch costs an
        access count; a stalled search costs the user.
        """
        try:
            async with self._driver.session(database=self.database) as session:
                transaction = await session.begin_transaction()
                try:
                    await work(transaction)  # type: ignore[arg-type]
                    await transaction.commit()
                    return True
                finally:
                    if transaction.closed() is False:
                        await transaction.rollback()
        except (TransientError, ConstraintError) as exc:
            log.debug("best-effort write dropped: %s", exc)
            return False
        except (ServiceUnavailable, SessionExpired) as exc:
            raise Unavailable(f"the graph database cannot be reached: {exc}") from exc

    async def run_schema(self, query: LiteralString) -> None:
        """Run one schema statement in its own auto-commit transaction.

        Schema changes cannot share a transaction with data (Neo4j) and are
        idempotent (IF NOT EXISTS), so a plain retry on a transient error is
        safe, and so is one on a lost race: two processes starting at once
        (docker compose's api and worker) both create the same index, and
        Neo4j answers the slower ``EquivalentSchemaRuleAlreadyExists`` instead
        of a no-op. Run again, IF NOT EXISTS sees the winner's index.
        """
        attempts = self.retry.attempts()
        while True:
            try:
                async with self._driver.session(database=self.database) as session:
                    result = await session.run(query)
                    await result.consume()
                    return
            except TransientError as exc:
                if attempts.exhausted(Failure.TRANSIENT):
                    raise Unavailable(f"schema statement kept failing: {query[:80]}") from exc
            except ClientError as exc:
                if exc.code not in _SCHEMA_RACES:
                    raise
                if attempts.exhausted(Failure.RACE):
                    raise Unavailable(f"schema statement kept failing: {query[:80]}") from exc
            except (ServiceUnavailable, SessionExpired) as exc:
                raise Unavailable(f"the graph database cannot be reached: {exc}") from exc
            await attempts.pause()

    async def ping(self) -> None:
        """Raise ``Unavailable`` unless this database answers a query.

        A query rather than the driver's connectivity check: a server that
        accepts connections but has lost the database is not ready either.
        """
        try:
            await self.read(_ping)
        except (DriverError, OSError) as exc:
            raise Unavailable(f"the graph database cannot be reached: {exc}") from exc

    async def server_agent(self) -> str:
        """The server's agent string, e.g. ``Neo4j/5.26.0``."""
        # Any database's server is this one; naming the database is a driver
        # preview feature that warns.
        info = await self._driver.get_server_info()
        return str(info.agent)

    async def close(self) -> None:
        """Close every pooled connection."""
        await self._driver.close()
