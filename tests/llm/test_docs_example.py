"""docs/llm.md's example runs as written against the test model, on a port of its own."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from graph.embedded import free_port

pytestmark = [
    pytest.mark.slow,
    # 215 s beside the rest of `make test` on two Intel cores: over the suite's 300.
    pytest.mark.timeout(900),
    pytest.mark.only_on("arcadedb", "the example imports into the embedded store"),
]

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "llm.md"


def example() -> str:
    """The bash block of the page's "Try it against the test model" part."""
    section = PAGE.read_text("utf-8").split("### Try it against the test model", 1)[1]
    blocks = re.findall(r"```bash\n(.*?)```", section.split("\n### ", 1)[0], re.DOTALL)
    assert len(blocks) == 1
    return str(blocks[0])


def test_the_local_model_example_imports_a_conversation(tmp_path: Path) -> None:
    port = str(free_port())
    script = example()
    assert script.count("8080") == 3  # the server, the wait, the base URL
    # The server the example starts in the background stops with the script.
    wrapped = "set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n"
    wrapped += script.replace("8080", port)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(Path.home())}
    env["HIPPOGRAPH_GRAPH__DATA_DIR"] = str(tmp_path / "data")
    done = subprocess.run(
        ["bash", "-c", wrapped],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=850,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = done.stdout + done.stderr
    memories = re.search(r"(\d+) memories", report)
    assert memories, report[-2000:]
    assert int(memories[1]) > 0, report[-2000:]
