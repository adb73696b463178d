"""Start-up and shut-down of everything a process needs: graph, model, services."""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from graph.embedded import EmbeddedArcadeDB
from graph.store import GraphConnection, GraphStore, connect
from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.adapters.model_catalog import find_model
from hippograph.adapters.offline_llm import OfflineExtractor, OfflineRules
from hippograph.adapters.redis_events import RedisEventBus, channel_name
from hippograph.broadcast import LocalBroadcast
from hippograph.clock import Clock, utc_now
from hippograph.errors import HippoError
from hippograph.jobs import Delivery
from hippograph.metrics import Metrics
from hippograph.ports import LLM, Embedder
from hippograph.services import Services, job_payloads
from hippograph.services.keys import KeyService
from hippograph.settings import Settings
from hippograph.wiring import build_services
from jobs.arq_queue import ArqQueue
from jobs.clock_skew import check_clock
from jobs.inprocess import InProcessConsumer, InProcessQueue

log = logging.getLogger(__name__)


@dataclass
class Runtime:
    """The live parts of one process."""

    settings: Settings
    connection: GraphConnection
    embedder: Embedder
    services: Services
    owns_embedder: bool
    queue: InProcessQueue | ArqQueue
    llm: LLM
    metrics: Metrics
    # Live updates: this process's broadcast (embedded mode) or Redis pub/sub (server mode).
    events: LocalBroadcast | RedisEventBus
    # Embedded mode's: what drains ``queue`` in this process (arq workers drain Redis).
    consumer: InProcessConsumer | None = None
    sweepers: list[asyncio.Task[None]] = field(default_factory=list)

    @classmethod
    async def start(
        cls,
        settings: Settings,
        *,
        embedder: Embedder | None = None,
        embedded: EmbeddedArcadeDB | None = None,
        database: str | None = None,
        clock: Clock = utc_now,
    ) -> Runtime:
        """Load the model and open the graph (concurrently), set up the schema, wire services.

        Passing ``embedder`` or ``embedded`` reuses them (tests share one model
        and one embedded server across many runtimes); they are then not closed
        by :meth:`stop`.
        """
        owns_embedder = embedder is None
        model_task = asyncio.ensure_future(
            SentenceTransformerEmbedder.load(settings.embedding)
            if embedder is None
            else _ready(embedder)
        )
        try:
            connection = await connect(
                settings.graph, job_codec=job_payloads, embedded=embedded, database=database
            )
        except BaseException:
            model_task.cancel()
            raise
        queue: InProcessQueue | ArqQueue | None = None
        events: LocalBroadcast | RedisEventBus | None = None
        try:
            model = await model_task
            await setup_for(connection.store, model)
            llm = build_llm(settings)
            metrics = Metrics(connection.store.stats.counts)
            queue = await _queue(settings)
            if isinstance(queue, ArqQueue):
                # Queue times and job leases compare the clocks of processes
                # on different hosts: say so when this one is off.
                await check_clock(queue, clock, settings.jobs.lease_s)
            events = bus = _event_bus(settings)
            metrics.watch_subscriptions(lambda: bus.subscribers)
            services = build_services(
                connection.store,
                model,
                llm,
                clock,
                settings,
                queue,
                metrics,
                events,
                unpublished=metrics.events_unpublished.inc,
            )
            await ensure_admin_key(services.keys, settings.graph.data_dir)
            if isinstance(queue, InProcessQueue):
                for job_id in await services.job_runner.resume_orphans():
                    await queue.enqueue(Delivery(job_id))
        except BaseException:
            if isinstance(queue, ArqQueue):
                await queue.close()
            if events is not None:
                await events.close()
            await connection.close()
            raise
        # Start-up leaves ~100k tracked objects (the schema, the driver, the
        # model's runtime; ~400k with torch's): freezing them keeps the
        # collector from walking them all on the event loop (stalls of up to
        # 300 ms were seen with torch).
        gc.collect()
        gc.freeze()
        runtime = cls(
            settings, connection, model, services, owns_embedder, queue, llm, metrics, events
        )
        if isinstance(queue, InProcessQueue):
            runtime.consumer = InProcessConsumer(queue, services.job_runner.run)
            # Embedded mode's scheduler; in server mode arq's cron does this.
            sweeps = (
                ("reflection", services.reflection.sweep, settings.reflection.sweep_interval_s),
                ("forgetting", services.forgetting.sweep, settings.forgetting.sweep_interval_s),
            )
            runtime.sweepers = [
                asyncio.create_task(sweep_forever(name, sweep, interval))
                for name, sweep, interval in sweeps
                if interval > 0
            ]
        return runtime

    async def readiness(self, timeout_s: float) -> dict[str, str]:
        """Each dependency's state, ``"ok"`` or why not: graph, queue (Redis), model.

        Checked concurrently, each within ``timeout_s``, so a hung dependency
        makes the answer late by at most that much.
        """

        async def check(probe: Awaitable[object]) -> str:
            try:
                await asyncio.wait_for(probe, timeout_s)
            except TimeoutError:
                return f"no answer within {timeout_s:g} s"
            except Exception as exc:
                return str(getattr(exc, "message", None) or exc)
            return "ok"

        probes: dict[str, Awaitable[object]] = {
            "graph": self.connection.store.graph.ping(),
            "model": self.embedder.embed(["ready"]),
        }
        if isinstance(self.queue, ArqQueue):
            probes["queue"] = self.queue.ping()
        results = await asyncio.gather(*(check(p) for p in probes.values()))
        return dict(zip(probes, results, strict=True))

    async def stop(self) -> None:
        """Stop the jobs, close the graph (and an embedded server it started) and the model."""
        try:
            for sweeper in self.sweepers:
                sweeper.cancel()
            await asyncio.gather(*self.sweepers, return_exceptions=True)
            if self.consumer is not None:
                await self.consumer.close()
            if isinstance(self.queue, ArqQueue):
                await self.queue.close()
            await self.events.close()
            aclose = getattr(self.llm, "aclose", None)
            if aclose is not None:
                await aclose()
        finally:
            await self._close_graph()

    async def _close_graph(self) -> None:
        try:
            await self.connection.close()
        finally:
            close = getattr(self.embedder, "close", None)
            if self.owns_embedder and close is not None:
                await close()


async def setup_for(store: GraphStore, embedder: Embedder) -> None:
    """Set the graph up for ``embedder``'s vectors: refused when another model made the graph's.

    A precision change of the same model is allowed with a warning: int8
    vectors are within cosine 0.99 of float32 ones, so search still works,
    and ``hippograph reindex`` makes them uniform.
    """
    catalogued = find_model(embedder.model_name)
    stored = await store.setup(
        model=embedder.model_name,
        dimensions=embedder.dimensions,
        precision=embedder.precision,
        known_as=catalogued.aliases if catalogued is not None else (),
    )
    if stored.vectors.precision != embedder.precision:
        log.warning(
            "this graph's vectors are %s, the model now runs in %s: `hippograph reindex "
            "--model %s --precision %s` re-embeds them all in %s",
            stored.vectors.precision,
            embedder.precision,
            embedder.model_name,
            embedder.precision,
            embedder.precision,
        )


async def _ready(embedder: Embedder) -> Embedder:
    return embedder


async def sweep_forever(name: str, sweep: Callable[[], Awaitable[object]], interval: float) -> None:
    """Every ``interval`` seconds, run ``sweep`` (it queues the jobs that are due), until
    cancelled; a failed sweep is logged and tried again at the next interval.

    A failure the service expects (the graph or Redis away for a while) is
    one line each time, without a traceback: it says all there is to say.
    """
    while True:
        await asyncio.sleep(interval)
        try:
            await sweep()
        except HippoError as exc:
            log.warning("the %s sweep failed: %s; trying again in %gs", name, exc.message, interval)
        except Exception:
            log.exception("the %s sweep failed; trying again next time", name)


def build_llm(settings: Settings) -> LLM:
    """The extractor the settings choose: offline (default) or an OpenAI-compatible API."""
    if settings.llm.provider == "openai":
        # Imported here: the SDK's types cost a quarter second at every start
        # of a process that never calls an API.
        from hippograph.adapters.openai_llm import OpenAICompatibleLLM

        return OpenAICompatibleLLM(settings.llm)
    rules = OfflineRules(
        keep_fact=settings.memorize.keep_fact, keep_event=settings.memorize.keep_event
    )
    return OfflineExtractor(rules)


async def _queue(settings: Settings) -> InProcessQueue | ArqQueue:
    """Where submitted jobs go: Redis (arq workers drain it) or this process's own queue."""
    if settings.jobs.mode == "arq":
        return await ArqQueue.connect(
            settings.redis.url, settings.jobs.queue, timeout_s=settings.redis.timeout_s
        )
    return InProcessQueue()


def _event_bus(settings: Settings) -> LocalBroadcast | RedisEventBus:
    """Where live updates travel: Redis when jobs run in other processes, else this one."""
    if settings.jobs.mode == "arq":
        return RedisEventBus(
            settings.redis.url, channel_name(settings.jobs.queue), settings.redis.timeout_s
        )
    return LocalBroadcast()


async def ensure_admin_key(keys: KeyService, data_dir: Path) -> Path | None:
    """Make sure someone can administer this service; returns where a new key was written.

    With no admin key in settings and none stored, one is created and written
    to ``<data_dir>/admin.key`` (mode 600): the first start of ``make run``
    then has a key to paste into GraphiQL.
    """
    if await keys.has_admin():
        return None
    _, key = await keys.issue("admin (created at first start)", True, [])
    path = data_dir / "admin.key"
    await asyncio.to_thread(_write_secret, path, key)
    log.warning("created an admin API key; it is in %s", path)
    return path


def _write_secret(path: Path, secret: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600)
    # touch's mode is for a new file: one left from before keeps its own.
    path.chmod(0o600)
    path.write_text(secret + "\n")
