"""The embedding model, loaded from disk only, batched, off the event loop.

Concurrent callers are gathered into one ``encode`` call: under load a batch
of 32 texts costs little more than one. Calls go down one of two lanes,
each with a thread of its own: search queries and small calls (a memory
added by hand, a short memorize) take the front lane, which runs at the
normal priority and encodes a run's worth of texts at a time on its own
thread; bulk calls (a memorize job's hundreds of turns, a re-embedding) take
the back lane, whose threads run at a background priority
(hippograph/background.py). A query no longer waits behind a batch:
with one lane, HYBRID p95 during an import was 8.6 times its idle value.
What runs the model is an encoder: ONNX Runtime on a CPU
(hippograph/adapters/onnx_encoder.py), PyTorch through sentence-transformers
elsewhere (hippograph/adapters/torch_encoder.py).
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import weakref
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, cast

from hippograph.adapters.model_catalog import CATALOG, EmbeddingModel, JarPrecision, find_model
from hippograph.adapters.model_jars import default_models_dir, read_model_files
from hippograph.adapters.onnx_encoder import OnnxEncoder
from hippograph.adapters.precision import native_bfloat16, resolve_precision
from hippograph.background import lower_this_thread
from hippograph.errors import ConfigError
from hippograph.settings import EmbeddingSettings
from hippograph.similarity import MINILM_SCALE, SimilarityScale
from hippograph.user_dirs import user_cache

log = logging.getLogger(__name__)

_Waiting = tuple[list[str], "asyncio.Future[list[list[float]]]"]
_MAX_BATCH = 256
# A passage call of at most this many texts is interactive (an added memory,
# a memorize of a few turns): it takes the front lane.
_FRONT_PASSAGES = 4


@dataclass
class _Batch:
    pending: list[_Waiting] = field(default_factory=list)
    drainer: asyncio.Task[None] | None = None


@dataclass(eq=False)
class _Lane:
    """One thread that runs encodes, and the callers waiting for it, per event loop."""

    executor: ThreadPoolExecutor
    # Encode at most this many texts per call (the front lane: one model run,
    # so it stays on the lane's own thread); None: the whole batch at once.
    piece: int | None
    # Batching state per event loop: futures and tasks belong to one loop,
    # and one model may serve several (the app's, a test's, a job runner's).
    batches: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Batch] = field(
        default_factory=weakref.WeakKeyDictionary
    )


class Encoder(Protocol):
    """A model run: texts in, one float32 row per text out (blocking)."""

    dimensions: int

    def encode(self, texts: Sequence[str]) -> Any:
        """An array-like of shape (len(texts), dimensions)."""
        ...


@dataclass(frozen=True, slots=True)
class ModelChoice:
    """What the settings name, resolved: the model, what runs it and in which precision."""

    name: str  # the catalog's name, or the local folder as configured
    runtime: str  # onnx or torch
    precision: str
    model: EmbeddingModel | None  # None: a local sentence-transformers folder


def choose_model(settings: EmbeddingSettings, native: bool) -> ModelChoice:
    """The model, runtime and precision ``settings`` ask for (``auto`` resolved); ConfigError
    when the combination cannot run."""
    runtime = settings.effective_runtime
    model = find_model(settings.model)
    if model is None:
        precision = resolve_precision(settings.precision, runtime, settings.device, native)
        return ModelChoice(settings.model, runtime, precision, None)
    if runtime == "torch" and model.package is None:
        raise ConfigError(
            f"{model.name} ships as ONNX only: it runs with HIPPOGRAPH_EMBEDDING__RUNTIME=onnx "
            "on the cpu device, in float32 or int8"
        )
    default = model.default_precision if runtime == "onnx" else "float32"
    precision = resolve_precision(settings.precision, runtime, settings.device, native, default)
    return ModelChoice(model.name, runtime, precision, model)


def resolve_model_path(name: str) -> str:
    """Where the sentence-transformers folder ``name`` is on disk; never a hub download.

    A catalog model with a package (MiniLM) is that package's folder, for the
    PyTorch runtime; anything else must be a local folder.
    """
    model = find_model(name)
    if model is not None and model.package is not None:
        package = importlib.import_module(model.package)
        return str(package.get_model_path())
    path = Path(name).expanduser()
    if path.is_dir():
        return str(path)
    known = ", ".join(m.name for m in CATALOG)
    raise ConfigError(
        f"HIPPOGRAPH_EMBEDDING__MODEL={name!r} is neither a known model ({known}) "
        "nor a local model directory (models are never downloaded)"
    )


def _unit_rows(vectors: Any) -> list[list[float]]:
    """Rows as float32 unit vectors (encoders return pooled rows, bfloat16 ones inexact)."""
    import numpy as np

    rows = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    units = rows / np.where(norms > 0, norms, np.float32(1.0))
    rows_out: list[list[float]] = units.tolist()
    return rows_out


def model_cache_dir(settings: EmbeddingSettings) -> Path:
    """Where exports of local model folders are kept: the setting, else the user's cache.

    A per-user cache rather than the data directory: the export depends on
    the installed model and libraries, not on the data, so a new data
    directory (a test, a benchmark, a second graph) need not export again.
    """
    if settings.cache_dir is not None:
        return settings.cache_dir.expanduser()
    return user_cache("models")


def models_dir(settings: EmbeddingSettings) -> Path:
    """Where the catalog's jars are installed: the setting, else the user's data directory."""
    if settings.models_dir is not None:
        return settings.models_dir.expanduser()
    return default_models_dir()


def encode_batch(precision: str, batch_size: int) -> int:
    """How many texts one model run takes: ``batch_size``, but one at a time in int8.

    An int8 model quantises its activations per run, with one scale for the
    whole batch, so a text's vector depended on the texts beside it (cosine
    0.997 to itself alone): a query's ranking moved with whatever other
    requests shared its batch, and a re-embedding never gave back the vectors
    memorize made. One text per run makes every vector a function of its
    text; with runs side by side (OnnxEncoder) e5 int8 still embeds twice
    MiniLM float32's texts per second (docs/models.md).
    """
    return 1 if precision == "int8" else batch_size


def load_encoder(settings: EmbeddingSettings, choice: ModelChoice) -> Encoder:
    """The encoder ``choice`` names (blocking: reads the model, maybe exports it)."""
    model = choice.model
    batch = encode_batch(choice.precision, settings.batch_size)
    threads = settings.threads or os.cpu_count() or 1
    if model is not None and choice.runtime == "onnx":
        precision = cast(JarPrecision, choice.precision)
        files = read_model_files(
            model.jars[precision], models_dir(settings), model.name, choice.precision
        )
        return OnnxEncoder.from_files(files, model.pooling, model.max_tokens, batch, threads)
    path = resolve_model_path(settings.model)
    if choice.runtime == "onnx":
        return OnnxEncoder.load(
            Path(path), settings.model, model_cache_dir(settings), choice.precision, batch, threads
        )
    from hippograph.adapters.torch_encoder import TorchEncoder, load_model

    return TorchEncoder(load_model(path, settings.device, choice.precision), settings.batch_size)


class SentenceTransformerEmbedder:
    """An ``Embedder`` over a sentence-transformers model, whatever runs it.

    A catalog model's texts get the prefixes it was trained with: passages
    through :meth:`embed`, queries through :meth:`embed_queries`.
    """

    def __init__(self, encoder: Encoder, choice: ModelChoice, run_size: int = 1) -> None:
        self._encoder = encoder
        self._choice = choice
        model = choice.model
        self._query_prefix = model.query_prefix if model is not None else ""
        self._passage_prefix = model.passage_prefix if model is not None else ""
        self._scale = model.scale if model is not None else MINILM_SCALE
        self._dimensions = int(encoder.dimensions)
        self._front = _Lane(
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="embedder-front"), run_size
        )
        self._back = _Lane(
            ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="embedder-back", initializer=lower_this_thread
            ),
            None,
        )

    @classmethod
    async def load(cls, settings: EmbeddingSettings) -> SentenceTransformerEmbedder:
        """Load the configured model in a worker thread (it takes seconds)."""
        choice = choose_model(settings, native_bfloat16())
        encoder = await asyncio.to_thread(load_encoder, settings, choice)
        # A first encode of two texts, here on a thread at the normal priority:
        # the threads the runtime and the tokenizer start on first use inherit
        # the priority of the thread that starts them, and the front lane
        # shares them (started from a background lane, queries ran at its
        # priority). It also takes the first run's set-up off the first request.
        await asyncio.to_thread(encoder.encode, ["warm-up", "and one more"])
        log.info("embedding model %s loaded: %s, %s", choice.name, choice.runtime, choice.precision)
        return cls(encoder, choice, encode_batch(choice.precision, settings.batch_size))

    @property
    def model_name(self) -> str:
        """The model's name: the catalog's own, or the configured folder."""
        return self._choice.name

    @property
    def runtime(self) -> str:
        """``onnx`` or ``torch``: what runs the model."""
        return self._choice.runtime

    @property
    def precision(self) -> str:
        """``float32``, ``bfloat16`` (PyTorch) or ``int8`` (ONNX): what the model computes in."""
        return self._choice.precision

    @property
    def dimensions(self) -> int:
        """The model's vector length."""
        return self._dimensions

    @property
    def from_catalog(self) -> bool:
        """Whether the model is one of the catalog's (else a local folder)."""
        return self._choice.model is not None

    @property
    def scale(self) -> SimilarityScale:
        """Where this model's cosines mean a topic shift and a shared theme."""
        return self._scale

    def encode(self, texts: Sequence[str]) -> list[list[float]]:
        """Blocking encode of ``texts`` as given (no prefix), for scripts and the drainer."""
        if not texts:
            return []
        return _unit_rows(self._encoder.encode(texts))

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit vector per passage (what is stored); joins whatever callers are waiting."""
        lane = self._front if len(texts) <= _FRONT_PASSAGES else self._back
        return await self._queued([self._passage_prefix + t for t in texts], lane)

    async def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit vector per search query, with the model's query prefix or instruction."""
        return await self._queued([self._query_prefix + t for t in texts], self._front)

    async def _queued(self, texts: Sequence[str], lane: _Lane) -> list[list[float]]:
        if not texts:
            return []
        loop = asyncio.get_running_loop()
        state = lane.batches.setdefault(loop, _Batch())
        future: asyncio.Future[list[list[float]]] = loop.create_future()
        state.pending.append((list(texts), future))
        if state.drainer is None or state.drainer.done():
            state.drainer = asyncio.create_task(self._drain(state, lane))
        return await future

    def _encode_in_pieces(self, texts: Sequence[str], piece: int | None) -> list[list[float]]:
        if piece is None or len(texts) <= piece:
            return self.encode(texts)
        return [v for s in range(0, len(texts), piece) for v in self.encode(texts[s : s + piece])]

    async def _drain(self, state: _Batch, lane: _Lane) -> None:
        loop = asyncio.get_running_loop()
        pending = state.pending
        while pending:
            batch: list[_Waiting] = []
            size = 0
            while pending and (not batch or size + len(pending[0][0]) <= _MAX_BATCH):
                item = pending.pop(0)
                batch.append(item)
                size += len(item[0])
            texts = [t for item_texts, _ in batch for t in item_texts]
            try:
                vectors = await loop.run_in_executor(
                    lane.executor, self._encode_in_pieces, texts, lane.piece
                )
            except Exception:
                # One caller's text may be what failed: run each caller alone so
                # only that caller sees the error (a tenant must not be able to
                # fail another's requests by sharing a batch with them).
                await self._one_by_one(loop, batch, lane)
                continue
            offset = 0
            for item_texts, future in batch:
                if not future.done():
                    future.set_result(vectors[offset : offset + len(item_texts)])
                offset += len(item_texts)

    async def _one_by_one(
        self, loop: asyncio.AbstractEventLoop, batch: list[_Waiting], lane: _Lane
    ) -> None:
        for item_texts, future in batch:
            if future.done():
                continue
            try:
                vectors = await loop.run_in_executor(
                    lane.executor, self._encode_in_pieces, item_texts, lane.piece
                )
            except Exception as exc:
                future.set_exception(exc)
            else:
                future.set_result(vectors)

    async def close(self) -> None:
        """Finish this loop's queued work and stop the model threads."""
        loop = asyncio.get_running_loop()
        for lane in (self._front, self._back):
            state = lane.batches.get(loop)
            if state is not None and state.drainer is not None:
                await asyncio.gather(state.drainer, return_exceptions=True)
            await asyncio.to_thread(lane.executor.shutdown, wait=True)
        close = getattr(self._encoder, "close", None)
        if close is not None:
            await asyncio.to_thread(close)
