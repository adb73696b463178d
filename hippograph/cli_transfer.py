"""``hippograph import`` and ``export``: conversations and dumps into the graph, dumps out."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from hippograph.cli_context import with_graph, with_runtime
from hippograph.errors import InvalidInput
from hippograph.settings import Settings

if TYPE_CHECKING:
    from graph.store import GraphStore
    from hippograph.runtime import Runtime


def cmd_import(args: argparse.Namespace, settings: Settings) -> int:
    """Import conversations (LoCoMo JSON or JSONL) through memorize into the graph."""
    import time

    from tqdm import tqdm

    from hippograph.clock import utc_now
    from hippograph.dump import looks_like_dump
    from hippograph.importers.conversations import named_user, only, read_conversations
    from hippograph.importers.ingest import import_conversations

    if not args.file.is_file():
        # Refused as a bad file's content is (exit status 2), naming what is there instead.
        what = "is a directory, not a file" if args.file.is_dir() else "does not exist"
        raise InvalidInput(f"{args.file} {what}", "file")
    if args.format == "dump" or (args.format == "auto" and looks_like_dump(args.file)):
        # A dump is a whole graph, loaded whole: an option that picks part of
        # a conversation file would be passed over without a word.
        for option, value in (("--only", args.only), ("--user", args.user), ("--name", args.name)):
            if value is not None:
                raise InvalidInput(
                    f"{args.file.name} is a dump, loaded whole: {option} picks from "
                    "conversation files only",
                    option.lstrip("-"),
                )
        return _import_dump(args, settings)
    # The whole file is checked before anything is written.
    conversations = read_conversations(
        args.file, None if args.format == "auto" else args.format, user_id=args.user
    )
    if args.only is not None:
        conversations = only(conversations, args.only, args.file.name)
    if args.user is not None or args.name is not None:
        conversations = named_user(conversations, args.user, args.name, args.file.name)

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
        print(report.listing())
        print(report.summary(time.perf_counter() - started))
        return 0

    return asyncio.run(with_runtime(settings, work))


def _import_dump(args: argparse.Namespace, settings: Settings) -> int:
    """Load a dump made by ``hippograph export`` (docs/dump.md); the whole file is checked first."""
    import time

    from tqdm import tqdm

    from hippograph.adapters.model_catalog import find_model
    from hippograph.dump import check_dump
    from hippograph.errors import ConfigError

    checked = check_dump(args.file)
    embedding = checked.header.embedding
    # One model by any of its names, in any case, as `serve` takes it; the
    # graph records the catalog's own name.
    model, made_by = find_model(settings.embedding.model), find_model(embedding.model)
    same = model is made_by if model is not None else embedding.model == settings.embedding.model
    if not same:
        # Vectors from another model would be searched with this one's queries.
        raise ConfigError(
            f"{args.file.name} holds vectors made by {embedding.model!r}, but "
            f"HIPPOGRAPH_EMBEDDING__MODEL is {settings.embedding.model!r}: set it to the dump's"
        )
    if model is not None:
        if embedding.dimensions != model.dimensions:
            raise ConfigError(
                f"{args.file.name} says its {model.name} vectors have {embedding.dimensions} "
                f"dimensions; {model.name}'s have {model.dimensions}"
            )
        embedding = replace(embedding, model=model.name)

    async def work(store: GraphStore) -> int:
        # Set up with the dump's model first: the indexes then take the nodes as they come.
        await store.setup(
            model=embedding.model,
            dimensions=embedding.dimensions,
            precision=embedding.precision,
            known_as=model.aliases if model is not None else (),
        )
        started = time.perf_counter()
        with tqdm(
            total=checked.header.counts.total,
            unit="line",
            desc="importing",
            file=sys.stderr,
            disable=args.no_progress,
        ) as bar:
            report = await store.dump.load(checked, progress=bar.update)
        print(report.summary(time.perf_counter() - started))
        return 0

    return asyncio.run(with_graph(settings, work))


@contextlib.contextmanager
def _dump_output(name: str) -> Iterator[TextIO]:
    """stdout for ``-``; else a file that appears only once complete (renamed at the end)."""
    if name == "-":
        yield sys.stdout
        return
    partial = Path(f"{name}.partial")
    try:
        with partial.open("w", encoding="utf-8") as out:
            yield out
        partial.replace(name)
    finally:
        partial.unlink(missing_ok=True)


def cmd_export(args: argparse.Namespace, settings: Settings) -> int:
    """Write the whole graph as a portable JSONL dump (docs/dump.md)."""
    import time

    from tqdm import tqdm

    from hippograph.cli_args import writable_file
    from hippograph.clock import utc_now
    from hippograph.plural import counted

    writable_file(args.file)

    async def work(store: GraphStore) -> int:
        started = time.perf_counter()
        bar = tqdm(unit="line", desc="exporting", file=sys.stderr, disable=args.no_progress)
        with _dump_output(args.file) as out, bar:
            counts = await store.dump.export(out, utc_now(), progress=bar.update)
        elapsed = time.perf_counter() - started
        nodes = counted(sum(counts.nodes.values()), "node")
        edges = counted(sum(counts.edges.values()), "edge")
        print(
            f"exported {nodes} and {edges} to {args.file} in {elapsed:.1f} s "
            f"({counts.total / elapsed:.0f} lines/s)",
            file=sys.stderr,
        )
        return 0

    return asyncio.run(with_graph(settings, work))


def add_transfer_parsers(sub: Any) -> None:
    """The ``import`` and ``export`` commands, on ``sub`` (the CLI's subparsers)."""
    importer = sub.add_parser(
        "import",
        help="import conversations (JSONL, LoCoMo JSON, a JSON message list) through "
        "memorize, each speaker under a user of their own, or a dump made by `hippograph export`",
    )
    importer.add_argument(
        "file",
        type=Path,
        help="JSONL (one conversation a line, docs/import.md), a LoCoMo JSON file, "
        "a JSON list of {role, content} messages, or a dump",
    )
    importer.add_argument(
        "--format",
        default="auto",
        choices=["auto", "jsonl", "locomo", "messages", "dump"],
        help="default: detect",
    )
    importer.add_argument(
        "--only",
        metavar="CONVERSATION",
        help="import only this conversation of the file: its conversation_id (LoCoMo: "
        "sample_id) or its line number",
    )
    importer.add_argument(
        "--user",
        help="the user id of a conversation with one speaker, or whose a message list is "
        "(default: the file's; LoCoMo: <sample_id>-<speaker> for each speaker)",
    )
    importer.add_argument("--name", help="that user's name (default: the file's)")
    importer.add_argument("--no-progress", action="store_true", help="no progress bar")
    # a dump is loaded into a new store; a conversation may start one too
    importer.set_defaults(func=cmd_import, store="create")

    exporter = sub.add_parser("export", help="write the whole graph as a portable JSONL dump")
    exporter.add_argument("file", help="the dump to write, or - for stdout")
    exporter.add_argument("--no-progress", action="store_true", help="no progress bar")
    exporter.set_defaults(func=cmd_export, store="existing")
