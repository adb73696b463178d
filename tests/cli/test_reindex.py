"""`hippograph reindex`: the vector indexes rebuilt on a set-up graph, refused on a bare one."""

from __future__ import annotations

import pytest

from hippograph.cli import main


@pytest.mark.usefixtures("cli_environment")
def test_reindex_rebuilds_the_vector_indexes_of_a_set_up_graph(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["reindex"]) == 2
    assert "never set up: run `hippograph init` first" in capsys.readouterr().err
    assert main(["init"]) == 0
    capsys.readouterr()
    assert main(["reindex"]) == 0
    assert "rebuilt the 384-dimension vector indexes in" in capsys.readouterr().out
