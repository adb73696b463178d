"""The ``hippograph`` command: serve, init, keys, export-schema, worker, import, bench.

Heavy imports (torch, the JVM) happen inside the commands that need them, so
``hippograph --help`` and ``export-schema`` answer at once.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from hippograph.errors import HippoError
from hippograph.settings import Settings

if TYPE_CHECKING:
    from hippograph.server.runtime import Runtime

log = logging.getLogger("hippograph")


def _settings() -> Settings:
    try:
        return Settings()
    except ValidationError as exc:
        problems = "; ".join(
            f"HIPPOGRAPH_{'__'.join(str(p).upper() for p in e['loc'])}: {e['msg']}"
            for e in exc.errors()
        )
        raise SystemExit(f"hippograph: invalid configuration: {problems}") from exc


def _configure_logging(level: str) -> None:
    logging.basicConfig(
        level=level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    # The driver logs every retried transaction at WARNING; retries are normal.
    logging.getLogger("neo4j").setLevel(logging.ERROR)
    logging.getLogger("httpx").setLevel(logging.WARNING)


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    """Run the API with uvicorn until SIGINT or SIGTERM."""
    import uvicorn

    from hippograph.server.app import create_app

    host = args.host or settings.api.host
    port = settings.api.port if args.port is None else args.port
    log.info("starting HippoGraph on http://%s:%s/graphql", host, port)
    uvicorn.run(create_app(settings), host=host, port=port, log_level=settings.log_level)
    return 0


async def _with_runtime(settings: Settings, work: Callable[[Runtime], Awaitable[int]]) -> int:
    from hippograph.server.runtime import Runtime

    runtime = await Runtime.start(settings)
    try:
        return await work(runtime)
    finally:
        await runtime.stop()


def cmd_init(args: argparse.Namespace, settings: Settings) -> int:
    """Create constraints and indexes (and the first admin key), then exit."""

    async def work(runtime: Runtime) -> int:
        agent = await runtime.connection.store.graph.server_agent()
        print(f"schema and indexes are in place on {agent} (database {settings.graph.database})")
        return 0

    return asyncio.run(_with_runtime(settings, work))


def cmd_keys(args: argparse.Namespace, settings: Settings) -> int:
    """Create, list or revoke API keys directly in the graph."""

    async def work(runtime: Runtime) -> int:
        keys = runtime.services.keys
        if args.keys_command == "create":
            record, key = await keys.issue(args.name, args.admin, args.user or [])
            scope = "admin" if record.admin else "users " + ", ".join(record.user_ids)
            print(f"created key {record.id} ({scope}); it is shown only now:\n{key}")
        elif args.keys_command == "list":
            for record in await keys.list_keys():
                scope = "admin" if record.admin else ",".join(record.user_ids)
                state = "revoked" if record.revoked else "active"
                print(f"{record.id}\t{state}\t{scope}\t{record.name}")
        else:
            from hippograph.services.keys import SETTINGS_ADMIN

            if not await keys.revoke(SETTINGS_ADMIN, args.id):
                print(f"no key {args.id}", file=sys.stderr)
                return 1
            print(f"revoked {args.id}")
        return 0

    return asyncio.run(_with_runtime(settings, work))


def cmd_export_schema(args: argparse.Namespace, settings: Settings) -> int:
    """Write the GraphQL SDL (what ``schema.graphql`` holds)."""
    from schema.build import build_schema

    sdl = build_schema(settings.limits).as_str() + "\n"
    if args.output == "-":
        sys.stdout.write(sdl)
    else:
        Path(args.output).write_text(sdl)
        print(f"wrote {args.output}")
    return 0


def cmd_worker(args: argparse.Namespace, settings: Settings) -> int:
    """Run the arq worker (server mode) until SIGINT or SIGTERM, or until idle with --burst."""
    from redis.exceptions import RedisError

    from jobs.worker import build_worker, require_worker_settings

    require_worker_settings(settings)
    # arq takes the current event loop when the worker is built; one of our own
    # avoids asyncio's deprecated implicit loop, and is closed when we are done.
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        worker = build_worker(settings, burst=args.burst)
        log.info("worker on queue %r at %s", settings.jobs.queue, settings.redis.url)
        worker.run()
    except (RedisError, OSError) as exc:
        print(f"hippograph worker: Redis at {settings.redis.url} failed: {exc}", file=sys.stderr)
        return 2
    finally:
        asyncio.set_event_loop(None)
        loop.close()
    return 0


def cmd_import(args: argparse.Namespace, settings: Settings) -> int:
    """Import conversations (LoCoMo JSON or JSONL) through memorize into the graph."""
    import time

    from tqdm import tqdm

    from hippograph.clock import utc_now
    from hippograph.importers.conversations import read_conversations
    from hippograph.importers.ingest import import_conversations

    if not args.file.is_file():
        raise SystemExit(f"hippograph import: no such file {args.file}")
    # The whole file is checked before anything is written.
    conversations = read_conversations(args.file, None if args.format == "auto" else args.format)

    async def work(runtime: Runtime) -> int:
        total = sum(c.message_count for c in conversations)
        started = time.perf_counter()
        with tqdm(
            total=total, unit="msg", desc="importing", file=sys.stderr, disable=args.no_progress
        ) as bar:
            report = await import_conversations(
                runtime.services,
                runtime.connection.store.users,
                conversations,
                chunk_size=settings.limits.max_messages_per_call,
                clock=utc_now,
                progress=bar.update,
            )
        print(report.summary(time.perf_counter() - started))
        return 0

    return asyncio.run(_with_runtime(settings, work))


def cmd_bench(args: argparse.Namespace, settings: Settings) -> int:
    """Run a benchmark; only LoCoMo retrieval for now."""
    import json

    from hippograph.scoring import SearchMethod
    from hippograph.server.locomo_run import format_table, run_locomo

    try:
        methods = [SearchMethod(m.strip().lower()) for m in args.method.split(",")]
        ks = sorted({int(k) for k in args.k.split(",")})
    except ValueError as exc:
        raise SystemExit(f"hippograph bench: {exc}") from exc
    if not args.data.exists():
        raise SystemExit(f"hippograph bench: no such file {args.data}")
    report = asyncio.run(
        run_locomo(args.data, methods, ks, args.granularity, progress=not args.json)
    )
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        print(format_table(report, methods, ks))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog="hippograph", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the GraphQL API (GraphiQL at /graphql)")
    serve.add_argument("--host", default=None, help="bind address (HIPPOGRAPH_API__HOST)")
    serve.add_argument("--port", type=int, default=None, help="port (HIPPOGRAPH_API__PORT)")
    serve.set_defaults(func=cmd_serve)

    init = sub.add_parser("init", help="create constraints and indexes, then exit")
    init.set_defaults(func=cmd_init)

    keys = sub.add_parser("keys", help="manage API keys")
    keys_sub = keys.add_subparsers(dest="keys_command", required=True)
    create = keys_sub.add_parser("create", help="create a key and print it once")
    create.add_argument("--name", default="cli", help="a label for the key")
    create.add_argument("--admin", action="store_true", help="may see every user")
    create.add_argument("--user", action="append", help="a user id the key may see (repeat)")
    keys_sub.add_parser("list", help="list keys (never the keys themselves)")
    revoke = keys_sub.add_parser("revoke", help="revoke a key by id")
    revoke.add_argument("id")
    keys.set_defaults(func=cmd_keys)

    worker = sub.add_parser("worker", help="run the arq job worker (server mode, Redis)")
    worker.add_argument("--burst", action="store_true", help="exit once the queue is empty")
    worker.set_defaults(func=cmd_worker)

    importer = sub.add_parser(
        "import", help="import conversations (LoCoMo JSON or JSONL) through memorize"
    )
    importer.add_argument("file", type=Path, help="a LoCoMo JSON file or JSONL, one per line")
    importer.add_argument(
        "--format", default="auto", choices=["auto", "locomo", "jsonl"], help="default: detect"
    )
    importer.add_argument("--no-progress", action="store_true", help="no progress bar")
    importer.set_defaults(func=cmd_import)

    bench = sub.add_parser("bench", help="run a benchmark")
    bench_sub = bench.add_subparsers(dest="bench_command", required=True)
    locomo = bench_sub.add_parser("locomo", help="LoCoMo retrieval recall@k per method")
    locomo.add_argument("--data", type=Path, required=True, help="a LoCoMo-format JSON file")
    locomo.add_argument("--method", default="keyword,vector,hybrid", help="comma-separated")
    locomo.add_argument("--k", default="5,10,25,50", help="comma-separated turn budgets")
    locomo.add_argument(
        "--granularity",
        default="turn",
        choices=["turn", "memunit", "memory"],
        help="turn: a memory per turn; memunit: MemUnits of the memorize pipeline; "
        "memory: the memories it derives (episodes, events, facts, profile)",
    )
    locomo.add_argument("--json", action="store_true", help="one JSON object on stdout")
    bench.set_defaults(func=cmd_bench)

    export = sub.add_parser("export-schema", help="write the GraphQL SDL")
    export.add_argument("--output", default="schema.graphql", help="file, or - for stdout")
    export.set_defaults(func=cmd_export_schema)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``hippograph`` console script."""
    args = build_parser().parse_args(argv)
    settings = _settings()
    _configure_logging(settings.log_level)
    handler: Callable[[argparse.Namespace, Settings], int] = args.func
    try:
        return handler(args, settings)
    except HippoError as exc:
        print(f"hippograph: {exc.message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
