"""The ``hippograph`` command: serve, mcp, init, keys, export-schema, worker (import and export in
cli_transfer.py, bench in cli_bench.py).

Heavy imports (torch, the JVM) happen inside the commands that need them, so
``hippograph --help`` and ``export-schema`` answer at once.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from pydantic import ValidationError
from pydantic_settings import SettingsError

from hippograph.addresses import shown
from hippograph.benchmark.cli import add_bench_parser
from hippograph.cli_args import port, positive, serving_settings, writable_file
from hippograph.cli_context import with_graph, with_runtime
from hippograph.cli_jvm import add_jvm_parser
from hippograph.cli_models import add_model_parsers, cmd_reembed
from hippograph.cli_transfer import add_transfer_parsers
from hippograph.errors import ConfigError, HippoError
from hippograph.logs import configure_logging
from hippograph.settings import Settings
from hippograph.settings_names import startup_warnings
from hippograph.store_check import check_port, check_store

if TYPE_CHECKING:
    import uvicorn
    from starlette.types import ASGIApp

    from graph.store import GraphStore
    from hippograph.runtime import Runtime

T = TypeVar("T")

log = logging.getLogger("hippograph")

DESCRIPTION = (
    "HippoGraph: long-term memory for LLM agents, a GraphQL API over a graph database. "
    "`hippograph serve` runs it; the other commands look after its store."
)


def _settings() -> Settings:
    try:
        return Settings()
    except ValidationError as exc:
        problems = "; ".join(
            f"HIPPOGRAPH_{'__'.join(str(p).upper() for p in e['loc'])}: {e['msg']}"
            for e in exc.errors()
        )
        raise SystemExit(f"hippograph: invalid configuration: {problems}") from exc
    except SettingsError as exc:
        # A list or a section given as something other than JSON
        # (HIPPOGRAPH_API__TRUSTED_PROXIES=10.0.0.1): pydantic-settings says
        # which section, and its cause says why.
        raise SystemExit(
            f"hippograph: invalid configuration: {exc} ({exc.__cause__}); a list or a "
            "section is given as JSON, e.g. HIPPOGRAPH_API__TRUSTED_PROXIES='[\"10.0.0.1\"]'"
        ) from exc


# Seconds uvicorn keeps an idle client connection open.
KEEP_ALIVE_S = 65
# The exit status of a server that did not start listening (uvicorn's own).
_STARTUP_FAILED = 3
# The signals that stop `hippograph serve` (uvicorn's, once it serves).
_STOPS = (signal.SIGINT, signal.SIGTERM)


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    """Run the API with uvicorn until SIGINT or SIGTERM."""
    import uvicorn

    from hippograph.background import favour_requests
    from hippograph.server.app import create_app

    settings = serving_settings(settings, args.host, args.port)
    host, port = settings.api.host, settings.api.port
    graph = settings.graph
    if settings.jobs.mode == "arq" and graph.server == "arcadedb" and graph.embedded:
        # Its jobs would wait on Redis for a worker that cannot start.
        raise ConfigError(
            "HIPPOGRAPH_JOBS__MODE=arq needs a graph server the workers reach: the "
            "embedded ArcadeDB lives inside this process, and `hippograph worker` "
            "refuses it. Use HIPPOGRAPH_JOBS__MODE=inprocess, or a graph server"
        )
    # Before the model and the graph start (seconds): a port in use fails now.
    check_port(host, port)
    if check_store(settings.graph, create=True):
        log.warning(
            "no store in %s: creating a new one there (HIPPOGRAPH_GRAPH__DATA_DIR)",
            settings.graph.data_dir.resolve(),
        )
    log.info("starting HippoGraph on http://%s:%s/graphql", host, port)
    favour_requests()

    async def serve() -> int:
        from hippograph.runtime import Runtime

        # Started before the server, not in its lifespan: a graph that cannot be
        # reached or a bad setting is then "hippograph: …" and exit status 2, as
        # for every other command, where uvicorn would print a traceback. The
        # app's lifespan stops it at shutdown, before uvicorn re-raises a signal.
        # A stop asked for while it starts (uvicorn's handlers are not in place
        # yet) lets the start finish, then stops it cleanly.
        asked: list[int] = []
        previous = {sig: signal.signal(sig, lambda s, _: asked.append(s)) for sig in _STOPS}
        try:
            runtime = await Runtime.start(settings)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        if asked:
            log.info("stopped by %s before serving", signal.Signals(asked[0]).name)
            await runtime.stop()
            return 0
        try:
            app = create_app(settings, runtime=runtime, stop_runtime=True)
            server = uvicorn.Server(_server_config(app, settings, host, port))
        except BaseException:
            await runtime.stop()
            raise
        # The lifespan is the first thing serve() runs: from here it owns the runtime.
        await server.serve()
        return 0 if server.started else _STARTUP_FAILED

    try:
        return asyncio.run(serve())
    except KeyboardInterrupt:
        # Ctrl-C while serving: uvicorn shut down (the lifespan stopped the
        # runtime) and then raised SIGINT again, which asyncio.run turns into
        # KeyboardInterrupt. A stop asked for is a clean exit, as uvicorn.run
        # makes it, not a traceback.
        return 0


def _server_config(app: ASGIApp, settings: Settings, host: str, port: int) -> uvicorn.Config:
    """uvicorn's settings for the API."""
    import uvicorn

    # log_config=None keeps our logging (JSON, request ids); the access log is
    # ours too (hippograph.access), with the request id and the operation.
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=settings.log_level,
        log_config=None,
        access_log=False,
        # X-Forwarded-For is ours to read, from the proxies the settings name
        # (hippograph/server/forwarded.py); uvicorn's default trusts loopback.
        proxy_headers=False,
        # Longer than a client's own keep-alive (httpx: 5 s), so the client
        # closes an idle connection first. At uvicorn's 5 s both sides timed
        # out together, and a request sent as the server closed failed with
        # a read error (bench/soak.py saw it on an MCP session).
        timeout_keep_alive=KEEP_ALIVE_S,
    )


def cmd_mcp(args: argparse.Namespace, settings: Settings) -> int:
    """Serve MCP over stdin/stdout as the key in $HIPPOGRAPH_API_KEY (or --key-file)."""
    from hippograph.mcp.key import StartRefused, read_key

    try:
        key = read_key(args.key_file)
        # The runtime's imports (the graph driver, the JVM bridge, the schema)
        # only once there is a key to serve.
        from hippograph.mcp.stdio import serve_stdio

        asyncio.run(serve_stdio(settings, key))
    except StartRefused as exc:
        print(f"hippograph mcp: {exc}", file=sys.stderr)
        return 2
    return 0


def cmd_init(args: argparse.Namespace, settings: Settings) -> int:
    """Create constraints and indexes (and the first admin key), then exit."""

    async def work(runtime: Runtime) -> int:
        agent = await runtime.connection.store.graph.server_agent()
        print(f"schema and indexes are in place on {agent} (database {settings.graph.database})")
        return 0

    return asyncio.run(with_runtime(settings, work))


def cmd_reindex(args: argparse.Namespace, settings: Settings) -> int:
    """Rebuild the vector indexes with the current settings, or with ``--model`` re-embed
    every vector (run with the service stopped)."""
    import time

    if args.model is not None:
        return cmd_reembed(args, settings)
    if args.precision is not None or args.page is not None:
        # Without a model nothing is re-embedded: a precision would be ignored.
        raise ConfigError(
            "--precision and --page go with --model: name the model to re-embed with "
            f"(the current one is {settings.embedding.model})"
        )

    async def work(store: GraphStore) -> int:
        started = time.monotonic()
        dimensions = await store.rebuild_vector_indexes()
        took = time.monotonic() - started
        print(f"rebuilt the {dimensions}-dimension vector indexes in {took:.1f} s")
        return 0

    return asyncio.run(with_graph(settings, work))


def cmd_keys(args: argparse.Namespace, settings: Settings) -> int:
    """Create, list or revoke API keys directly in the graph.

    The graph alone: a leaked key can be revoked without the model loaded, and
    while Redis (which server mode's runtime needs) is down.
    """
    from hippograph.clock import utc_now
    from hippograph.services.keys import KeyService

    async def work(store: GraphStore) -> int:
        keys = KeyService(store.keys, utc_now, admin_key=None, cache_ttl_s=0)
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

    return asyncio.run(with_graph(settings, work))


def cmd_export_schema(args: argparse.Namespace, settings: Settings) -> int:
    """Write the GraphQL SDL (what ``schema.graphql`` holds)."""
    from schema.build import build_schema

    writable_file(args.output)
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
        log.info("worker on queue %r at %s", settings.jobs.queue, shown(settings.redis.url))
        worker.run()
    except (RedisError, OSError) as exc:
        redis = shown(settings.redis.url)
        print(f"hippograph worker: Redis at {redis} failed: {exc}", file=sys.stderr)
        return 2
    finally:
        asyncio.set_event_loop(None)
        loop.close()
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog="hippograph", description=DESCRIPTION)
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the GraphQL API (GraphiQL at /graphql)")
    serve.add_argument("--host", default=None, help="bind address (HIPPOGRAPH_API__HOST)")
    serve.add_argument("--port", type=port, default=None, help="port (HIPPOGRAPH_API__PORT)")
    # serve checks its store itself, after the port (it may create one)
    serve.set_defaults(func=cmd_serve, store=None)

    mcp = sub.add_parser(
        "mcp", help="serve MCP over stdio (key in HIPPOGRAPH_API_KEY) for a desktop client"
    )
    mcp.add_argument(
        "--key-file", type=Path, default=None, help="read the API key from this file instead"
    )
    mcp.set_defaults(func=cmd_mcp, store="keyed")

    init = sub.add_parser("init", help="create constraints and indexes, then exit")
    init.set_defaults(func=cmd_init, store="create")

    reindex = sub.add_parser(
        "reindex",
        help="rebuild the vector indexes, or re-embed every vector with --model (service stopped)",
    )
    reindex.add_argument(
        "--model", help="re-embed every vector with this model (a kill and a re-run resume)"
    )
    reindex.add_argument(
        "--precision", choices=("float32", "int8"), help="the model's precision (its default)"
    )
    reindex.add_argument("--page", type=positive, help="nodes re-embedded per transaction (256)")
    reindex.set_defaults(func=cmd_reindex, store="existing")

    add_model_parsers(sub)
    add_jvm_parser(sub)

    keys = sub.add_parser("keys", help="manage API keys")
    keys_sub = keys.add_subparsers(dest="keys_command", required=True)
    create = keys_sub.add_parser("create", help="create a key and print it once")
    create.add_argument("--name", default="cli", help="a label for the key")
    create.add_argument("--admin", action="store_true", help="may see every user")
    create.add_argument("--user", action="append", help="a user id the key may see (repeat)")
    keys_sub.add_parser("list", help="list keys (never the keys themselves)")
    revoke = keys_sub.add_parser("revoke", help="revoke a key by id")
    revoke.add_argument("id")
    keys.set_defaults(func=cmd_keys, store="existing")

    worker = sub.add_parser("worker", help="run the arq job worker (server mode, Redis)")
    worker.add_argument("--burst", action="store_true", help="exit once the queue is empty")
    worker.set_defaults(func=cmd_worker)

    add_transfer_parsers(sub)
    add_bench_parser(sub)

    export = sub.add_parser("export-schema", help="write the GraphQL SDL")
    export.add_argument("--output", default="schema.graphql", help="file, or - for stdout")
    export.set_defaults(func=cmd_export_schema)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``hippograph`` console script."""
    args = build_parser().parse_args(argv)
    if not hasattr(args, "store"):
        args.store = None
    settings = _settings()
    configure_logging(settings.log_level, settings.log_format)
    for warning in startup_warnings(os.environ):
        log.warning(warning)
    handler: Callable[[argparse.Namespace, Settings], int] = args.func
    try:
        if args.store is not None:
            # mcp may start a new store only with the admin key set in its settings:
            # the key it serves with then works there (else a typo's new store would
            # answer "unknown API key").
            keyed = args.store == "keyed" and settings.api.admin_key is not None
            check_store(settings.graph, create=args.store == "create" or keyed)
        return handler(args, settings)
    except HippoError as exc:
        print(f"hippograph: {exc.message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
