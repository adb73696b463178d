"""Memory (RSS) of `hippograph serve`: once ready, and after it memorized and searched.

Starts ``hippograph serve`` on a fresh data directory (embedded ArcadeDB, whose
JVM lives in the same process), reads its VmRSS when ``/readyz`` answers,
then memorizes the first LoCoMo dev conversation through GraphQL, one
memorize per session, runs every question of it as a search, and reads it
again. The model is whatever the environment configures, so two runs with
two ``HIPPOGRAPH_EMBEDDING__MODEL`` values (or two checkouts on
``PYTHONPATH``) compare models or versions.

    python bench/serve_rss.py [--file LOCOMO] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
LOCOMO = (
    Path(os.environ.get("HIPPOGRAPH_DEV_DATA") or ROOT / "bench" / "data")
    / "locomo"
    / "locomo_dev.json"
)
ADMIN_KEY = "hg_bench-admin-key-for-rss"


def rss_mib(pid: int) -> float:
    """The process's resident set, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError(f"no VmRSS for {pid}")


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _gql(client: httpx.Client, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    answer = client.post("/graphql", json={"query": query, "variables": variables})
    body: dict[str, Any] = answer.json()
    if body.get("errors"):
        raise RuntimeError(body["errors"])
    return body["data"]  # type: ignore[no-any-return]


MEMORIZE = """mutation($input: MemorizeInput!) { memorize(input: $input) { __typename
  ... on Error { message } } }"""
SEARCH = """query($q: String!) { search(userId: "u", query: $q, topK: 10) { hits { score } } }"""


def measure(file: Path) -> dict[str, Any]:
    """RSS at ready and after one conversation's memorize and searches."""
    sample = json.loads(file.read_text())[0]
    conversation = sample["conversation"]
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="hippograph-rss-") as data:
        env = {
            **os.environ,
            "HIPPOGRAPH_GRAPH__DATA_DIR": data,
            "HIPPOGRAPH_API__PORT": str(port),
            "HIPPOGRAPH_API__ADMIN_KEY": ADMIN_KEY,
            "HIPPOGRAPH_LOG_LEVEL": "warning",
            "HIPPOGRAPH_MEMORIZE__REFLECT_AFTER_WRITE": "false",
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
                    _gql(
                        client,
                        'mutation { createUser(input: {id: "u", name: "U"}) { __typename } }',
                        {},
                    )
                    turns = 0
                    for key, value in conversation.items():
                        if not (key.startswith("session_") and isinstance(value, list)):
                            continue
                        made = _gql(
                            client,
                            'mutation { createSession(input: {userId: "u", title: "s"}) '
                            "{ ... on SessionCreated { session { id } } } }",
                            {},
                        )
                        session = made["createSession"]["session"]["id"]
                        messages = [{"speaker": t["speaker"], "content": t["text"]} for t in value]
                        turns += len(messages)
                        request = {"userIds": ["u"], "sessionId": session, "messages": messages}
                        _gql(client, MEMORIZE, {"input": request | {"async": False}})
                    for qa in sample["qa"]:
                        _gql(client, SEARCH, {"q": qa["question"]})
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
