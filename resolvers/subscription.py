"""Root subscriptions (graphql-transport-ws on ``/graphql``): live jobs and new memories.

Each is one service call (``hippograph.services.live``); what it yields is
mapped as the queries map it. A job or user the key may not see ends the
subscription with one ``NOT_FOUND`` error and nothing else.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing

import strawberry

from schema.context import Info
from schema.jobs import Job
from schema.masking import masked_stream
from schema.memory import Memory, memory_type
from schema.permissions import authenticated


@strawberry.type
class Subscription:
    @strawberry.subscription(
        extensions=authenticated(),
        description="A job now, then each change of its status or counts; "
        "completes once the job has succeeded or failed.",
    )
    async def job_updated(self, info: Info, id: strawberry.ID) -> AsyncGenerator[Job, None]:
        live = info.context.services.live
        # Closed with the subscription, so its event listener goes at once.
        async with aclosing(
            masked_stream(
                live.job_updates(info.context.principal, str(id), info.context.current_principal)
            )
        ) as updates:
            async for job in updates:
                yield Job.of(job)

    @strawberry.subscription(
        extensions=authenticated(),
        description="Each memory made for a user from now on: added, made by memorize or "
        "reflection, or a new version of an edited memory.",
    )
    async def memory_added(
        self, info: Info, user_id: strawberry.ID
    ) -> AsyncGenerator[Memory, None]:
        live = info.context.services.live
        async with aclosing(
            masked_stream(
                live.memories_added(
                    info.context.principal, str(user_id), info.context.current_principal
                )
            )
        ) as added:
            async for memory in added:
                yield memory_type(memory)
