"""The catalog's models encode right: as their ONNX file says, with their prefixes, truncated.

The reference here is computed independently of the encoder: each text run
alone through the jar's ONNX graph with ONNX Runtime, pooled in numpy as the
model's card says (CLS for bge, the masked mean for e5 and MiniLM), and
normalised. The encoder batches, sorts by length, pads and pools on its own.
"""

from __future__ import annotations

import hashlib
import math
import threading
import zipfile
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hippograph.adapters.embedder import SentenceTransformerEmbedder, models_dir
from hippograph.adapters.model_catalog import (
    CATALOG,
    EmbeddingModel,
    JarPrecision,
    catalog_model,
    find_model,
)
from hippograph.adapters.model_jars import install, jar_path, read_model_files
from hippograph.errors import ConfigError
from hippograph.settings import EmbeddingSettings

# Conversation turns of the kinds memorize embeds, short and long, with
# punctuation, numbers, names, an emoji and a Chinese line.
TEXTS = [
    'Caroline said, "I went to the LGBTQ support group yesterday and it was so powerful."',
    'Melanie said, "We took the kids camping at the lake last weekend, they loved it!"',
    'Emi said, "lol yeah my sister is visiting from Osaka next week 😅"',
    'Kevin said, "Did you finish the 10k on Sunday? I got 52:30, personal best."',
    "Ann drinks two flat whites every morning",
    "Sam's city: Lisbon",
    "On 8 May 2023, Caroline and Melanie talked about painting, camping and adoption.",
    'Elise said, "ok"',
    "我喜欢在周末去公园跑步。",
    "What did Melanie paint last year?",
]
PRECISIONS: tuple[JarPrecision, ...] = ("float32", "int8")


def _reference(model: EmbeddingModel, precision: JarPrecision, texts: list[str]) -> Any:
    """Each text alone through the jar's ONNX graph, pooled and normalised in numpy."""
    import onnxruntime
    from tokenizers import Tokenizer

    files = read_model_files(
        model.jars[precision],
        models_dir(EmbeddingSettings()),
        model.name,
        precision,
    )
    session = onnxruntime.InferenceSession(files.onnx, providers=["CPUExecutionProvider"])
    tokenizer = Tokenizer.from_str(files.tokenizer)
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=model.max_tokens)
    rows = []
    for text in texts:
        encoding = tokenizer.encode(text)
        ids = np.array([encoding.ids], dtype=np.int64)
        mask = np.ones_like(ids)
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        [states] = session.run(None, feed)
        pooled = states[0, 0] if model.pooling == "cls" else states[0].mean(axis=0)
        rows.append(pooled / np.linalg.norm(pooled))
    return np.array(rows)


async def _load(model: str, precision: JarPrecision) -> SentenceTransformerEmbedder:
    return await SentenceTransformerEmbedder.load(
        EmbeddingSettings(model=model, precision=precision)
    )


@pytest.mark.slow  # loads all eight model files (about 20 s here)
@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("name", [m.name for m in CATALOG])
async def test_every_model_encodes_as_its_onnx_file_computes_to_1e4(
    name: str, precision: JarPrecision
) -> None:
    model = catalog_model(name)
    embedder = await _load(name, precision)
    try:
        assert (embedder.model_name, embedder.precision) == (name, precision)
        assert embedder.dimensions == model.dimensions
        encoded = np.array(embedder.encode(TEXTS))
    finally:
        await embedder.close()
    expected = _reference(model, precision, TEXTS)
    assert encoded.shape == (len(TEXTS), model.dimensions)
    assert np.abs(encoded - expected).max() < 1e-4


@pytest.mark.parametrize("name", ["e5-small-v2", "bge-small-en-v1.5"])
async def test_the_query_and_passage_prefixes_reach_the_model(name: str) -> None:
    model = catalog_model(name)
    embedder = await _load(name, "int8")
    try:
        [query] = await embedder.embed_queries(["What did Melanie paint?"])
        [passage] = await embedder.embed(["Melanie painted a sunrise."])
        bare = embedder.encode(["What did Melanie paint?", "Melanie painted a sunrise."])
        prefixed = embedder.encode(
            [
                model.query_prefix + "What did Melanie paint?",
                model.passage_prefix + "Melanie painted a sunrise.",
            ]
        )
    finally:
        await embedder.close()
    assert np.allclose(query, prefixed[0], atol=1e-6)
    assert np.allclose(passage, prefixed[1], atol=1e-6)
    assert not np.allclose(query, bare[0], atol=1e-3)  # the prefix changed the vector
    assert model.query_prefix  # e5's "query: ", bge's instruction
    if name == "e5-small-v2":
        assert not np.allclose(passage, bare[1], atol=1e-3)


@pytest.mark.slow  # loads both precisions of three models (about 10 s here)
@pytest.mark.parametrize(
    ("name", "floor"),
    # MiniLM's int8 file strays further (0.989 at worst here): it is no default.
    [("all-minilm-l6-v2", 0.985), ("e5-small-v2", 0.99), ("bge-small-en-v1.5", 0.99)],
)
async def test_int8_vectors_stay_within_cosine_099_of_float32(name: str, floor: float) -> None:
    vectors = []
    for precision in PRECISIONS:
        embedder = await _load(name, precision)
        try:
            vectors.append(np.array(await embedder.embed(TEXTS[:8])))
        finally:
            await embedder.close()
    cosines = (vectors[0] * vectors[1]).sum(axis=1)
    # bench/experiments/encoders.py measures the same on every dev turn
    assert cosines.min() > floor, cosines


async def test_a_text_past_the_token_limit_is_truncated_not_refused() -> None:
    embedder = await _load("e5-small-v2", "int8")
    try:
        long = " ".join(f"word{i}" for i in range(3000))  # far past 512 tokens
        a, b = await embedder.embed([long, long + " and then some more words at the end"])
    finally:
        await embedder.close()
    assert math.isclose(math.fsum(x * x for x in a), 1.0, abs_tol=1e-5)
    assert max(abs(x - y) for x, y in zip(a, b, strict=True)) < 1e-6  # only the start counts


def test_models_are_known_by_their_names_and_aliases_in_any_case() -> None:
    assert find_model("E5-small-v2") is catalog_model("e5-small-v2")
    assert find_model("all-MiniLM-L6-v2") is catalog_model("all-minilm-l6-v2")
    assert find_model("BAAI/bge-small-en-v1.5") is catalog_model("bge-small-en-v1.5")
    assert find_model("gpt-2") is None
    with pytest.raises(ConfigError, match="known: all-minilm-l6-v2, e5-small-v2"):
        catalog_model("gpt-2")


async def test_an_unknown_model_that_is_no_folder_either_is_refused_by_name() -> None:
    with pytest.raises(ConfigError, match=r"neither a known model .* nor a local model directory"):
        await SentenceTransformerEmbedder.load(EmbeddingSettings(model="no-such-model"))


async def test_an_onnx_only_model_refuses_the_pytorch_runtime() -> None:
    with pytest.raises(ConfigError, match="e5-small-v2 ships as ONNX only"):
        await SentenceTransformerEmbedder.load(
            EmbeddingSettings(model="e5-small-v2", runtime="torch")
        )


async def test_a_missing_or_altered_jar_stops_the_start_naming_the_fix(tmp_path: Path) -> None:
    settings = EmbeddingSettings(model="all-minilm-l6-v2", precision="int8", models_dir=tmp_path)
    with pytest.raises(ConfigError, match=r"not installed.*`hippograph prepare-model`"):
        await SentenceTransformerEmbedder.load(settings)
    jar = catalog_model("all-minilm-l6-v2").jars["int8"]
    installed = jar_path(jar, models_dir(EmbeddingSettings()))
    altered = bytearray(installed.read_bytes())
    altered[-1] ^= 0xFF
    jar_path(jar, tmp_path).write_bytes(bytes(altered))
    with pytest.raises(ConfigError, match=r"not the pinned .*delete it"):
        await SentenceTransformerEmbedder.load(settings)


def test_the_catalog_pins_each_jar_by_the_sha256_of_the_installed_file() -> None:
    directory = models_dir(EmbeddingSettings())
    for model in CATALOG:
        for jar in model.jars.values():
            path = jar_path(jar, directory)
            assert hashlib.sha256(path.read_bytes()).hexdigest() == jar.sha256, path
            with zipfile.ZipFile(path) as archive:
                names = set(archive.namelist())
            assert {jar.onnx, jar.tokenizer} <= names


def test_an_install_checks_what_it_downloads_and_keeps_only_the_pinned_file(
    tmp_path: Path,
) -> None:
    # A repository on loopback serving the jar's path: first another file, then the real one.
    jar = catalog_model("all-minilm-l6-v2").jars["int8"]
    served = tmp_path / "repo"
    target = served / jar.url("").lstrip("/")
    target.parent.mkdir(parents=True)
    target.write_bytes(b"PK not the model")
    handler = partial(SimpleHTTPRequestHandler, directory=str(served))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    repository = f"http://127.0.0.1:{server.server_address[1]}"
    models = tmp_path / "models"
    try:
        with pytest.raises(ConfigError, match=r"not the pinned .*refusing to install it"):
            install(jar, models, repository)
        assert list(models.iterdir()) == []  # no jar, no scratch file
        target.write_bytes(jar_path(jar, models_dir(EmbeddingSettings())).read_bytes())
        seen: list[int] = []
        installed = install(jar, models, repository, lambda done, total: seen.append(total))
        assert installed == jar_path(jar, models)
        assert seen[-1] == installed.stat().st_size
        assert installed.stat().st_mode & 0o777 == 0o644
    finally:
        server.shutdown()
        server.server_close()
