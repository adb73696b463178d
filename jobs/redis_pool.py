"""arq's Redis client, with transactions that give their connection back when cancelled.

redis-py 5, the newest that arq 0.28 allows (``redis<6``), loses track of a
connection when a cancellation lands in a transaction pipeline's reset,
while it waits for the UNWATCH that ends a WATCH: the connection is closed,
but the release that follows never runs. The pool counts it as in use for
good (a pool with a connection limit runs dry, one connection per such
cancel), and the pipeline holds it until it is collected, when redis-py
warns "Unclosed client session". redis-py fixed it upstream in 2026
(issue #4121), in releases arq does not allow yet.

arq runs such a transaction in each claim of a queued id, in every poll of
a worker, and in each enqueue; and both are cancelled in normal operation:
a worker's stop cancels its poll loop, and the queue's timeout
(``jobs/arq_queue.py``) cancels an enqueue that Redis is slow to answer. The
suite caught it as a ResourceWarning at a worker's stop: a worker whose
every poll claims (and skips) one id that another worker runs lost a
connection in about one stop of fifteen, and in one of three with twenty
such ids.
"""

from __future__ import annotations

import asyncio
from typing import Any

from arq import create_pool
from arq.connections import ArqRedis, RedisSettings
from redis.asyncio.client import Pipeline
from redis.exceptions import ConnectionError as RedisConnectionError


class CancelSafePipeline(Pipeline):
    """redis-py's pipeline, whose reset gives its connection back to the pool on every path."""

    async def reset(self) -> None:
        """Empty the pipeline, end its WATCH and give its connection back, even when cancelled.

        The pipeline lets go of the connection before anything is awaited.
        If the UNWATCH fails or is cancelled, the connection is closed
        instead: that ends its WATCH on the server, and no reply left unread
        reaches the connection's next user. It goes back to the pool either
        way, shielded, so a second cancel cannot stop the pool's bookkeeping
        half done.
        """
        connection, watching = self.connection, self.watching
        self.connection = None
        self.watching = False
        self.command_stack = []
        self.scripts = set()
        self.explicit_transaction = False
        if connection is None:
            return
        try:
            if watching:
                await connection.send_command("UNWATCH")
                await connection.read_response()
        except RedisConnectionError:
            await connection.disconnect(nowait=True)
        except BaseException:
            await connection.disconnect(nowait=True)
            raise
        finally:
            await asyncio.shield(self.connection_pool.release(connection))


class CancelSafeArqRedis(ArqRedis):
    """arq's client (enqueue and its job keys) whose pipelines are :class:`CancelSafePipeline`."""

    def pipeline(self, transaction: bool = True, shard_hint: str | None = None) -> Pipeline:
        """A pipeline on this client's pool (a transaction unless ``transaction`` is False)."""
        return CancelSafePipeline(
            self.connection_pool, self.response_callbacks, transaction, shard_hint
        )


async def connect(settings: RedisSettings, **options: Any) -> CancelSafeArqRedis:
    """arq's ``create_pool(settings, **options)`` (its retries, its ping), cancel-safe.

    The client owns the pool arq made: closing it closes the pool's connections.
    """
    made = await create_pool(settings, **options)
    client = CancelSafeArqRedis(
        made.connection_pool,
        job_serializer=made.job_serializer,
        job_deserializer=made.job_deserializer,
        default_queue_name=made.default_queue_name,
        expires_extra_ms=made.expires_extra_ms,
    )
    # As redis-py's from_pool does: the client owns the pool it was handed.
    client.auto_close_connection_pool = True
    return client
