"""The regression benchmarks' registry and the bench folder agree."""

from __future__ import annotations

from pathlib import Path

from bench.registry import HELPERS, REGISTRY, by_name, compared

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"


def test_every_script_in_bench_is_a_registered_benchmark_or_a_helper() -> None:
    scripts = {p.stem for p in BENCH.glob("*.py")} - {"__init__"}
    registered = {b.module.removeprefix("bench.") for b in REGISTRY}
    assert scripts - registered - HELPERS == set(), "register it, or move it to experiments/"
    assert registered - scripts == set(), "a registered module that does not exist"
    assert not registered & HELPERS
    assert len(by_name()) == len(REGISTRY), "two entries share a name"


def test_experiments_are_not_regression_benchmarks() -> None:
    experiments = {p.stem for p in (BENCH / "experiments").glob("*.py")} - {"__init__"}
    assert experiments, "bench/experiments/ holds the A/B scripts"
    assert not {b.module.removeprefix("bench.") for b in REGISTRY} & experiments


def test_a_benchmark_run_per_server_takes_the_graph_option() -> None:
    for bench in REGISTRY:
        source = (BENCH / f"{bench.module.removeprefix('bench.')}.py").read_text()
        takes_graph = "graphs.add_argument(" in source
        assert takes_graph == bench.per_server, bench.name
    for bench in compared().values():  # bench.compare reads their JSON: report_cli's --json
        assert "report_cli(" in (BENCH / f"{bench.module.removeprefix('bench.')}.py").read_text()
    assert set(compared()) >= {"search", "import", "forget", "provenance"}


def test_the_readme_names_every_registered_benchmark() -> None:
    readme = (BENCH / "README.md").read_text()
    missing = [b.module for b in REGISTRY if f"-m {b.module} " not in readme]
    assert missing == []


def test_the_makefiles_bench_targets_run_registered_benchmarks_as_modules() -> None:
    # Run as a file (python bench/x.py), a benchmark cannot import the bench package.
    commands = [
        line.split("$(BIN)/python", 1)[1].split()
        for line in (ROOT / "Makefile").read_text().splitlines()
        if line.startswith("\t$(BIN)/python") and "bench" in line
    ]
    assert len(commands) >= 2  # make bench, make bench-llm
    registered = {b.module for b in REGISTRY}
    for command in commands:
        assert command[0] == "-m", command
        assert command[1] in registered, command
