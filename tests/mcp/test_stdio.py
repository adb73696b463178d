"""``hippograph mcp`` as a child process, with the SDK's stdio client."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.session import IncomingMessage
from mcp.client.stdio import StdioServerParameters

from tests.api.conftest import ADMIN_KEY
from tests.graphs import TestDatabase
from tests.mcp.conftest import ONLY_ON_ARCADEDB, World, data, error

pytestmark = [pytest.mark.slow, ONLY_ON_ARCADEDB]  # a child process with its own runtime

ROOT = Path(__file__).resolve().parents[2]
COMMAND = [sys.executable, "-m", "hippograph.cli", "mcp"]


def child_environment(database: TestDatabase, data_dir: Path, key: str | None) -> dict[str, str]:
    """What a desktop client would run ``hippograph mcp`` with: the graph, and the key."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("HIPPOGRAPH_") or name == "HIPPOGRAPH_EMBEDDING__CACHE_DIR"
    }
    env.update(database.environment(data_dir))
    env["PYTHONPATH"] = str(ROOT)  # this checkout's code, whatever is installed
    if key is not None:
        env["HIPPOGRAPH_API_KEY"] = key
    return env


async def test_the_stdio_server_acts_as_its_key(
    world: World, module_db: TestDatabase, tmp_path: Path
) -> None:
    server = StdioServerParameters(
        command=COMMAND[0],
        args=COMMAND[1:],
        env=child_environment(module_db, tmp_path / "data", world.alice_key),
        cwd=tmp_path,
    )
    async with Client(server, read_timeout_seconds=120) as alice:
        users = data(await alice.call_tool("list_users", {}))["users"]
        added = data(
            await alice.call_tool(
                "add_memory", {"user_id": "alice", "content": "Alice sails a dinghy."}
            )
        )
        found = data(await alice.call_tool("search", {"user_id": "alice", "query": "dinghy"}))
        refused = error(await alice.call_tool("search", {"user_id": "bob", "query": "bees"}))

    assert [u["id"] for u in users] == ["alice"]
    assert found["hits"][0]["memory"]["id"] == added["memoryId"]
    assert refused["code"] == "NOT_FOUND"


def refused_start(args: list[str], env: dict[str, str], cwd: Path) -> str:
    """Run ``hippograph mcp`` with ``args``, which must refuse to start (exit 2, nothing on
    stdout, the protocol's stream); what it said on stderr."""
    done = subprocess.run(
        [*COMMAND, *args],
        env=env,
        cwd=cwd,
        input="",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stdout == ""  # stdout is the protocol: nothing else is ever written there
    return done.stderr


@pytest.mark.parametrize(
    ("key", "says"),
    [
        (None, "no API key: set HIPPOGRAPH_API_KEY"),
        ("hg_not-a-key", "the API key was refused: unknown or revoked API key"),
    ],
    ids=["no key", "unknown key"],
)
def test_it_refuses_to_start_without_a_valid_key(
    module_db: TestDatabase, tmp_path: Path, key: str | None, says: str
) -> None:
    stderr = refused_start([], child_environment(module_db, tmp_path / "data", key), tmp_path)
    assert f"hippograph mcp: {says}" in stderr


@pytest.mark.parametrize(
    ("content", "says"), [(None, "cannot read the key file"), ("\n", "is empty")]
)
def test_a_key_file_that_holds_no_key_is_refused(
    module_db: TestDatabase, tmp_path: Path, content: str | None, says: str
) -> None:
    key_file = tmp_path / "mcp.key"
    if content is not None:
        key_file.write_text(content)
    env = child_environment(module_db, tmp_path / "data", "hg_the-file-wins-over-this")
    assert says in refused_start(["--key-file", str(key_file)], env, tmp_path)


async def test_a_desktop_clients_default_the_embedded_graph_in_the_child(tmp_path: Path) -> None:
    # No graph settings: the JVM of the embedded graph starts inside the child,
    # and nothing the start-up prints may reach the protocol.
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("HIPPOGRAPH_") or name == "HIPPOGRAPH_EMBEDDING__CACHE_DIR"
    }
    env.update(
        {
            "PYTHONPATH": str(ROOT),
            "HIPPOGRAPH_GRAPH__DATA_DIR": str(tmp_path / "data"),
            "HIPPOGRAPH_API__ADMIN_KEY": ADMIN_KEY,
            "HIPPOGRAPH_API_KEY": ADMIN_KEY,
        }
    )
    unreadable: list[Exception] = []

    async def watch(message: IncomingMessage) -> None:
        if isinstance(message, Exception):
            unreadable.append(message)

    server = StdioServerParameters(command=COMMAND[0], args=COMMAND[1:], env=env, cwd=tmp_path)
    async with Client(server, read_timeout_seconds=180, message_handler=watch) as admin:
        users = data(await admin.call_tool("list_users", {}))

    assert users == {"users": [], "hasNextPage": False, "endCursor": None}
    assert unreadable == []
