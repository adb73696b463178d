"""Encode texts with ONNX Runtime: the model's tokenizer, its ONNX transformer, its pooling.

Does what sentence-transformers' ``encode`` does for a Transformer → Pooling
(→ Normalize) model, without PyTorch: tokenise with the model's own
``tokenizer.json`` (truncated at its maximum length, padded per batch), run
the transformer and pool (the embedder makes the rows unit vectors, whatever
the encoder). Texts are sorted by length and run in batches, as
sentence-transformers does, so a batch pads only to texts of similar length.

Two sources: a catalog model's jar (:meth:`OnnxEncoder.from_files`; the
catalog declares pooling and length), or a local sentence-transformers
folder, exported to ONNX once (:meth:`OnnxEncoder.load`; pooling and length
from the folder's ``1_Pooling/config.json`` and ``sentence_bert_config.json``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from hippograph.adapters.model_jars import ModelFiles
from hippograph.adapters.onnx_export import cached_model_path, export_in_child
from hippograph.background import lower_this_thread
from hippograph.errors import ConfigError

log = logging.getLogger(__name__)

_POOLING_MODES = ("pooling_mode_mean_tokens", "pooling_mode_cls_token", "pooling_mode_max_tokens")


def _json(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def pooling_mode(model_dir: Path) -> str:
    """``mean``, ``cls`` or ``max``: how the model turns token states into one vector."""
    listed = model_dir / "modules.json"
    modules: list[dict[str, Any]] = json.loads(listed.read_text("utf-8")) if listed.exists() else []
    pooling = [m for m in modules if str(m.get("type", "")).endswith("Pooling")]
    if not pooling:
        raise ConfigError(
            f"{model_dir} declares no Pooling module; set HIPPOGRAPH_EMBEDDING__RUNTIME=torch"
        )
    config = _json(model_dir / pooling[0]["path"] / "config.json")
    chosen = [mode for mode in _POOLING_MODES if config.get(mode)]
    others = [k for k, v in config.items() if k.startswith("pooling_mode") and v]
    if len(chosen) != 1 or len(others) != 1:
        raise ConfigError(
            f"{model_dir} pools with {others}; the ONNX runtime does mean, cls or max only: "
            "set HIPPOGRAPH_EMBEDDING__RUNTIME=torch"
        )
    return chosen[0].split("_")[2]


def max_seq_length(model_dir: Path) -> int:
    """Where sentence-transformers truncates this model's input, in tokens."""
    path = model_dir / "sentence_bert_config.json"
    if path.exists() and "max_seq_length" in (config := _json(path)):
        return int(config["max_seq_length"])
    tokenizer_config = model_dir / "tokenizer_config.json"
    if not tokenizer_config.exists():
        return 512
    return int(min(_json(tokenizer_config).get("model_max_length", 512), 512))


def _padding(model_dir: Path) -> str:
    """The pad token the model's tokenizer config names; BERT's by default."""
    path = model_dir / "tokenizer_config.json"
    pad = (_json(path) if path.exists() else {}).get("pad_token") or "[PAD]"
    return pad if isinstance(pad, str) else str(pad.get("content") or "[PAD]")


def _per_batch(tokenizer: Any, max_tokens: int, pad_token: str) -> Any:
    """``tokenizer`` cutting at ``max_tokens`` and padding each batch to its longest text.

    A tokenizer.json may carry a fixed padding and a shorter truncation
    (MiniLM's says 128); sentence-transformers pads per batch and cuts at
    the model's maximum length, and so do we, or the vectors would differ.
    """
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_tokens)
    pad_id = tokenizer.token_to_id(pad_token)
    tokenizer.enable_padding(pad_id=pad_id if pad_id is not None else 0, pad_token=pad_token)
    return tokenizer


class OnnxEncoder:
    """Blocking ``encode`` of a sentence-transformers model under ONNX Runtime.

    The session computes each run on one thread, and a call's batches run on
    ``threads`` threads at once (ONNX Runtime's ``run`` is thread-safe): for
    the small inputs of conversation turns, two runs side by side made 2.5
    times the texts per second of one run on two threads (e5-small int8,
    one text a run, measured 2026-11-26), and a single query costs one core,
    leaving the other to the graph server. Those side-by-side runs are bulk
    work (a single feed runs on the caller's thread): their threads run at
    a background priority (hippograph/background.py).
    """

    def __init__(
        self, session: Any, tokenizer: Any, pooling: str, batch_size: int, threads: int = 1
    ) -> None:
        self._session = session
        self._tokenizer = tokenizer
        self._pooling = pooling
        self._batch_size = batch_size
        self._inputs = [i.name for i in session.get_inputs()]
        self.dimensions = int(session.get_outputs()[0].shape[-1])
        self._pool = (
            ThreadPoolExecutor(
                max_workers=threads, thread_name_prefix="encoder", initializer=lower_this_thread
            )
            if threads > 1
            else None
        )

    @classmethod
    def load(
        cls,
        model_dir: Path,
        model_name: str,
        cache_dir: Path,
        precision: str,
        batch_size: int,
        threads: int = 1,
    ) -> OnnxEncoder:
        """Open the cached export, exporting it first if it is missing or unreadable."""
        from tokenizers import Tokenizer

        pooling = pooling_mode(model_dir)
        tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        tokenizer = _per_batch(tokenizer, max_seq_length(model_dir), _padding(model_dir))
        path = cached_model_path(cache_dir, model_name, model_dir, precision)
        session = None
        if path.exists():
            try:
                session = _session(path)
            except Exception as exc:  # a truncated or foreign file: export again
                log.warning("cached ONNX model %s is unreadable (%s); exporting again", path, exc)
        if session is None:
            export_in_child(model_dir, path, precision)
            session = _session(path)
        return cls(session, tokenizer, pooling, batch_size, threads)

    @classmethod
    def from_files(
        cls, files: ModelFiles, pooling: str, max_tokens: int, batch_size: int, threads: int = 1
    ) -> OnnxEncoder:
        """The encoder of a catalog model's jar: its ONNX graph, tokenizer and declared pooling."""
        from tokenizers import Tokenizer

        tokenizer = _per_batch(Tokenizer.from_str(files.tokenizer), max_tokens, "[PAD]")
        return cls(_session(files.onnx), tokenizer, pooling, batch_size, threads)

    def encode(self, texts: Sequence[str]) -> Any:
        """Pooled vectors (float32 array, one row per text)."""
        import numpy as np

        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        chunks = [order[s : s + self._batch_size] for s in range(0, len(order), self._batch_size)]
        # Tokenised here, on the calling thread; only the runs go side by side.
        feeds = [self._feed([texts[i] for i in chunk]) for chunk in chunks]
        if self._pool is None or len(feeds) == 1:
            pooled = [self._run(feed) for feed in feeds]
        else:
            pooled = list(self._pool.map(self._run, feeds))
        rows = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for chunk, vectors in zip(chunks, pooled, strict=True):
            rows[chunk] = vectors
        return rows

    def _feed(self, texts: Sequence[str]) -> dict[str, Any]:
        import numpy as np

        encodings = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        return {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}

    def _run(self, feed: dict[str, Any]) -> Any:
        [states] = self._session.run(None, {name: feed[name] for name in self._inputs})
        return _pool(states, feed["attention_mask"], self._pooling)

    def close(self) -> None:
        """Stop the threads that run batches side by side."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)


def _pool(states: Any, mask: Any, mode: str) -> Any:
    import numpy as np

    if mode == "cls":
        return states[:, 0]
    weights = mask[..., None].astype(np.float32)
    if mode == "max":
        return np.where(weights > 0, states, np.float32(-1e9)).max(axis=1)
    return (states * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)


def _session(model: Path | bytes) -> Any:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    # One thread a run; OnnxEncoder runs batches side by side instead.
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    # ORT's threads otherwise spin after every run, taking the core the graph
    # server needs next (the same reason the PyTorch runtime sets OMP_WAIT_POLICY).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    source = model if isinstance(model, bytes) else str(model)
    return onnxruntime.InferenceSession(source, options, providers=["CPUExecutionProvider"])
