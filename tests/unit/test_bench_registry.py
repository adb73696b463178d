"""The regression benchmarks' registry and the bench folder agree."""

from __future__ import annotations

from pathlib import Path

from bench.registry import HELPERS, REGISTRY, by_name, compared

BENCH = Path(__file__).resolve().parents[2] / "bench"


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
