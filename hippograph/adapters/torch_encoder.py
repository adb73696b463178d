"""Encode texts with sentence-transformers on PyTorch (any device, float32 or bfloat16).

The runtime for GPUs and for models the ONNX runtime cannot pool; on a CPU
the ONNX runtime is the default (hippograph/adapters/onnx_encoder.py).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from hippograph.errors import ConfigError

_SMALL_BATCH = 4


def load_model(path: str, device: str, precision: str) -> Any:
    """The sentence-transformers model at ``path`` (blocking; the import alone takes seconds)."""
    # Belt and braces: a hub lookup would hang on a machine without internet.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    # OpenMP threads otherwise spin for a while after each encode, burning the
    # core the graph server needs next: measured p95 of a search 68 -> 39 ms.
    # (Read when torch loads, so it only takes effect if torch is not loaded yet.)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import torch
    from sentence_transformers import SentenceTransformer

    # A device this machine lacks (cuda without a GPU) said as a setting, not
    # as the traceback PyTorch would raise halfway through loading.
    present: dict[str, Callable[[], bool]] = {
        "cuda": torch.cuda.is_available,
        "mps": torch.backends.mps.is_available,
    }
    kind = device.split(":", 1)[0]
    if kind in present and not present[kind]():
        raise ConfigError(f"HIPPOGRAPH_EMBEDDING__DEVICE={device}: this machine has no {kind}")
    model = SentenceTransformer(path, device=device)
    if precision == "bfloat16":
        model.to(torch.bfloat16)
    return model


class TorchEncoder:
    """Blocking ``encode`` through ``SentenceTransformer.encode``."""

    def __init__(self, model: Any, batch_size: int) -> None:
        self._model = model
        self._batch_size = batch_size
        self._threads = max(1, os.cpu_count() or 1)
        self.dimensions = int(model.get_embedding_dimension())

    def encode(self, texts: Sequence[str]) -> Any:
        """One float32 row per text (not yet normalised: bfloat16 output is not unit)."""
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
        return vectors.float().cpu().numpy()
