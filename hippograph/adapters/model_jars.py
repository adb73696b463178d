"""The catalog's jars on disk: fetched once from Maven Central, checked, read in place.

``hippograph prepare-model`` (which ``make run`` calls) is the only caller of
:func:`install`; serving only reads (:func:`read_model_files`), and a jar that
is missing or whose sha256 is not the pinned one stops the start with a
message naming the command that fixes it. The file is hashed at every load
as well as at download: 25 MB costs about 40 ms, and a truncated or swapped
file then fails by name instead of as a garbled model.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hippograph.adapters.model_catalog import MAVEN_CENTRAL, Jar
from hippograph.errors import ConfigError
from hippograph.user_dirs import user_data

_CHUNK = 1 << 20
# Told (done, total) bytes as a download goes; total is 0 when the server gives none.
Progress = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class ModelFiles:
    """What the encoder needs from a jar: the ONNX graph and the tokenizer's JSON."""

    onnx: bytes
    tokenizer: str


def default_models_dir() -> Path:
    """Where jars go unless a setting says: ``$XDG_DATA_HOME/hippograph/models``.

    Installed data rather than a cache: serving cannot make it again, so it
    does not belong where caches are cleaned.
    """
    return user_data("models")


def jar_path(jar: Jar, directory: Path) -> Path:
    """Where ``jar`` lives in ``directory``."""
    return directory / jar.file_name


def file_sha256(path: Path) -> str:
    """The sha256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def is_installed(jar: Jar, directory: Path) -> bool:
    """Whether ``jar`` is in ``directory`` with its pinned sha256."""
    path = jar_path(jar, directory)
    return path.is_file() and file_sha256(path) == jar.sha256


def install(
    jar: Jar,
    directory: Path,
    repository: str = MAVEN_CENTRAL,
    progress: Progress | None = None,
) -> Path:
    """Download ``jar`` into ``directory`` unless it is there already; its path.

    The download goes to a temporary file beside the target and is renamed
    only once its sha256 is the pinned one, so a cut connection or a changed
    artifact never leaves a jar that looks installed.
    """
    import httpx

    target = jar_path(jar, directory)
    if is_installed(jar, directory):
        return target
    directory.mkdir(parents=True, exist_ok=True)
    url = jar.url(repository)
    digest = hashlib.sha256()
    handle, scratch = tempfile.mkstemp(dir=directory, prefix=f".{jar.file_name}.")
    try:
        with (
            os.fdopen(handle, "wb") as out,
            httpx.stream("GET", url, follow_redirects=True, timeout=60.0) as response,
        ):
            if response.status_code != 200:
                raise ConfigError(f"{url} answered HTTP {response.status_code}")
            total = int(response.headers.get("content-length") or 0)
            done = 0
            for chunk in response.iter_bytes(_CHUNK):
                out.write(chunk)
                digest.update(chunk)
                done += len(chunk)
                if progress is not None:
                    progress(done, total)
        if digest.hexdigest() != jar.sha256:
            raise ConfigError(
                f"{url} has sha256 {digest.hexdigest()}, not the pinned {jar.sha256}: "
                "refusing to install it"
            )
        os.chmod(scratch, 0o644)  # mkstemp makes it 0600; a service user reads it
        os.replace(scratch, target)
    except httpx.HTTPError as exc:
        raise ConfigError(f"could not download {url}: {exc}") from exc
    finally:
        if os.path.exists(scratch):
            os.unlink(scratch)
    return target


def read_model_files(jar: Jar, directory: Path, model: str, precision: str) -> ModelFiles:
    """The ONNX graph and tokenizer inside ``jar``, after checking its sha256."""
    path = jar_path(jar, directory)
    if not path.is_file():
        raise ConfigError(
            f"the embedding model {model} ({precision}) is not installed: {path} is missing. "
            "Run `hippograph prepare-model` (make run does) to fetch it from Maven Central, "
            "or set HIPPOGRAPH_EMBEDDING__MODELS_DIR to where it is"
        )
    found = file_sha256(path)
    if found != jar.sha256:
        raise ConfigError(
            f"{path} has sha256 {found}, not the pinned {jar.sha256}: delete it and run "
            "`hippograph prepare-model` to fetch it again"
        )
    with zipfile.ZipFile(path) as archive:
        return ModelFiles(
            onnx=archive.read(jar.onnx), tokenizer=archive.read(jar.tokenizer).decode("utf-8")
        )
