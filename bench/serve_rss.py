"""Memory (RSS) of `hippograph serve`: once ready, and after it memorized and searched.

Starts ``hippograph serve`` on a fresh data directory (embedded ArcadeDB, whose
JVM lives in the same process), reads its VmRSS when ``/readyz`` answers,
then memorizes the first LoCoMo dev conversation through GraphQL, one
memorize per session, runs every question of it as a search, and reads it
again. The model is whatever the environment configures, so two runs with
two ``HIPPOGRAPH_EMBEDDING__MODEL`` values (or two checkouts on
``PYTHONPATH``) compare models or versions.

    python -m bench.serve_rss [--file LOCOMO] [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.common import LOCOMO, document, serve_env
from graph.embedded import free_port

ADMIN_KEY = "hg_bench-admin-key-for-rss"
USER = document("BenchUser")
SESSION = document("BenchSession")
MEMORIZE = document("BenchMemorize")
SEARCH = document("BenchSearch")


def rss_mib(pid: int) -> float:
    """The process's resident set, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError(f"no VmRSS for {pid}")


def _gql(client: httpx.Client, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    answer = client.post("/graphql", json={"query": query, "variables": variables})
    body: dict[str, Any] = answer.json()
    if body.get("errors"):
        raise RuntimeError(body["errors"])
    return body["data"]  # type: ignore[no-any-return]


def measure(file: Path) -> dict[str, Any]:
    """RSS at ready and after one conversation's memorize and searches."""
    sample = json.loads(file.read_text())[0]
    conversation = sample["conversation"]
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="hippograph-rss-") as data:
        env = serve_env(Path(data), port, ADMIN_KEY) | {
            "HIPPOGRAPH_MEMORIZE__REFLECT_AFTER_WRITE": "false"
        }
        command = [sys.executable, "-m", "hippograph.cli", "serve"]
        with subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL) as serve:
            try:
                base = f"http://127.0.0.1:{port}"
                headers = {"Authorization": f"Bearer {ADMIN_KEY}"}
                with httpx.Client(base_url=base, headers=headers, timeout=600) as client:
                    started = time.monotonic()
                    while True:
                        try:
                            if client.get("/readyz").status_code == 200:
                                break
                        except httpx.HTTPError:
                            pass
                        if time.monotonic() - started > 300:
                            raise RuntimeError("serve never became ready")
                        time.sleep(0.5)
                    ready = rss_mib(serve.pid)
                    _gql(client, USER, {"id": "u", "name": "U"})
                    turns = 0
                    for key, value in conversation.items():
                        if not (key.startswith("session_") and isinstance(value, list)):
                            continue
                        made = _gql(client, SESSION, {"u": "u", "title": "s"})
                        session = made["createSession"]["session"]["id"]
                        messages = [{"speaker": t["speaker"], "content": t["text"]} for t in value]
                        turns += len(messages)
                        _gql(client, MEMORIZE, {"u": "u", "s": session, "m": messages})
                    for qa in sample["qa"]:
                        _gql(client, SEARCH, {"u": "u", "q": qa["question"]})
                    after = rss_mib(serve.pid)
            finally:
                serve.terminate()
                serve.wait(60)
    return {"ready_mib": ready, "after_mib": after, "turns": turns, "searches": len(sample["qa"])}


def main() -> int:
    """Print the figures (JSON with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, default=LOCOMO)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = measure(args.file)
    print(json.dumps(result) if args.json else result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
